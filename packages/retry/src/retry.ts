import {
  type Clock,
  type ExecuteContext,
  invoke,
  optionChecks,
  type Policy,
  type PolicyFn,
  type RetryJudgement,
  type Settled,
  sleep,
  systemClock,
} from '@rxgate/core';
import { type BackoffOptions, backoffDelay } from './backoff.js';
import { decide, type GiveUpReason } from './decide.js';
import { InvalidRetryOptionError } from './errors.js';

/** Telemetry of the retry policy. Keys are payer identifiers, reasons short and PHI-free. */
export type RetryEvent =
  | {
      readonly type: 'retry';
      readonly key: string;
      /** The attempt about to be made (1 for the first retry). */
      readonly attempt: number;
      readonly delayMs: number;
      readonly retryAfterMs?: number;
      readonly reason?: string;
    }
  | {
      readonly type: 'give-up';
      readonly key: string;
      readonly attempts: number;
      readonly reason: GiveUpReason;
      readonly lastReason?: string;
    };

/**
 * What the retry-queue hook gets when retries run out: the context (its key and lane, to
 * requeue under), how many attempts were made, why it stopped, and the last attempt's outcome
 * (the call still settles with it).
 */
export interface GiveUp {
  readonly context: ExecuteContext;
  readonly attempts: number;
  readonly reason: GiveUpReason;
  readonly last: Settled;
  /** The wait the last answer asked for (its Retry-After), to schedule the queued retry. */
  readonly retryAfterMs?: number;
}

export interface RetryOptions {
  /** Retries after the first attempt (so `maxRetries + 1` attempts at most). @default 3 */
  readonly maxRetries?: number;
  /** @default { kind: 'full', baseMs: 1000, capMs: 30_000 } */
  readonly backoff?: BackoffOptions;
  /**
   * Which outcomes to retry, and the Retry-After they carry. `@rxgate/classifier`'s
   * `classifierAdapters().retry` retries throttles and faults nothing processed.
   * @default retry any rejection except an abort (`AbortError`, `TimeoutError`); never a result
   */
  readonly judge?: (settled: Settled) => RetryJudgement;
  /**
   * Milliseconds to wait by the answer itself, read your own way (a header the judge does not
   * know). Overrides the judge's `retryAfterMs` when it returns a number.
   */
  readonly retryAfter?: (settled: Settled) => number | undefined;
  /** The retry-queue hook: called once when a retryable call runs out of retries or time. */
  readonly onGiveUp?: (giveUp: GiveUp) => void;
  readonly onEvent?: (event: RetryEvent) => void;
  /** @default systemClock */
  readonly clock?: Clock;
  /** In [0, 1), drawn once per retry for the jitter. @default Math.random */
  readonly random?: () => number;
}

/** The retry policy: a {@link Policy} with its resolved options. */
export interface RetryPolicy extends Policy {
  readonly maxRetries: number;
  readonly backoff: BackoffOptions;
}

const EMPTY: ExecuteContext = Object.freeze({});
const NO: RetryJudgement = Object.freeze({ retry: false });
const YES: RetryJudgement = Object.freeze({ retry: true });

const defaultJudge = (s: Settled): RetryJudgement =>
  s.ok || (s.error instanceof Error && (s.error.name === 'AbortError' || s.error.name === 'TimeoutError'))
    ? NO
    : YES;

/**
 * Retries `fn` under the context it is given, handing `attempt: 1, 2, …` to what is inside it,
 * waiting the jittered backoff or the answer's Retry-After (the longer) on the injected clock.
 * It stops at the first outcome the judge does not call retryable, at `maxRetries`, when the
 * next wait would reach past the context's `deadline`, or when the context's signal aborts
 * (then it rejects with the signal's reason). When it runs out, `onGiveUp` gets the call (a
 * retry queue) and the call settles with the last outcome.
 *
 * @example
 * const retry = retryPolicy({ maxRetries: 4, backoff: { kind: 'full', baseMs: 1000, capMs: 30_000 } });
 * const res = await retry.execute(({ signal }) => submit(batch, signal), { key: 'clearinghouse' });
 */
