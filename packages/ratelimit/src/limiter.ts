import { Adaptation } from './adaptation.js';
import { type AdaptiveOptions, resolveAdaptive } from './adaptive.js';
import { type AbortSignalLike, type Clock, systemClock } from './clock.js';
import { InvalidOptionError } from './errors.js';
import type { Lane, LimiterListener } from './events.js';
import { type Lease, NOOP_LEASE } from './lease.js';
import type { QuotaSignal } from './quota-signal.js';
import { atOnce, type KeyLimits, Scheduler } from './scheduler.js';
import { type LevelSnapshot, type LevelSpec, MemoryStore, type RateStore, syncOf } from './store.js';
import { posPerBatch } from './token-bucket.js';
import { inRange, optionalTime, positive, positiveInt } from './validate.js';

/** One level's limits. */
export interface LimitOptions {
  /** Sustained rate, requests per second. */
  readonly ratePerSecond: number;
  /** Burst: requests allowed at once from full. */
  readonly burst: number;
  /** Most requests in flight at once (a switch's concurrency cap). @default no cap */
  readonly concurrency?: number;
}

export interface LimiterOptions {
  /** The account-wide limit every key shares (the vendor's quota for our credentials). */
  readonly account: LimitOptions;
  /** Per-key limits (a payer's BIN/PCN): a default, and overrides by key. @default no per-key limit */
  readonly perKey?: {
    readonly default?: LimitOptions;
    readonly overrides?: Readonly<Record<string, LimitOptions>>;
  };
  /** Lane policy. */
  readonly lanes?: {
    /** Minimum share of admissions kept for `batch` while `pos` waits, in (0, 1). @default 0.1 */
    readonly batchShare?: number;
  };
  /** Adaptation to vendor quota signals. @default {} (CUBIC, beta 0.7, scale 0.4) */
  readonly adaptive?: AdaptiveOptions;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Where the limit state lives. @default a new MemoryStore */
  readonly store?: RateStore;
  /** Prefix of this limiter's level ids in the store, for limiters that share one. @default 'rx' */
  readonly name?: string;
  readonly onEvent?: LimiterListener;
}

export interface LimiterAcquireOptions {
  /** The per-key limit to take from along with the account's (a payer's BIN/PCN). */
  readonly key: string;
  /** @default 'pos' */
  readonly lane?: Lane;
  /** Absolute time on the limiter's clock by which admission must happen. */
  readonly deadline?: number;
  readonly signal?: AbortSignalLike;
  /** @default 1 */
  readonly cost?: number;
}

export interface KeySnapshot {
  readonly tokens: number;
  readonly ratePerSecond: number;
  readonly pausedUntil: number;
  readonly waiting: number;
  readonly inFlight: number;
}

/**
 * An account-wide limit plus per-key limits, taken together or not at all. The same interface
 * over every store: what reads or spends the store's state answers with a promise (settled at
 * once on the memory store, one round trip on Redis).
 */
export interface Limiter {
  /** Waits for account and key tokens (and slots), taken together; the lease holds the slots. */
  acquire(options: LimiterAcquireOptions): Promise<Lease>;
  /** Admits now or resolves undefined; never queues. */
  tryAcquire(options: Omit<LimiterAcquireOptions, 'deadline' | 'signal'>): Promise<Lease | undefined>;
  /** Runs `fn` once admitted, releasing the slots in `finally`. */
  run<T>(key: string, fn: () => T | PromiseLike<T>, options?: Omit<LimiterAcquireOptions, 'key'>): Promise<T>;
  /** Milliseconds an acquire would wait if it queued now (the queue ahead included). */
  predictWait(options: Omit<LimiterAcquireOptions, 'deadline' | 'signal'>): Promise<number>;
  /**
   * Follows a vendor quota signal. Without `key` it adapts the account level (the vendor's
   * quota for our credentials); with `key`, that key's level. Applied at once on the memory
   * store; resolves once the store has it, and never rejects (a signal a shared store could not
   * take is lost, as if the answer had not come).
   */
  observe(signal: QuotaSignal, options?: { readonly key?: string }): Promise<void>;
  /** The account's state, or one key's. */
  snapshot(key?: string): Promise<KeySnapshot>;
  on(listener: LimiterListener): () => void;
  /** Drops idle keys now (otherwise amortised over acquires). Returns the keys still held. */
  sweep(): number;
  /** Rejects every waiter with `LimiterClosedError`. */
  close(): void;
}

