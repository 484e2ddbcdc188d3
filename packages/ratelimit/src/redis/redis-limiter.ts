import type { Cluster, Redis } from 'ioredis';
import { type AbortSignalLike, type Clock, systemClock, type TimerHandle } from '../clock.js';
import {
  AcquireAbortedError,
  DeadlineExceededError,
  InvalidOptionError,
  LimiterClosedError,
} from '../errors.js';
import type { Lane, LimiterListener } from '../events.js';
import { type Lease, NOOP_LEASE } from '../lease.js';
import { createLimiter, type Limiter, type LimiterAcquireOptions, type LimitOptions } from '../limiter.js';
import type { QuotaSignal } from '../quota-signal.js';
import type { LevelSpec } from '../store.js';
import { inRange, optionalTime, positive } from '../validate.js';
import { isStoreUnavailableError, RedisStore, StoreUnavailableError } from './redis-store.js';

export interface RedisLimiterOptions {
  /** An ioredis client (or Cluster). Give it a `commandTimeout` and `enableOfflineQueue: false` so a sick Redis fails fast. */
  readonly redis: Redis | Cluster;
  /** Names this quota: every process with the same name shares it. Becomes the hash tag. */
  readonly name: string;
  /** The account-wide limit every process shares (rate and burst; concurrency stays per process). */
  readonly account: Omit<LimitOptions, 'concurrency'>;
  readonly perKey?: {
    readonly default?: Omit<LimitOptions, 'concurrency'>;
    readonly overrides?: Readonly<Record<string, Omit<LimitOptions, 'concurrency'>>>;
  };
  /**
   * When Redis is down or slow: `fail-closed` rejects with `StoreUnavailableError`; `local`
   * falls back to a conservative local limit (the shared rates divided by `processes`) and
   * returns to Redis as soon as it answers again.
   * @default 'fail-closed'
   */
  readonly onUnavailable?: 'fail-closed' | { readonly fallback: 'local'; readonly processes: number };
  /** Adaptation (CUBIC, as the memory limiter). */
  readonly adaptive?: { readonly beta?: number; readonly scale?: number; readonly minRatePerSecond?: number };
  /** State TTL after a level goes idle. @default 60_000 */
  readonly ttlMs?: number;
  readonly clock?: Clock;
  readonly onEvent?: LimiterListener;
}

/** A shared limiter's state, read from Redis (or from the local fallback while Redis is away). */
export interface SharedSnapshot {
  readonly tokens: number;
  readonly ratePerSecond: number;
  readonly pausedForMs: number;
  readonly waiting: number;
  /** False while the local fallback answers. */
  readonly shared: boolean;
}

/** The part of a limiter the router uses; the Redis limiter has it, asynchronously shared. */
export interface SharedLimiter {
  acquire(options: LimiterAcquireOptions): Promise<Lease>;
  run<T>(key: string, fn: () => T | PromiseLike<T>, options?: Omit<LimiterAcquireOptions, 'key'>): Promise<T>;
  /** Applies a vendor quota signal in Redis, for every process; resolves once Redis has it (errors are swallowed). */
  observe(signal: QuotaSignal, options?: { readonly key?: string }): Promise<void>;
  snapshot(key?: string): Promise<SharedSnapshot>;
  /** Round trips to Redis so far. */
  readonly roundTrips: number;
  close(): void;
}

interface Waiter {
  readonly cost: number;
  readonly lane: Lane;
  readonly deadline: number;
  readonly signal: AbortSignalLike | undefined;
  readonly enqueuedAt: number;
  readonly resolve: (l: Lease) => void;
  readonly reject: (e: unknown) => void;
  settled: boolean;
  deadlineTimer: TimerHandle | undefined;
  onAbort: (() => void) | undefined;
}

interface KeyQueue {
  readonly key: string;
  readonly levels: readonly LevelSpec[];
  readonly pos: Waiter[];
  readonly batch: Waiter[];
  busy: boolean;
  timer: TimerHandle | undefined;
}

/**
 * A limiter whose state lives in Redis: every process sharing `name` shares one account quota
 * and one per-key quota, taken together in one atomic script. Locally, each key's waiters queue
 * in order (`pos` first) and only the head asks Redis, so a crowd of waiters is one timer and
 * one round trip per admission, not a stampede; the script's predicted wait sets that timer and
 * fails a deadline fast.
 */
