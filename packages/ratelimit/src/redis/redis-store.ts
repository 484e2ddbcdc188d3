import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { RateLimitError } from '../errors.js';
import type { QuotaSignal } from '../quota-signal.js';
import type { LevelSpec } from '../store.js';
import { OBSERVE, SNAPSHOT, TAKE } from './scripts.js';

/** Redis could not answer (down, or slower than the command timeout). */
export class StoreUnavailableError extends RateLimitError {
  constructor(cause: unknown) {
    super('RXGATE_RATELIMIT_STORE_UNAVAILABLE', 'the shared limiter store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

export const isStoreUnavailableError = (e: unknown): e is StoreUnavailableError =>
  e instanceof Error && (e as { code?: unknown }).code === 'RXGATE_RATELIMIT_STORE_UNAVAILABLE';

/** Adaptation parameters the scripts need (the same meaning as the in-memory controller's). */
export interface RedisAdaptive {
  readonly beta: number;
  readonly scale: number;
  /** The slowest rate adaptation may set, tokens per second. */
  readonly minRatePerSecond: (level: LevelSpec) => number;
}

interface Script {
  readonly source: string;
  readonly sha: string;
}
const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });
const SCRIPTS = { take: script(TAKE), observe: script(OBSERVE), snapshot: script(SNAPSHOT) };

/**
 * Limiter state in Redis, shared by every process and host that uses the same prefix. One
 * `take` is one EVALSHA round trip (the script is loaded again on NOSCRIPT), timed by Redis'
 * own clock; every level of one acquire lives under one hash tag, so it works on Redis Cluster.
 */
export class RedisStore {
  readonly #redis: Redis | Cluster;
  readonly #ttlMs: number;
  readonly #adaptive: RedisAdaptive;
  /** Round trips made, for benchmarks and tests. */
  roundTrips = 0;

  constructor(redis: Redis | Cluster, options: { ttlMs?: number; adaptive: RedisAdaptive }) {
    this.#redis = redis;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#adaptive = options.adaptive;
  }

  /** The store is connected and answering. */
  get ready(): boolean {
    return this.#redis.status === 'ready';
  }

  /** Spends `cost` on every level, or on none; returns 0 when granted, else the predicted wait (ms). */
  async take(levels: readonly LevelSpec[], cost: number): Promise<number> {
    const argv: Array<string | number> = [cost, this.#ttlMs];
    for (const l of levels) argv.push(...this.#levelArgs(l));
    const [granted, wait] = (await this.#eval(
      SCRIPTS.take,
      levels.map((l) => l.id),
      argv,
    )) as [number, string];
    return granted === 1 ? 0 : Math.max(Number(wait), 0.001);
  }

  /** Applies a vendor quota signal to a level, for every process. Returns the rate in force. */
  async observe(level: LevelSpec, signal: QuotaSignal): Promise<number> {
    const opt = (v: number | undefined) => (v === undefined || !Number.isFinite(v) ? '' : String(v));
    const iv = await this.#eval(
      SCRIPTS.observe,
      [level.id],
      [
        ...this.#levelArgs(level),
        this.#ttlMs,
        opt(signal.retryAfterMs),
        opt(signal.remaining),
        opt(signal.resetSeconds),
        signal.throttled ? '1' : '0',
      ],
    );
    return 1000 / Number(iv);
  }

  async snapshot(level: LevelSpec): Promise<{ tokens: number; ratePerSecond: number; pausedForMs: number }> {
    const [tokens, iv, paused] = (await this.#eval(SCRIPTS.snapshot, [level.id], this.#levelArgs(level))) as [
      string,
      string,
      string,
    ];
    return { tokens: Number(tokens), ratePerSecond: 1000 / Number(iv), pausedForMs: Number(paused) };
  }

  #levelArgs(l: LevelSpec): Array<string | number> {
    return [
      1000 / l.ratePerSecond,
      l.burst,
      1000 / this.#adaptive.minRatePerSecond(l),
      this.#adaptive.beta,
      this.#adaptive.scale,
    ];
  }

  async #eval(s: Script, keys: readonly string[], argv: ReadonlyArray<string | number>): Promise<unknown> {
    this.roundTrips++;
    try {
      return await this.#redis.evalsha(s.sha, keys.length, ...keys, ...argv);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('NOSCRIPT')) {
        this.roundTrips++;
        try {
          return await this.#redis.eval(s.source, keys.length, ...keys, ...argv);
        } catch (e2) {
          throw new StoreUnavailableError(e2);
        }
      }
      throw new StoreUnavailableError(e);
    }
  }
}