/**
 * Creates a hierarchical limiter: one account-wide level plus a level per key, both taken in
 * one atomic store operation, so no token is spent on one level while a claim waits on the
 * other. Idle keys hold no state: a full GCRA level equals a fresh one, so it is dropped.
 *
 * @example
 * const limiter = createLimiter({
 *   account: { ratePerSecond: 10, burst: 20, concurrency: 32 },
 *   perKey: { default: { ratePerSecond: 5, burst: 5 } },
 * });
 * await limiter.run('610014/ADV', () => send(claim), { lane: 'pos', deadline: Date.now() + 800 });
 */
export function createLimiter(options: LimiterOptions): Limiter {
  if (typeof options !== 'object' || options === null)
    throw new InvalidOptionError('options', 'must be an object');
  const name = options.name ?? 'rx';
  const account = resolveLimit('account', options.account);
  const perKeyDefault =
    options.perKey?.default === undefined
      ? undefined
      : resolveLimit('perKey.default', options.perKey.default);
  const overrides = new Map<string, ResolvedLimit>();
  for (const [key, limit] of Object.entries(options.perKey?.overrides ?? {})) {
    overrides.set(key, resolveLimit(`perKey.overrides.${key}`, limit));
  }
  const share =
    options.lanes?.batchShare === undefined
      ? 0.1
      : inRange('lanes.batchShare', options.lanes.batchShare, 0, 1, true);
  const clock = options.clock ?? systemClock;
  const store = options.store ?? new MemoryStore();
  const accountLevel: LevelSpec = {
    id: `${name}:acct`,
    ratePerSecond: account.ratePerSecond,
    burst: account.burst,
  };
  const adaptation = new Adaptation(resolveAdaptive(options.adaptive, 'adaptive'), store, clock, true);
  const noKeyLimit: KeyLimits = { levels: [], concurrency: Number.POSITIVE_INFINITY };

  // Keys the vendor scoped a quota to, with no per-key limit configured: they get a level of
  // their own at the account's rate and burst (no change until the vendor's signals adapt it).
  const learned = new Map<string, ResolvedLimit>();
  const limitOf = (key: string): ResolvedLimit | undefined =>
    overrides.get(key) ?? perKeyDefault ?? learned.get(key);
  const levelOf = (key: string): LevelSpec | undefined => {
    const limit = limitOf(key);
    return limit && { id: `${name}:key:${key}`, ratePerSecond: limit.ratePerSecond, burst: limit.burst };
  };
  const limitsFor = (key: string): KeyLimits => {
    const limit = limitOf(key);
    if (limit === undefined) return noKeyLimit;
    return { levels: [levelOf(key)!], concurrency: limit.concurrency };
  };

  const sync = syncOf(store) !== undefined;
  const scheduler = new Scheduler({
    clock,
    store,
    account: accountLevel,
    accountConcurrency: account.concurrency,
    posPerBatch: posPerBatch(share),
    limitsFor,
    beforePass: adaptation.beforePass,
    nextChangeAt: adaptation.nextChangeAt,
  });
  adaptation.attach(scheduler);
  if (options.onEvent) scheduler.on(options.onEvent);

  const keyOf = (key: unknown): string => {
    if (typeof key !== 'string') throw new InvalidOptionError('key', 'must be a string');
    return key;
  };

  const limiter: Limiter = {
    acquire(o) {
      try {
        return scheduler.acquire({
          key: keyOf(o.key),
          lane: o.lane ?? 'pos',
          cost: o.cost ?? 1,
          deadline: optionalTime('deadline', o.deadline),
          signal: o.signal,
        });
      } catch (e) {
        return Promise.reject(e);
      }
    },
    tryAcquire(o) {
      try {
        return Promise.resolve(scheduler.tryAcquire(keyOf(o.key), o.lane ?? 'pos', o.cost ?? 1));
      } catch (e) {
        return Promise.reject(e);
      }
    },
    run(key, fn, o) {
      // Admitted now with no slot to hold: call fn at once and hand back its own promise.
      if (sync && o?.deadline === undefined && o?.signal === undefined) {
        let lease: Lease | undefined;
        try {
          lease = atOnce(scheduler.tryAcquire(keyOf(key), o?.lane ?? 'pos', o?.cost ?? 1));
        } catch (e) {
          return Promise.reject(e);
        }
        if (lease === NOOP_LEASE) return callSafely(fn);
        if (lease !== undefined) return settleThenRelease(callSafely(fn), lease);
      }
      return limiter.acquire({ ...o, key }).then((lease) => settleThenRelease(callSafely(fn), lease));
    },
    predictWait(o) {
      try {
        return Promise.resolve(
          scheduler.predictWait(keyOf(o.key), o.lane ?? 'pos', o.cost ?? 1, clock.now()),
        );
      } catch (e) {
        return Promise.reject(e);
      }
    },
    observe(signal, o) {
      let key: string | undefined;
      try {
        key = o?.key === undefined ? undefined : keyOf(o.key);
      } catch (e) {
        return Promise.reject(e);
      }
      if (key !== undefined && limitOf(key) === undefined) {
        learned.set(key, { ...account, concurrency: Number.POSITIVE_INFINITY });
        scheduler.relimit(key);
      }
      const level = key === undefined ? accountLevel : levelOf(key);
      if (level === undefined) return RESOLVED;
      // From the first round trip on, the level's admissions are logged (see AdmissionLog).
      if (signal.roundTripMs !== undefined) scheduler.logAdmissions(key, clock.now());
      return adaptation.observe(level, signal, () =>
        key === undefined
          ? {
              inFlight: scheduler.inFlight,
              admitted: scheduler.admitted,
              admittedSince: (t: number) => scheduler.admittedSince(undefined, t),
            }
          : { ...scheduler.keyState(key), admittedSince: (t: number) => scheduler.admittedSince(key, t) },
      );
    },
    snapshot(key) {
      const level = key === undefined ? accountLevel : levelOf(key);
      const now = clock.now();
      adaptation.beforePass(now);
      const queue = (s: LevelSnapshot): KeySnapshot => {
        const q = key === undefined ? scheduler : scheduler.keyState(key);
        return { ...s, waiting: q.waiting, inFlight: q.inFlight };
      };
      if (level === undefined) return Promise.resolve(queue(UNLIMITED));
      if (sync) return Promise.resolve(queue(syncOf(store)!.snapshot(level, now)));
      return store.snapshot(level, now).then(queue);
    },
    on: (listener) => scheduler.on(listener),
    sweep() {
      scheduler.sweep();
      return scheduler.keyCount;
    },
    close: () => scheduler.close(),
  };
  return limiter;
}

const RESOLVED = Promise.resolve();
const UNLIMITED: LevelSnapshot = {
  tokens: Number.POSITIVE_INFINITY,
  ratePerSecond: Number.POSITIVE_INFINITY,
  pausedUntil: 0,
};

interface ResolvedLimit {
  readonly ratePerSecond: number;
  readonly burst: number;
  readonly concurrency: number;
}

function resolveLimit(option: string, limit: LimitOptions | undefined): ResolvedLimit {
  if (typeof limit !== 'object' || limit === null) throw new InvalidOptionError(option, 'must be an object');
  return {
    ratePerSecond: positive(`${option}.ratePerSecond`, limit.ratePerSecond),
    burst: positive(`${option}.burst`, limit.burst),
    concurrency:
      limit.concurrency === undefined
        ? Number.POSITIVE_INFINITY
        : positiveInt(`${option}.concurrency`, limit.concurrency),
  };
}

function callSafely<T>(fn: () => T | PromiseLike<T>): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (e) {
    return Promise.reject(e);
  }
}

function settleThenRelease<T>(p: Promise<T>, lease: Lease): Promise<T> {
  return p.then(
    (v) => {
      lease.release();
      return v;
    },
    (e: unknown) => {
      lease.release();
      throw e;
    },
  );
}