export function createRedisLimiter(options: RedisLimiterOptions): SharedLimiter {
  if (typeof options?.name !== 'string' || options.name === '' || /[{}]/.test(options.name)) {
    throw new InvalidOptionError('name', 'must be a non-empty string without braces');
  }
  const clock = options.clock ?? systemClock;
  const account = {
    ratePerSecond: positive('account.ratePerSecond', options.account?.ratePerSecond),
    burst: positive('account.burst', options.account?.burst),
  };
  const beta =
    options.adaptive?.beta === undefined ? 0.7 : inRange('adaptive.beta', options.adaptive.beta, 0, 1, true);
  const scale =
    options.adaptive?.scale === undefined ? 0.4 : positive('adaptive.scale', options.adaptive.scale);
  const minRate = options.adaptive?.minRatePerSecond;
  const store = new RedisStore(options.redis, {
    ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    adaptive: { beta, scale, minRatePerSecond: (l) => minRate ?? l.ratePerSecond / 20 },
  });
  const tag = `rxgate:{${options.name}}`;
  const accountLevel: LevelSpec = { id: `${tag}:acct`, ...account };
  const keyLimit = (key: string) => options.perKey?.overrides?.[key] ?? options.perKey?.default;
  const levelsOf = (key: string): LevelSpec[] => {
    const l = keyLimit(key);
    return l === undefined
      ? [accountLevel]
      : [accountLevel, { id: `${tag}:key:${key}`, ratePerSecond: l.ratePerSecond, burst: l.burst }];
  };
  const policy = options.onUnavailable ?? 'fail-closed';
  let fallback: Limiter | undefined;
  if (policy !== 'fail-closed') {
    const n = positive('onUnavailable.processes', policy.processes);
    const share = (l: Omit<LimitOptions, 'concurrency'>) => ({
      ratePerSecond: l.ratePerSecond / n,
      burst: Math.max(1, l.burst / n),
    });
    const perKeyDefault = options.perKey?.default;
    fallback = createLimiter({
      account: share(account),
      ...(options.perKey
        ? {
            perKey: {
              ...(perKeyDefault ? { default: share(perKeyDefault) } : {}),
              overrides: Object.fromEntries(
                Object.entries(options.perKey.overrides ?? {}).map(([k, l]) => [k, share(l)]),
              ),
            },
          }
        : {}),
      clock,
      name: `${options.name}-local`,
    });
  }
  const queues = new Map<string, KeyQueue>();
  let closed = false;
  let posStreak = 0;
  const emit = options.onEvent;

  const queueOf = (key: string): KeyQueue => {
    let q = queues.get(key);
    if (q === undefined) {
      q = { key, levels: levelsOf(key), pos: [], batch: [], busy: false, timer: undefined };
      queues.set(key, q);
    }
    return q;
  };
  const settle = (
    q: KeyQueue,
    w: Waiter,
    result: { lease: Lease } | { error: unknown },
    reason?: 'deadline' | 'aborted' | 'closed',
  ) => {
    if (w.settled) return;
    w.settled = true;
    const list = w.lane === 'pos' ? q.pos : q.batch;
    const i = list.indexOf(w);
    if (i >= 0) list.splice(i, 1);
    w.deadlineTimer?.cancel();
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
    if ('lease' in result) {
      emit?.({
        type: 'acquired',
        key: q.key,
        lane: w.lane,
        cost: w.cost,
        waitedMs: clock.now() - w.enqueuedAt,
      });
      w.resolve(result.lease);
    } else {
      if (reason) emit?.({ type: 'rejected', key: q.key, lane: w.lane, reason });
      w.reject(result.error);
    }
    if (q.pos.length === 0 && q.batch.length === 0 && !q.busy && q.timer === undefined) queues.delete(q.key);
  };
  const head = (q: KeyQueue): Waiter | undefined => {
    // pos first; a tenth of admissions kept for batch while both wait.
    if (q.batch.length > 0 && (q.pos.length === 0 || posStreak >= 9)) return q.batch[0];
    return q.pos[0] ?? q.batch[0];
  };

  const pump = (q: KeyQueue): void => {
    if (q.busy || q.timer !== undefined || closed) return;
    const w = head(q);
    if (w === undefined) return;
    if (clock.now() > w.deadline) {
      settle(q, w, { error: new DeadlineExceededError(0, w.deadline, 'passed-while-queued') }, 'deadline');
      pump(q);
      return;
    }
    q.busy = true;
    const viaRedis = store.ready || fallback === undefined;
    const attempt: Promise<number | Lease> = viaRedis
      ? store.take(q.levels, w.cost)
      : fallback!.acquire({
          key: q.key,
          lane: w.lane,
          cost: w.cost,
          deadline: w.deadline,
          ...(w.signal ? { signal: w.signal } : {}),
        });
    attempt.then(
      (r) => {
        q.busy = false;
        const current = head(q);
        if (typeof r !== 'number' || r === 0) {
          // Granted: to the waiter it was asked for, or, if that one left meanwhile, to the next.
          const to = w.settled ? current : w;
          if (to !== undefined) {
            if (to.lane === 'pos' && q.batch.length > 0) posStreak++;
            else if (to.lane === 'batch') posStreak = 0;
            settle(q, to, { lease: typeof r === 'number' ? NOOP_LEASE : r });
          } else if (typeof r !== 'number') r.release();
          pump(q);
          return;
        }
        if (current === undefined) return;
        if (clock.now() + r > current.deadline) {
          settle(q, current, { error: new DeadlineExceededError(r, current.deadline) }, 'deadline');
          pump(q);
          return;
        }
        q.timer = clock.setTimer(r, () => {
          q.timer = undefined;
          pump(q);
        });
      },
      (e: unknown) => {
        q.busy = false;
        if (w.settled) {
          pump(q);
          return;
        }
        if (isStoreUnavailableError(e) && fallback !== undefined) {
          // Redis went away mid-call: the local limit takes over for this waiter.
          fallback
            .acquire({
              key: q.key,
              lane: w.lane,
              cost: w.cost,
              deadline: w.deadline,
              ...(w.signal ? { signal: w.signal } : {}),
            })
            .then(
              (lease) => settle(q, w, { lease }),
              (err: unknown) => settle(q, w, { error: err }, 'deadline'),
            )
            .finally(() => pump(q));
          return;
        }
        settle(q, w, { error: isStoreUnavailableError(e) ? e : new StoreUnavailableError(e) });
        pump(q);
      },
    );
  };

  // A call to Redis that would outlive the caller's deadline (or abort) ends with it.
  const withinDeadline = <T>(
    p: Promise<T>,
    deadline: number | undefined,
    signal: AbortSignalLike | undefined,
  ): Promise<T> => {
    if (deadline === undefined && signal === undefined) return p;
    return new Promise<T>((resolve, reject) => {
      const timer =
        deadline === undefined
          ? undefined
          : clock.setTimer(Math.max(0, deadline - clock.now()), () =>
              reject(new DeadlineExceededError(0, deadline, 'passed-while-queued')),
            );
      const onAbort = () => reject(new AcquireAbortedError(signal?.reason));
      signal?.addEventListener('abort', onAbort, { once: true });
      p.then(resolve, reject).finally(() => {
        timer?.cancel();
        signal?.removeEventListener('abort', onAbort);
      });
    });
  };

  const enqueue = (
    q: KeyQueue,
    cost: number,
    o: LimiterAcquireOptions,
    deadline: number | undefined,
  ): Promise<Lease> =>
    new Promise<Lease>((resolve, reject) => {
      const w: Waiter = {
        cost,
        lane: o.lane ?? 'pos',
        deadline: deadline ?? Number.POSITIVE_INFINITY,
        signal: o.signal,
        enqueuedAt: clock.now(),
        resolve,
        reject,
        settled: false,
        deadlineTimer: undefined,
        onAbort: undefined,
      };
      (w.lane === 'pos' ? q.pos : q.batch).push(w);
      if (deadline !== undefined) {
        // Nothing waits past its deadline, however slow Redis is.
        w.deadlineTimer = clock.setTimer(Math.max(0, deadline - clock.now()), () => {
          settle(
            q,
            w,
            { error: new DeadlineExceededError(0, w.deadline, 'passed-while-queued') },
            'deadline',
          );
        });
      }
      if (o.signal) {
        w.onAbort = () => settle(q, w, { error: new AcquireAbortedError(o.signal?.reason) }, 'aborted');
        o.signal.addEventListener('abort', w.onAbort, { once: true });
      }
      pump(q);
    });

  const limiter: SharedLimiter = {
    acquire(o) {
      if (closed) return Promise.reject(new LimiterClosedError());
      if (typeof o?.key !== 'string')
        return Promise.reject(new InvalidOptionError('key', 'must be a string'));
      const cost = o.cost ?? 1;
      const q = queueOf(o.key);
      if (!(cost > 0) || q.levels.some((l) => cost > l.burst))
        return Promise.reject(new InvalidOptionError('cost', 'must be > 0 and at most every burst'));
      if (o.lane !== undefined && o.lane !== 'pos' && o.lane !== 'batch')
        return Promise.reject(
          new InvalidOptionError('lane', `must be "pos" or "batch", got ${JSON.stringify(o.lane)}`),
        );
      let deadline: number | undefined;
      try {
        deadline = optionalTime('deadline', o.deadline);
      } catch (e) {
        return Promise.reject(e);
      }
      if (o.signal?.aborted) return Promise.reject(new AcquireAbortedError(o.signal.reason));
      if (deadline !== undefined && deadline < clock.now())
        return Promise.reject(new DeadlineExceededError(0, deadline, 'already-past'));
      // Nobody waits on this key: ask Redis at once, concurrently with other callers (one round
      // trip each). Only when Redis says "wait" does the caller join the key's ordered queue.
      if (q.pos.length === 0 && q.batch.length === 0 && q.timer === undefined && store.ready) {
        return withinDeadline(store.take(q.levels, cost), deadline, o.signal).then(
          (wait) => {
            if (wait === 0) {
              emit?.({ type: 'acquired', key: q.key, lane: o.lane ?? 'pos', cost, waitedMs: 0 });
              return NOOP_LEASE;
            }
            if (deadline !== undefined && clock.now() + wait > deadline) {
              emit?.({ type: 'rejected', key: q.key, lane: o.lane ?? 'pos', reason: 'deadline' });
              throw new DeadlineExceededError(wait, deadline);
            }
            return enqueue(q, cost, o, deadline);
          },
          (e: unknown) => {
            if (fallback !== undefined && isStoreUnavailableError(e)) return enqueue(q, cost, o, deadline);
            throw e;
          },
        );
      }
      return enqueue(q, cost, o, deadline);
    },
    async run(key, fn, o) {
      const lease = await limiter.acquire({ ...o, key });
      try {
        return await fn();
      } finally {
        lease.release();
      }
    },
    observe(signal, o) {
      const levels = o?.key === undefined ? [accountLevel] : levelsOf(o.key).slice(1);
      fallback?.observe(signal, o);
      return Promise.all(levels.map((level) => store.observe(level, signal).catch(() => undefined))).then(
        () => undefined,
      );
    },
    async snapshot(key) {
      const level = key === undefined ? accountLevel : (levelsOf(key)[1] ?? accountLevel);
      const q = key === undefined ? undefined : queues.get(key);
      const waiting =
        key === undefined
          ? [...queues.values()].reduce((a, x) => a + x.pos.length + x.batch.length, 0)
          : (q?.pos.length ?? 0) + (q?.batch.length ?? 0);
      try {
        return { ...(await store.snapshot(level)), waiting, shared: true };
      } catch {
        const s = fallback?.snapshot(key);
        return {
          tokens: s?.tokens ?? 0,
          ratePerSecond: s?.ratePerSecond ?? 0,
          pausedForMs: 0,
          waiting,
          shared: false,
        };
      }
    },
    get roundTrips() {
      return store.roundTrips;
    },
    close() {
      closed = true;
      for (const q of [...queues.values()]) {
        q.timer?.cancel();
        q.timer = undefined;
        for (const w of [...q.pos, ...q.batch]) settle(q, w, { error: new LimiterClosedError() }, 'closed');
      }
      fallback?.close();
    },
  };
  return limiter;
}
