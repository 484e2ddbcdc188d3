import type { CallOutcome, QuotaSignal, RetryJudgement, Settled } from '@rxgate/core';
import { type ClassifyOptions, classify } from './classify.js';
import type { HeaderInput } from './headers.js';
import type { Verdict } from './verdict.js';

/** How the adapters classify: {@link ClassifyOptions} with `now` read at each call. */
export interface AdapterOptions extends Omit<ClassifyOptions, 'now'> {
  /** Now in epoch milliseconds, read per answer (HTTP-dates, epoch resets). @default Date.now */
  readonly now?: () => number;
  /**
   * Whether a transport error happened before the request left (`not-sent`: retryable and
   * safe anywhere) or after (`sent`: it may have been processed). @default connect-phase
   * error codes (ECONNREFUSED, ENOTFOUND, EAI_AGAIN, UND_ERR_CONNECT_TIMEOUT) are `not-sent`
   */
  readonly phaseOf?: (error: unknown) => 'not-sent' | 'sent';
  /**
   * Let `retry` also retry a transient fault that may have been committed (a 500/502/504 or a
   * host error: `commit: 'maybe'`). Only safe when the vendor dedupes by an idempotency key
   * and every retry goes to the same node under the same key. @default false: only what was
   * not processed (429, 503, a refused connection) is retried
   */
  readonly retryMaybeCommitted?: boolean;
}

const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNRESET_BEFORE_SEND',
]);

function defaultPhase(error: unknown): 'not-sent' | 'sent' {
  for (
    let e = error, i = 0;
    typeof e === 'object' && e !== null && i < 4;
    e = (e as { cause?: unknown }).cause, i++
  ) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT.has(code)) return 'not-sent';
  }
  return 'sent';
}

/**
 * A response as an HTTP client hands it back: a `fetch` `Response` (`status`, `headers.get`)
 * or undici's `request()` result (`statusCode`, a header record). Anything else is undefined.
 */
function responseOf(result: unknown): { status: number; headers: HeaderInput } | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const r = result as { status?: unknown; statusCode?: unknown; headers?: unknown };
  const status = typeof r.statusCode === 'number' ? r.statusCode : r.status;
  if (typeof status !== 'number') return undefined;
  return { status, headers: r.headers as HeaderInput };
}

function isVerdict(v: unknown): v is Verdict {
  return typeof v === 'object' && v !== null && typeof (v as Verdict).kind === 'string' && 'commit' in v;
}

/**
 * The adapters from a classifier verdict to what the policies take, for a result that is a
 * response (judged by status and headers; the body is not read) or a verdict you made yourself
 * with `classify`:
 * - `breaker`: `classifyResult` and `classifyError` for `@rxgate/breaker` (spread them into its
 *   options), so a resolved 503 counts as a failure and a 429 is ignored;
 * - `quotaOf`: the quota signal for `@rxgate/ratelimit`'s `limiterPolicy({ quotaOf })`;
 * - `retry`: the judge for `@rxgate/retry`: retry a throttle or a transient fault, honour its
 *   `Retry-After`; by default only what was not processed (never a 500 or a timeout after the
 *   request left, which the vendor may have committed).
 */
export function classifierAdapters(options: AdapterOptions = {}): {
  verdictOf(settled: Settled): Verdict | undefined;
  readonly breaker: {
    readonly classifyResult: (result: unknown) => CallOutcome;
    readonly classifyError: (error: unknown) => CallOutcome;
  };
  quotaOf(result: unknown): QuotaSignal | undefined;
  retry(settled: Settled): RetryJudgement;
} {
  const { now = Date.now, phaseOf = defaultPhase, retryMaybeCommitted = false, ...rest } = options;
  const classifyOptions = (): ClassifyOptions => ({ ...rest, now: now() });
  const ofResult = (result: unknown): Verdict | undefined => {
    if (isVerdict(result)) return result;
    const r = responseOf(result);
    return r === undefined ? undefined : classify(r, classifyOptions());
  };
  const ofError = (error: unknown): Verdict | undefined => {
    if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
      return undefined;
    return classify({ error, phase: phaseOf(error) }, classifyOptions());
  };
  const verdictOf = (s: Settled): Verdict | undefined => (s.ok ? ofResult(s.value) : ofError(s.error));
  return {
    verdictOf,
    breaker: {
      classifyResult: (result) => ofResult(result)?.breaker ?? 'success',
      // Aborts are the caller's own doing: never the vendor's failure.
      classifyError: (error) => ofError(error)?.breaker ?? 'ignore',
    },
    quotaOf: (result) => ofResult(result)?.quota,
    retry(settled) {
      const v = verdictOf(settled);
      if (v === undefined) return { retry: false };
      const retry =
        (v.kind === 'throttled' || v.kind === 'transient') &&
        (v.commit === 'not-processed' || (retryMaybeCommitted && v.commit === 'maybe'));
      return v.retryAfterMs === undefined
        ? { retry, reason: v.reason }
        : { retry, retryAfterMs: v.retryAfterMs, reason: v.reason };
    },
  };
}
