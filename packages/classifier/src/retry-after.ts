export interface RetryAfterOptions {
  /** Now on the caller's clock, in epoch milliseconds (needed for an HTTP-date). */
  readonly now: number;
  /**
   * The response's `Date` header. When given, an HTTP-date is measured against the server's
   * own clock, so skew between the two clocks does not shorten or stretch the wait by more
   * than the second the `Date` leaves out (see dateWait).
   */
  readonly date?: string | undefined;
}

const DELAY = /^\s*(\d{1,10})(?:\.\d+)?\s*$/;
const MAX_MS = 7 * 24 * 3600 * 1000;

/**
 * `Retry-After` in milliseconds from now: delay-seconds or an HTTP-date. Malformed, negative
 * or absurd (over a week) values give undefined; never throws.
 */
export function parseRetryAfter(value: unknown, options: RetryAfterOptions): number | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return undefined;
  // Blanks may lead either form (a field value's optional whitespace): the first other
  // character tells a delay from a date.
  const c = value.charCodeAt(value.length - value.trimStart().length);
  if (c >= 48 && c <= 57) {
    const seconds = DELAY.exec(value);
    if (seconds === null) return undefined;
    const ms = Number(seconds[1]) * 1000;
    return ms <= MAX_MS ? ms : undefined;
  }
  const at = parseHttpDate(value);
  if (at === undefined) return undefined;
  const serverNow = options.date === undefined ? undefined : parseHttpDate(options.date);
  const local = at - options.now;
  if (serverNow === undefined && !Number.isFinite(local)) return undefined;
  const ms = Math.max(0, serverNow === undefined ? local : dateWait(at - serverNow, local));
  return ms <= MAX_MS ? ms : undefined;
}

/**
 * The wait an HTTP-date asks for, given the response's `Date`: `byDate` (the Retry-After date
 * less the `Date`) and `local` (the date less our now). A `Date` has whole seconds, cut down: the
 * server's clock stood up to a second past it, so the wait it meant lies within a second under
 * `byDate`. Where our clock agrees (`local` in that second), ours says where; outside it, the
 * nearer end. Measured from the `Date` alone, every HTTP-date waited up to a second more than
 * asked: a 1 s sliding log that sends `Retry-After: <now + 1 s, rounded up>` was paused 2 s at
 * each throttle (the ratelimit zoo's sliding log without quota headers, 503 with an HTTP-date:
 * 86.8-93.8 % of the quota, 95.1-96.2 % since). A clock of ours a second or more off the
 * server's waits at most a second less than the `Date` alone says: one throttle more.
 * Tested as a table (retry-after.test.ts).
 */
export function dateWait(byDate: number, local: number): number {
  if (!Number.isFinite(local)) return byDate;
  return Math.min(byDate, Math.max(byDate - 1000, local));
}

// IMF-fixdate (RFC 9110), plus the obsolete RFC 850 and asctime forms it says to accept.
const IMF =
  /^\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT\s*$/;
const RFC850 =
  /^\s*(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT\s*$/;
const ASCTIME =
  /^\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\s*$/;

/** Epoch milliseconds of an HTTP-date, or undefined. */
export function parseHttpDate(value: string): number | undefined {
  if (!IMF.test(value) && !RFC850.test(value) && !ASCTIME.test(value)) return undefined;
  const t = Date.parse(ASCTIME.test(value) ? `${value.trim()} GMT` : value);
  return Number.isFinite(t) ? t : undefined;
}
