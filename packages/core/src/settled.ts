/** How one attempt of a call ended: what `fn` resolved with, or what it threw. */
export type Settled<T = unknown> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: unknown };

/**
 * What a judge (`@rxgate/classifier`'s `retryJudge`, or your own function) says of one attempt
 * for a retry policy: retry or not, and how long the server asked to wait.
 */
export interface RetryJudgement {
  readonly retry: boolean;
  /** Milliseconds the answer asked to wait (its `Retry-After`). The retry waits at least this. */
  readonly retryAfterMs?: number;
  /** A short, PHI-free reason for events (`http-429`, `http-503`). */
  readonly reason?: string;
}
