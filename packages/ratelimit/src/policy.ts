import type { ExecuteContext, Lane, Policy, PolicyFn, QuotaSignal } from '@rxgate/core';
import { ConcurrencyLimit } from './concurrency-limit.js';
import type { Limiter } from './limiter.js';
import { TokenBucket } from './token-bucket.js';

export interface LimiterPolicyOptions {
  /**
   * The vendor's quota signal in what `fn` resolved with, for the limiter to follow
   * (`@rxgate/classifier`'s `quotaOf`). Observed on the account level, or the context's key
   * level with `perKey`. @default none: the limiter paces only
   */
  readonly quotaOf?: (result: unknown) => QuotaSignal | undefined;
  /** Observe the quota on the context key's level instead of the account's. @default false */
  readonly perKey?: boolean;
}

type Admission = { lane?: Lane; deadline?: number; signal?: AbortSignal };

// Only the fields set: the limiters' fast path is taken when neither deadline nor signal is.
function admission(c: ExecuteContext): Admission {
  const o: Admission = {};
  if (c.lane !== undefined) o.lane = c.lane;
  if (c.deadline !== undefined) o.deadline = c.deadline;
  if (c.signal !== undefined) o.signal = c.signal;
  return o;
}

const EMPTY: ExecuteContext = Object.freeze({});

/**
 * The limiter as a {@link Policy}: `execute(fn, context)` waits for admission under the
 * context's key, lane, deadline and signal, runs `fn`, and releases its slots when `fn`
 * settles. A `Limiter` (account + per-key), a `TokenBucket` or a `ConcurrencyLimit`.
 *
 * @example
 * const policy = wrap(limiterPolicy(limiter), retryPolicy(...), breakerPolicy(breakers));
 */
export function limiterPolicy(
  limiter: Limiter | TokenBucket | ConcurrencyLimit,
  options: LimiterPolicyOptions = {},
): Policy {
  const quotaOf = options.quotaOf;
  const perKey = options.perKey === true;
  if (limiter instanceof TokenBucket || limiter instanceof ConcurrencyLimit) {
    const bucket = limiter instanceof TokenBucket ? limiter : undefined;
    return {
      execute<T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> {
        const o = admission(context);
        const run = () => fn(context);
        const p =
          o.lane === undefined && o.deadline === undefined && o.signal === undefined
            ? limiter.run(run)
            : limiter.run(run, o);
        if (quotaOf === undefined || bucket === undefined) return p;
        return p.then((v) => {
          const q = quotaOf(v);
          if (q !== undefined) bucket.observe(q);
          return v;
        });
      },
    };
  }
  return {
    execute<T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> {
      const key = context.key ?? '';
      const run = () => fn(context);
      const p =
        context.lane === undefined && context.deadline === undefined && context.signal === undefined
          ? limiter.run(key, run)
          : limiter.run(key, run, admission(context));
      if (quotaOf === undefined) return p;
      return p.then((v) => {
        const q = quotaOf(v);
        if (q !== undefined) limiter.observe(q, perKey ? { key } : undefined);
        return v;
      });
    },
  };
}
