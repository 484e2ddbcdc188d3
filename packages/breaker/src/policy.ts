import type { ExecuteContext, Policy, PolicyFn } from '@rxgate/core';
import type { Breakers } from './breakers.js';
import { CircuitBreaker } from './circuit-breaker.js';

const EMPTY: ExecuteContext = Object.freeze({});

/**
 * The breaker as a {@link Policy}: `execute(fn, context)` refuses at once with
 * `BrokenCircuitError` while the breaker is open, else runs `fn` and records what it gave,
 * judged by the breaker's `classifyResult` and `classifyError`. With keyed `Breakers`, the
 * context's `key` picks the breaker (`''` without one).
 *
 * @example
 * const policy = breakerPolicy(new CircuitBreaker({ classifyResult: (r) => (r as Response).status >= 500 ? 'failure' : 'success' }));
 * const res = await policy.execute(({ signal }) => fetch(url, { signal }));
 */
export function breakerPolicy(breaker: CircuitBreaker | Breakers): Policy {
  if (breaker instanceof CircuitBreaker) {
    return {
      execute: <T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> =>
        breaker.execute(
          () => fn(context),
          context.signal === undefined ? undefined : { signal: context.signal },
        ),
    };
  }
  return {
    execute: <T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> =>
      breaker.execute(
        context.key ?? '',
        () => fn(context),
        context.signal === undefined ? undefined : { signal: context.signal },
      ),
  };
}
