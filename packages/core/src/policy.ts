import type { Lane } from './lane.js';

/**
 * What one call carries through every policy it passes: the same object (or one derived from
 * it) from the outermost policy to `fn`. Every field is optional.
 */
export interface ExecuteContext {
  /** Whose limits and breaker this call uses (a payer's BIN/PCN, `vendor:segment`). @default '' */
  readonly key?: string;
  /** @default 'pos' */
  readonly lane?: Lane;
  /** Absolute time on the policies' clock by which the call must be done (or refused). */
  readonly deadline?: number;
  /** Aborts the call: a waiting policy stops waiting, and `fn` should pass it on (to `fetch`). */
  readonly signal?: AbortSignal;
  /** 0 for the first try; a retry policy hands 1, 2, … to the policies inside it. @default 0 */
  readonly attempt?: number;
}

/** The work a policy runs: it gets the context as the policies outside it left it. */
export type PolicyFn<T> = (context: ExecuteContext) => PromiseLike<T>;

/**
 * The one contract of rxgate's policies: run `fn` under the policy. A policy may refuse (reject
 * without calling `fn`), wait, call `fn` more than once (a retry), or judge what `fn` gave.
 */
export interface Policy {
  execute<T>(fn: PolicyFn<T>, context?: ExecuteContext): Promise<T>;
}

/** A policy made by {@link wrap}; `policies` lists what it composes, outermost first. */
export interface WrappedPolicy extends Policy {
  readonly policies: readonly Policy[];
}

const EMPTY: ExecuteContext = Object.freeze({});

/**
 * Calls `fn(context)` and always hands back a promise: a synchronous throw becomes a rejection.
 * For policy authors.
 */
export function invoke<T>(fn: PolicyFn<T>, context: ExecuteContext): Promise<T> {
  try {
    return Promise.resolve(fn(context));
  } catch (e) {
    return Promise.reject(e);
  }
}

/**
 * Composes policies, outermost first: `wrap(limiter, retry, breaker).execute(fn, ctx)` is
 * `limiter.execute((c) => retry.execute((c2) => breaker.execute(fn, c2), c), ctx)`, so every
 * retry is admitted by the breaker alone and the limiter paces the whole call once. Each
 * policy passes the context on, changed or not, to the next.
 */
export function wrap(...policies: Policy[]): WrappedPolicy {
  const list = Object.freeze([...policies]);
  for (const [i, p] of list.entries())
    if (typeof p?.execute !== 'function') throw new TypeError(`wrap: policies[${i}] has no execute()`);
  const n = list.length;
  // The common lengths composed as by hand: one closure per policy per call, no index lookups.
  switch (n) {
    case 0:
      return { policies: list, execute: (fn, context = EMPTY) => invoke(fn, context) };
    case 1: {
      const [a] = list as [Policy];
      return { policies: list, execute: (fn, context = EMPTY) => a.execute(fn, context) };
    }
    case 2: {
      const [a, b] = list as [Policy, Policy];
      return {
        policies: list,
        execute: (fn, context = EMPTY) => a.execute((c) => b.execute(fn, c), context),
      };
    }
    case 3: {
      const [a, b, c] = list as [Policy, Policy, Policy];
      return {
        policies: list,
        execute: (fn, context = EMPTY) =>
          a.execute((c1) => b.execute((c2) => c.execute(fn, c2), c1), context),
      };
    }
    default:
      return {
        policies: list,
        execute<T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> {
          const step =
            (i: number): PolicyFn<T> =>
            (ctx) =>
              i === n - 1 ? list[i]!.execute(fn, ctx) : list[i]!.execute(step(i + 1), ctx);
          return step(0)(context) as Promise<T>;
        },
      };
  }
}
