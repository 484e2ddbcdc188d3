import { type AbortSignalLike, type Clock, systemClock } from './clock.js';
import type { Lane, LimiterListener } from './events.js';
import type { Lease } from './lease.js';
import { atOnce, Scheduler } from './scheduler.js';
import { MemoryStore } from './store.js';
import { posPerBatch } from './token-bucket.js';
import { inRange, optionalTime, positiveInt } from './validate.js';

export interface ConcurrencyLimitOptions {
  /** @default systemClock (used for deadlines only) */
  readonly clock?: Clock;
  /** Minimum share of admissions kept for `batch` while `pos` waits. @default 0.1 */
  readonly batchShare?: number;
  readonly onEvent?: LimiterListener;
}

export interface PermitOptions {
  readonly signal?: AbortSignalLike;
  /** Absolute time by which a slot must be had; rejects at that time if none came free. */
  readonly deadline?: number;
  /** @default 'pos' */
  readonly lane?: Lane;
}

/**
 * What {@link ConcurrencyLimit} hands back: a {@link Lease} (release is idempotent, `using` works).
 * @deprecated Use `Lease`. The one `Permit` of rxgate is the breaker's, settled exactly once.
 */
export type Permit = Lease;

const NO_LEVELS = { levels: [], concurrency: Number.POSITIVE_INFINITY } as const;

/**
 * At most `n` holders at once; waiters queue FIFO per lane. Permits never leak: an exception
 * inside {@link run}, an abort while queued or a double release leaves the count exact.
 *
 * @example
 * const cap = new ConcurrencyLimit(32); // a switch that returns the 33rd transaction
 * const body = await cap.run(() => send(claim));
 */
export class ConcurrencyLimit {
  readonly #scheduler: Scheduler;
  readonly #limit: number;

  constructor(limit: number, options: ConcurrencyLimitOptions = {}) {
    this.#limit = positiveInt('limit', limit);
    const share =
      options.batchShare === undefined ? 0.1 : inRange('batchShare', options.batchShare, 0, 1, true);
    this.#scheduler = new Scheduler({
      clock: options.clock ?? systemClock,
      store: new MemoryStore(),
      account: undefined,
      accountConcurrency: this.#limit,
      posPerBatch: posPerBatch(share),
      limitsFor: () => NO_LEVELS,
    });
    if (options.onEvent) this.#scheduler.on(options.onEvent);
  }

  /** A permit now, or undefined when all slots are held (or someone waits). */
  tryAcquire(lane: Lane = 'pos'): Permit | undefined {
    return atOnce(this.#scheduler.tryAcquire('', lane, 1));
  }

  acquire(options?: PermitOptions): Promise<Permit> {
    return this.#scheduler.acquire({
      key: '',
      lane: options?.lane ?? 'pos',
      cost: 1,
      deadline: optionalTime('deadline', options?.deadline),
      signal: options?.signal,
    });
  }

  /** Runs `fn` holding a permit, released in `finally`. */
  run<T>(fn: () => T | PromiseLike<T>, options?: PermitOptions): Promise<T> {
    const now = options === undefined ? this.tryAcquire() : undefined;
    if (now !== undefined) return releaseAfter(fn, now);
    return this.acquire(options).then((permit) => releaseAfter(fn, permit));
  }

  get limit(): number {
    return this.#limit;
  }

  /** Permits held now. */
  get active(): number {
    return this.#scheduler.inFlight;
  }

  /** Callers waiting for a permit. */
  get waiting(): number {
    return this.#scheduler.waiting;
  }

  close(): void {
    this.#scheduler.close();
  }
}

function releaseAfter<T>(fn: () => T | PromiseLike<T>, permit: Permit): Promise<T> {
  let p: Promise<T>;
  try {
    p = Promise.resolve(fn());
  } catch (e) {
    permit.release();
    return Promise.reject(e);
  }
  return p.then(
    (v) => {
      permit.release();
      return v;
    },
    (e: unknown) => {
      permit.release();
      throw e;
    },
  );
}
