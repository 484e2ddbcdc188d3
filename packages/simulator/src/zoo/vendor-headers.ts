import type { QuotaReport } from './quota-models.js';

/**
 * How a vendor speaks about its quota: `x-ratelimit` (Limit, Remaining, and Reset in seconds
 * with millisecond precision), `ietf` (`RateLimit-Policy` and `RateLimit`, whole seconds as the
 * drafts write them; a policy per quota where it keeps several), `remaining-only` (Limit and
 * Remaining, no reset) or `none`. `kong` (held out of the zoo's table, for vendors with several
 * quotas): Kong's rate-limiting plugin, `X-RateLimit-Limit-Second`/`-Remaining-Second` and so on
 * for each quota (`-Minute`, or the window's seconds as its rate-limiting-advanced plugin
 * writes them), and `RateLimit-Limit`/`-Remaining`/`-Reset` (whole seconds) for the one with the
 * least left.
 */
export type HeaderStyle = 'x-ratelimit' | 'ietf' | 'remaining-only' | 'none' | 'kong';

// Kong's name for a window: its unit, or its length in seconds.
const KONG_UNITS: Readonly<Record<number, string>> = {
  1: 'second',
  60: 'minute',
  3600: 'hour',
  86400: 'day',
};

/**
 * How it throttles: a 429 without `Retry-After`, a 429 with `Retry-After` in seconds, or a 503
 * with `Retry-After` as an HTTP-date and a remaining quota of 0 (a 503 used as a throttle).
 */
export type ThrottleStyle = '429' | '429-seconds' | '503-date';

export const HEADER_STYLES: readonly HeaderStyle[] = ['x-ratelimit', 'ietf', 'remaining-only', 'none'];

/** The throttle styles tried with a header style: a vendor without headers may also send no Retry-After. */
export function throttleStylesOf(style: HeaderStyle): readonly ThrottleStyle[] {
  return style === 'none' ? ['429', '429-seconds', '503-date'] : ['429-seconds', '503-date'];
}

/** The status and headers of one answer: 200 when admitted, the throttle otherwise. */
export function answerOf(
  admitted: boolean,
  report: QuotaReport,
  style: HeaderStyle,
  throttle: ThrottleStyle,
  now: number,
): { status: number; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  const remaining = admitted ? report.remaining : 0;
  if (style === 'x-ratelimit' || style === 'remaining-only') {
    headers['x-ratelimit-limit'] = String(report.limit);
    headers['x-ratelimit-remaining'] = String(remaining);
    if (style === 'x-ratelimit') headers['x-ratelimit-reset'] = (report.resetMs / 1000).toFixed(3);
  } else if (style === 'ietf' && report.tiers !== undefined) {
    const w = (s: number) => Math.max(1, Math.round(s));
    headers['ratelimit-policy'] = report.tiers
      .map((t, i) => `"q${i}";q=${t.limit};w=${w(t.windowSeconds)}`)
      .join(', ');
    headers.ratelimit = report.tiers
      .map((t, i) => `"q${i}";r=${t.remaining};t=${Math.ceil(t.resetMs / 1000 - 1e-9)}`)
      .join(', ');
  } else if (style === 'ietf') {
    const { quota, windowSeconds } = report.policy;
    headers['ratelimit-policy'] = `"default";q=${quota};w=${Math.max(1, Math.round(windowSeconds))}`;
    headers.ratelimit = `"default";r=${remaining};t=${Math.ceil(report.resetMs / 1000 - 1e-9)}`;
  } else if (style === 'kong') {
    for (const t of report.tiers ?? [{ ...report, windowSeconds: report.policy.windowSeconds }]) {
      const unit = KONG_UNITS[t.windowSeconds] ?? String(t.windowSeconds);
      headers[`x-ratelimit-limit-${unit}`] = String(t.limit);
      headers[`x-ratelimit-remaining-${unit}`] = String(t.remaining);
    }
    headers['ratelimit-limit'] = String(report.limit);
    headers['ratelimit-remaining'] = String(remaining);
    headers['ratelimit-reset'] = String(Math.max(1, Math.ceil(report.resetMs / 1000 - 1e-9)));
  }
  if (admitted) return { status: 200, headers };
  if (throttle === '429') return { status: 429, headers };
  if (throttle === '429-seconds') {
    headers['retry-after'] = String(Math.max(1, Math.ceil(report.retryAfterMs / 1000)));
    return { status: 429, headers };
  }
  // An HTTP-date has whole seconds: the vendor rounds its retry time up to the next one.
  headers.date = new Date(Math.floor(now / 1000) * 1000).toUTCString();
  headers['retry-after'] = new Date(Math.ceil((now + report.retryAfterMs) / 1000) * 1000).toUTCString();
  // Without it the contract does not read a 503 as a throttle.
  headers['x-ratelimit-remaining'] = '0';
  return { status: 503, headers };
}
