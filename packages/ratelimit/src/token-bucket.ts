import { Adaptation } from './adaptation.js';
import { type AdaptiveOptions, resolveAdaptive } from './adaptive.js';
import { type AbortSignalLike, type Clock, systemClock } from './clock.js';
import { InvalidOptionError } from './errors.js';
import type { Lane, LimiterListener } from './events.js';
import { NOOP_LEASE } from './lease.js';
import type { QuotaSignal } from './quota-signal.js';
import { atOnce, type KeyHandle, Scheduler } from './scheduler.js';
import { type LevelSpec, MemoryStore, syncOf } from './store.js';
import { inRange, optionalTime, positive } from './validate.js';

export interface TokenBucketOptions {
  /** Most tokens the bucket holds; it starts full, so this is the burst available at once. */
  readonly capacity: number;
  /** Tokens added per second (fractional rates are fine: 0.5 is one token every 2 s). */
  readonly refillPerSecond: number;
  /** @default systemClock */
  readonly clock?: Clock;
  /**
   * Where the bucket's state lives: a bucket answers `tryAcquire`, `predictWait` and `tokens`
   * at once, so it runs on a memory store (a shared bucket is `createLimiter({ store })` or
   * `createRedisLimiter`). @default a new MemoryStore
   */
  readonly store?: MemoryStore;
  /** State id in the store, for buckets that share a store. @default 'bucket' */
  readonly id?: string;
  /** Minimum share of admissions kept for `batch` while `pos` waits, in (0, 1). @default 0.1 */
  readonly batchShare?: number;
  /** Adaptation to vendor quota signals. @default {} (CUBIC, beta 0.7, scale 0.4) */
  readonly adaptive?: AdaptiveOptions;
  /** Receives telemetry events. */
  readonly onEvent?: LimiterListener;
}

export interface AcquireOptions {
  /** Tokens this acquire takes (weighted cost); at most the capacity. @default 1 */
  readonly cost?: number;
  /** Absolute time on the bucket's clock by which admission must happen; fail fast when it cannot. */
  readonly deadline?: number;
  /** Aborting removes the waiter; nothing is spent. */
  readonly signal?: AbortSignalLike;
  /** @default 'pos' */
  readonly lane?: Lane;
}

const KEY = '';

/**
 * A token bucket (GCRA inside) that starts full, admits in FIFO order per lane and wakes the
 * head of the queue with one timer at the exact instant its tokens exist.
 *
 * @example
 * const bucket = new TokenBucket({ capacity: 20, refillPerSecond: 10 });
 * await bucket.acquire({ deadline: Date.now() + 800 });
 */
export class TokenBucket {
  readonly #scheduler: Scheduler;
  readonly #level: LevelSpec;
  readonly #clock: Clock;
  readonly #store: MemoryStore;
  readonly #adaptation: Adaptation;
  readonly #handle: KeyHandle;

  constructor(options: TokenBucketOptions) {
    if (typeof options !== 'object' || options === null)
      throw new InvalidOptionError('options', 'must be an object');
    const capacity = positive('capacity', options.capacity);
    const refill = positive('refillPerSecond', options.refillPerSecond);
    const share =
      options.batchShare === undefined ? 0.1 : inRange('batchShare', options.batchShare, 0, 1, true);
    this.#clock = options.clock ?? systemClock;
    this.#store = options.store ?? new MemoryStore();
    this.#level = { id: options.id ?? 'bucket', ratePerSecond: refill, burst: capacity };
    this.#adaptation = new Adaptation(
      resolveAdaptive(options.adaptive, 'adaptive'),
      this.#store,
      this.#clock,
    );
    const limits = { levels: [this.#level], concurrency: Number.POSITIVE_INFINITY };
    this.#scheduler = new Scheduler({
      clock: this.#clock,
      store: this.#store,
      account: undefined,
      accountConcurrency: Number.POSITIVE_INFINITY,
      posPerBatch: posPerBatch(share),
      limitsFor: () => limits,
      beforePass: this.#adaptation.beforePass,
      nextChangeAt: this.#adaptation.nextChangeAt,
    });
    this.#adaptation.attach(this.#scheduler);
    this.#handle = this.#scheduler.handle(KEY);
    if (options.onEvent) this.#scheduler.on(options.onEvent);
  }

  /** Takes `cost` tokens if they exist now and nobody of the same or a higher lane waits; never waits. */
  tryAcquire(cost = 1, lane: Lane = 'pos'): boolean {
    return atOnce(this.#scheduler.tryAcquireEntry(this.#handle, lane, cost)) !== undefined;
  }

  /**
   * Runs `fn` once its tokens are taken. When they exist now, `fn` is called at once and its
   * own promise returned: no extra microtask on the hot path.
   */
  run<T>(fn: () => T | PromiseLike<T>, options?: AcquireOptions): Promise<T> {
    if (
      options === undefined &&
      atOnce(this.#scheduler.tryAcquireEntry(this.#handle, 'pos', 1)) === NOOP_LEASE
    ) {
      try {
        return Promise.resolve(fn());
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return this.acquire(options).then(fn);
  }

  /** Resolves once the tokens are taken; rejects with a typed error on deadline, abort or close. */
  acquire(options?: AcquireOptions): Promise<void> {
    const deadline = optionalTime('deadline', options?.deadline);
    return this.#scheduler.acquire({
      key: KEY,
      handle: this.#handle,
      lane: options?.lane ?? 'pos',
      cost: options?.cost ?? 1,
      deadline,
      signal: options?.signal,
    }) as Promise<unknown> as Promise<void>;
  }

  /** Milliseconds an acquire of `cost` would wait if it queued now (the queue ahead included). */
  predictWait(cost = 1, lane: Lane = 'pos'): number {
    return atOnce(this.#scheduler.predictWait(KEY, lane, cost, this.#clock.now()));
  }

  /** Follows a vendor's quota signal: Retry-After pauses, low remaining slows, a bare throttle cuts. */
  observe(signal: QuotaSignal): void {
    // No lease is handed out, so nothing is known in flight.
    if (signal.roundTripMs !== undefined) this.#scheduler.logAdmissions(undefined, this.#clock.now());
    this.#adaptation.observe(this.#level, signal, () => ({
      inFlight: 0,
      admitted: this.#scheduler.admitted,
      admittedSince: (t: number) => this.#scheduler.admittedSince(undefined, t),
    }));
  }

  /** Tokens available now (fractional). */
  get tokens(): number {
    const now = this.#clock.now();
    this.#adaptation.beforePass(now);
    return syncOf(this.#store)!.snapshot(this.#level, now).tokens;
  }

  /** The refill rate in force (after adaptation). */
  get ratePerSecond(): number {
    return this.#adaptation.rateOf(this.#level);
  }

  /** Acquires waiting. */
  get waiting(): number {
    return this.#scheduler.waiting;
  }

  on(listener: LimiterListener): () => void {
    return this.#scheduler.on(listener);
  }

  /** Rejects every waiter with `LimiterClosedError`; later acquires reject too. */
  close(): void {
    this.#scheduler.close();
  }
}

export function posPerBatch(batchShare: number): number {
  return Math.max(1, Math.round((1 - batchShare) / batchShare));
}
