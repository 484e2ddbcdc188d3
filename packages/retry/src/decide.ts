/** What the retry loop does after one attempt. */
export type Decision =
  | { readonly action: 'settle' }
  | { readonly action: 'retry'; readonly delayMs: number }
  | { readonly action: 'give-up'; readonly reason: GiveUpReason };

/**
 * Why a retryable call stopped being retried: `max-retries` (the last allowed attempt was
 * retryable too), `deadline` (the next attempt could not start before the context's deadline).
 */
export type GiveUpReason = 'max-retries' | 'deadline';

export interface DecideInput {
  /** Whether the judge called the attempt retryable. */
  readonly retryable: boolean;
  /** Retries done so far (0 after the first attempt). */
  readonly retries: number;
  readonly maxRetries: number;
  /** The jittered backoff for this retry. */
  readonly backoffMs: number;
  /** What the answer asked to wait, if it did. */
  readonly retryAfterMs: number | undefined;
  readonly now: number;
  /** Absolute, on the same clock; undefined for none. */
  readonly deadline: number | undefined;
}

/**
 * The retry decision, pure: settle what is not retryable; give up at the max or when the wait
 * (the longer of the backoff and Retry-After) would reach past the deadline; else wait and retry.
 */
export function decide(i: DecideInput): Decision {
  if (!i.retryable) return { action: 'settle' };
  if (i.retries >= i.maxRetries) return { action: 'give-up', reason: 'max-retries' };
  const delayMs = Math.max(i.backoffMs, i.retryAfterMs ?? 0);
  if (i.deadline !== undefined && i.now + delayMs >= i.deadline)
    return { action: 'give-up', reason: 'deadline' };
  return { action: 'retry', delayMs };
}
