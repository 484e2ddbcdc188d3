/** A quota a vendor declares: `limit` requests per `windowSeconds`. */
export interface DeclaredQuota {
  readonly limit: number;
  readonly windowSeconds: number;
}

/**
 * What a vendor said about its quota on one answer. Parsing headers into this shape is
 * `@rxgate/classifier`'s job (`parseQuota`, a verdict's `quota`); `@rxgate/ratelimit`'s
 * `observe()` acts on it. Every field is optional: a vendor may say only some of it.
 */
export interface QuotaSignal {
  /** Requests allowed in the vendor's current window. */
  readonly limit?: number;
  /** Requests left in the vendor's current window. */
  readonly remaining?: number;
  /** Seconds until the vendor's window resets. */
  readonly resetSeconds?: number;
  /**
   * The length of the vendor's window in seconds, when it declares one (the IETF
   * `RateLimit-Policy` `w` of the policy reported): its limit is per this long. A limiter
   * then need not read the window from how the resets move.
   */
  readonly windowSeconds?: number;
  /**
   * Every quota the vendor declares on this answer with its window, where it keeps several at
   * once and says each (Kong's `X-RateLimit-Limit-Second`, `-Minute`, …), the reported one
   * (`limit`) among them. A limiter paces at the least of their rates from the first answer,
   * rather than learning a quota only once it is the one with the least left.
   */
  readonly quotas?: readonly DeclaredQuota[];
  /** Milliseconds the vendor asked us to wait (from `Retry-After`). */
  readonly retryAfterMs?: number;
  /** The answer was a throttle (429, or a 503 used as one). */
  readonly throttled?: boolean;
  /**
   * The name of the IETF policy (`RateLimit-Policy`) the signal comes from, when the vendor
   * names its quotas: a quota it keeps per payer can then be fed to that payer's level only.
   * The limiter does not read it.
   */
  readonly policy?: string;
  /**
   * Milliseconds from when the limiter admitted the request this answer belongs to (its lease)
   * to the answer, measured on the limiter's clock (the router reads the clock it was given,
   * which should be the limiter's). The vendor counted the request and measured its reset
   * within that time: what the limiter admitted since is not in this answer's `remaining` yet,
   * and a reset taken less half the time from send to answer (as the router takes it) is good
   * to half of this either way, so a limiter bounds a fixed window's end by several answers.
   */
  readonly roundTripMs?: number;
}

/**
 * A signal as a limiter should read it once its answer is in: the reset less half the time
 * from send to answer (the vendor measured it somewhere in between, as NTP assumes; never
 * below 0), and `roundTripMs`, from the limiter's admission of the request to the answer. The
 * router and the simulator's vendor zoo both hand signals on through this.
 */
export function signalAsAnswered(
  signal: QuotaSignal,
  sendToAnswerMs: number,
  roundTripMs: number,
): QuotaSignal {
  return signal.resetSeconds !== undefined && sendToAnswerMs > 0
    ? { ...signal, resetSeconds: Math.max(0, signal.resetSeconds - sendToAnswerMs / 2000), roundTripMs }
    : { ...signal, roundTripMs };
}
