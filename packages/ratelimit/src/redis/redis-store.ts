import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { LevelAdjustment, LevelSnapshot, LevelSpec, RateStore } from '../store.js';
import { StoreUnavailableError } from '../store-unavailable.js';
import { ADJUST, PEEK, SNAPSHOT, TAKE } from './scripts.js';

export { isStoreUnavailableError, StoreUnavailableError } from '../store-unavailable.js';

export interface RedisStoreOptions {
  /** How long a level's state outlives the last time it records (its TAT, pause or budget). @default 60_000 */
  readonly ttlMs?: number;
  /**
   * Whose clock times the levels. `redis`: Redis' own `TIME`, so the clocks of the processes
   * sharing the quota do not matter (the `now` the scheduler passes only anchors the times it
   * sends). `caller`: the `now` each call passes (one clock for every process: a virtual clock
   * in a test or a simulation).
   * @default 'redis'
   */
  readonly time?: 'redis' | 'caller';
}

interface Script {
  readonly source: string;
  readonly sha: string;
}
const script = (source: string): Script => ({ source, sha: createHash('sha1').update(source).digest('hex') });
const SCRIPTS = {
  take: script(TAKE),
  peek: script(PEEK),
  adjust: script(ADJUST),
  snapshot: script(SNAPSHOT),
};

const opt = (v: number | undefined): string | number => (v === undefined ? '' : v);

/**
 * Limiter state in Redis, shared by every process and host that uses the same level ids: the
 * memory store's operations, one atomic Lua script each (one `EVALSHA` round trip), with the
 * same arithmetic. Give every level of one acquire the same hash tag (`createRedisLimiter`
 * does) and it works on Redis Cluster.
 *
 * Operations run in the order issued. The scripts are loaded (`SCRIPT LOAD`) when the store is
 * made, and operations issued meanwhile are sent, in order, once they are: an `EVALSHA` that
 * met `NOSCRIPT` and went again as `EVAL` would run after operations issued later (a pause
 * written after the peek that should have seen it). Should Redis lose its scripts later (a
 * restart, `SCRIPT FLUSH`), an operation that meets `NOSCRIPT` goes again as `EVAL` and the
 * scripts are loaded again before the next ones; only operations already on their way then
 * may run before it.
 */
export class RedisStore implements RateStore {
  readonly #redis: Redis | Cluster;
  readonly #ttlMs: number;
  readonly #mode: 'r:' | 'c:';
  #roundTrips = 0;
  // While the scripts load, operations wait their turn here, each sent once the one before it
  // was (not answered): the order issued is the order sent.
  #loaded = false;
  #queued = 0;
  #turn: Promise<void>;

  constructor(redis: Redis | Cluster, options: RedisStoreOptions = {}) {
    this.#redis = redis;
    this.#ttlMs = options.ttlMs ?? 60_000;
    this.#mode = options.time === 'caller' ? 'c:' : 'r:';
    this.#turn = this.#load();
  }

  // Loads every script on every node that runs them; resolves either way (a script still
  // missing is sent again as EVAL on NOSCRIPT).
  #load(): Promise<void> {
    this.#loaded = false;
    const r = this.#redis;
    const nodes: ReadonlyArray<Redis | Cluster> = 'nodes' in r ? r.nodes('master') : [r];
    const loads = nodes.flatMap((n) => Object.values(SCRIPTS).map((s) => n.script('LOAD', s.source)));
    return Promise.all(loads).then(
      () => {
        this.#loaded = true;
      },
      () => {
        this.#loaded = true;
      },
    );
  }

  /** Round trips of the store's operations so far (one that meets `NOSCRIPT` counts twice; loading the scripts does not count). */
  get roundTrips(): number {
    return this.#roundTrips;
  }

  /** The client is connected and answering. */
  get ready(): boolean {
    return this.#redis.status === 'ready';
  }

  async take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return waitMs(await this.#eval(SCRIPTS.take, levels, [now, cost, this.#ttlMs, ...specArgs(levels)]));
  }

  async peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    if (levels.length === 0) return 0;
    return waitMs(await this.#eval(SCRIPTS.peek, levels, [now, cost, ...specArgs(levels)]));
  }

  async adjust(level: LevelSpec, a: LevelAdjustment, now: number): Promise<void> {
    await this.#eval(
      SCRIPTS.adjust,
      [level],
      [
        now,
        this.#ttlMs,
        level.ratePerSecond,
        level.burst,
        opt(a.ratePerSecond),
        opt(a.pauseUntil),
        a.fill === true ? '1' : '',
        opt(a.budget?.count),
        opt(a.budget?.until),
        opt(a.capTokens),
      ],
    );
  }

  async snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
    const [tokens, rate, paused] = (await this.#eval(
      SCRIPTS.snapshot,
      [level],
      [now, level.ratePerSecond, level.burst],
    )) as [string, string, string];
    return { tokens: Number(tokens), ratePerSecond: Number(rate), pausedUntil: Number(paused) };
  }

  /** Redis drops idle levels itself (every key has a TTL): nothing to do. */
  evictIdle(): Promise<number> {
    return Promise.resolve(0);
  }

  #eval(s: Script, levels: readonly LevelSpec[], args: ReadonlyArray<string | number>): Promise<unknown> {
    if (this.#loaded && this.#queued === 0) return this.#send(s, levels, args);
    this.#queued++;
    let answer!: Promise<unknown>;
    const sent = this.#turn.then(() => {
      this.#queued--;
      answer = this.#send(s, levels, args);
    });
    this.#turn = sent;
    return sent.then(() => answer);
  }

  // Sends at once (ioredis writes the command when called): the caller keeps the order.
  async #send(
    s: Script,
    levels: readonly LevelSpec[],
    [now, ...argv]: ReadonlyArray<string | number>,
  ): Promise<unknown> {
    const keys = levels.map((l) => l.id);
    const args = [`${this.#mode}${now}`, ...argv];
    this.#roundTrips++;
    try {
      return await this.#redis.evalsha(s.sha, keys.length, ...keys, ...args);
    } catch (e) {
      if (e instanceof Error && e.message.startsWith('NOSCRIPT')) {
        this.#roundTrips++;
        // Whatever is issued from now on waits for the scripts again.
        if (this.#loaded) this.#turn = this.#load();
        try {
          return await this.#redis.eval(s.source, keys.length, ...keys, ...args);
        } catch (e2) {
          throw new StoreUnavailableError(e2);
        }
      }
      throw new StoreUnavailableError(e);
    }
  }
}

function specArgs(levels: readonly LevelSpec[]): number[] {
  const args: number[] = [];
  for (const l of levels) args.push(l.ratePerSecond, l.burst);
  return args;
}

/**
 * A script's reply: the wait in milliseconds before the cost fits (0: taken). A limiter's time,
 * never money or a quantity of a claim, so a plain number, as the memory store answers it.
 */
function waitMs(reply: unknown): number {
  return Number(reply);
}
