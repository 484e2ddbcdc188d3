import { type ExecuteContext, invoke, type Policy, type Settled } from '@rxgate/core';
import type { Dispatcher } from 'undici';
import { type InterceptorOptions, policyInterceptor } from './interceptor.js';

type Interceptor = Dispatcher.DispatcherComposeInterceptor;

/** Paces every request through a limiter policy (`@rxgate/ratelimit`'s `limiterPolicy`). */
export const limit = (limiter: Policy, options?: InterceptorOptions): Interceptor =>
  policyInterceptor(limiter, options);

/** Refuses requests while a breaker is open and records every answer (`@rxgate/breaker`'s `breakerPolicy`). */
export const breaker = (circuit: Policy, options?: InterceptorOptions): Interceptor =>
  policyInterceptor(circuit, options);

/** Retries what a retry policy's judge calls retryable (`@rxgate/retry`'s `retryPolicy`), draining each answer it replaces. */
export const retry = (policy: Policy, options?: InterceptorOptions): Interceptor =>
  policyInterceptor(policy, options);

export interface ClassifyInterceptorOptions<V> extends InterceptorOptions {
  /** The verdict of one answer or error (`@rxgate/classifier`'s `classifierAdapters().verdictOf`). */
  readonly verdictOf: (settled: Settled) => V | undefined;
  /** Called with every answer's verdict (and every transport error's), before it goes on. */
  readonly onVerdict: (verdict: V, context: ExecuteContext) => void;
}

/**
 * Classifies every answer (and transport error) that passes: `onVerdict` gets the verdict
 * (for a log line, a metric, a dead-letter). Outermost, it sees what the caller gets; inside
 * a retry, every attempt.
 */
export function classify<V>(options: ClassifyInterceptorOptions<V>): Interceptor {
  const { verdictOf, onVerdict } = options;
  const observe = (s: Settled, c: ExecuteContext): void => {
    const v = verdictOf(s);
    if (v !== undefined) onVerdict(v, c);
  };
  const policy: Policy = {
    execute: (fn, context = {}) =>
      invoke(fn, context).then(
        (value) => {
          observe({ ok: true, value }, context);
          return value;
        },
        (error: unknown) => {
          observe({ ok: false, error }, context);
          throw error;
        },
      ),
  };
  return policyInterceptor(policy, options);
}