export function retryPolicy(options: RetryOptions = {}): RetryPolicy {
  if (typeof options !== 'object' || options === null)
    throw new InvalidRetryOptionError('options', 'must be an object');
  const maxRetries = options.maxRetries ?? 3;
  if (!Number.isInteger(check.nonNegative('maxRetries', maxRetries)))
    throw new InvalidRetryOptionError('maxRetries', 'must be a whole number >= 0');
  const backoff = resolveBackoff(options.backoff ?? { kind: 'full', baseMs: 1000, capMs: 30_000 });
  for (const name of ['judge', 'retryAfter', 'onGiveUp', 'onEvent', 'random'] as const)
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new InvalidRetryOptionError(name, 'must be a function');
  const judge = options.judge ?? defaultJudge;
  const { retryAfter, onGiveUp, onEvent } = options;
  const clock = options.clock ?? systemClock;
  const random = options.random ?? Math.random;

  // The first attempt without async machinery: most calls settle on it (a success, or an
  // outcome the judge does not retry), and pay one `then` for the whole policy.
  function execute<T>(fn: PolicyFn<T>, context: ExecuteContext = EMPTY): Promise<T> {
    const first =
      context.attempt === undefined || context.attempt === 0 ? context : { ...context, attempt: 0 };
    return invoke(fn, first).then(
      (value) => {
        const settled: Settled<T> = { ok: true, value };
        const j = judge(settled);
        return j.retry ? retryFrom(fn, context, settled, j) : value;
      },
      (error: unknown) => {
        if (context.signal?.aborted) throw error;
        const settled: Settled<T> = { ok: false, error };
        const j = judge(settled);
        if (!j.retry) throw error;
        return retryFrom(fn, context, settled, j);
      },
    );
  }

  // From a retryable outcome of attempt `retries`: decide, wait, try again, until it settles.
  async function retryFrom<T>(
    fn: PolicyFn<T>,
    context: ExecuteContext,
    first: Settled<T>,
    firstJudgement: RetryJudgement,
  ): Promise<T> {
    const signal = context.signal;
    let retries = 0;
    let previousMs = backoff.baseMs;
    let settled = first;
    let j = firstJudgement;
    for (;;) {
      const own = j.retry && retryAfter !== undefined ? retryAfter(settled) : undefined;
      const retryAfterMs = own ?? j.retryAfterMs;
      const backoffMs = j.retry ? backoffDelay(backoff, retries, previousMs, random()) : 0;
      const d = decide({
        retryable: j.retry,
        retries,
        maxRetries,
        backoffMs,
        retryAfterMs,
        now: clock.now(),
        deadline: context.deadline,
      });
      if (d.action === 'retry') {
        previousMs = backoffMs;
        retries++;
        onEvent?.({
          type: 'retry',
          key: context.key ?? '',
          attempt: retries,
          delayMs: d.delayMs,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          ...(j.reason === undefined ? {} : { reason: j.reason }),
        });
        await sleep(clock, d.delayMs, signal);
        if (signal?.aborted) throw signal.reason;
        try {
          settled = { ok: true, value: await invoke(fn, { ...context, attempt: retries }) };
        } catch (error) {
          settled = { ok: false, error };
        }
        j = settled.ok || !signal?.aborted ? judge(settled) : NO;
        continue;
      }
      if (d.action === 'give-up') {
        onEvent?.({
          type: 'give-up',
          key: context.key ?? '',
          attempts: retries + 1,
          reason: d.reason,
          ...(j.reason === undefined ? {} : { lastReason: j.reason }),
        });
        onGiveUp?.({
          context,
          attempts: retries + 1,
          reason: d.reason,
          last: settled,
          ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
        });
      }
      if (settled.ok) return settled.value;
      throw settled.error;
    }
  }
  return { execute, maxRetries, backoff };
}

const check = optionChecks((option, problem) => new InvalidRetryOptionError(option, problem));

function resolveBackoff(b: BackoffOptions): BackoffOptions {
  if (typeof b !== 'object' || b === null) throw new InvalidRetryOptionError('backoff', 'must be an object');
  if (b.kind !== 'full' && b.kind !== 'decorrelated')
    throw new InvalidRetryOptionError('backoff.kind', 'must be "full" or "decorrelated"');
  const baseMs = check.nonNegative('backoff.baseMs', b.baseMs);
  const capMs = check.nonNegative('backoff.capMs', b.capMs);
  if (capMs < baseMs) throw new InvalidRetryOptionError('backoff.capMs', 'must be >= baseMs');
  return { kind: b.kind, baseMs, capMs };
}
