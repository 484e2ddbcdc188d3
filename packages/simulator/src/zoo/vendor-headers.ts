import type { QuotaReport } from './quota-models.js';

/**
 * How a vendor speaks about its quota: `x-ratelimit` (Limit, Remaining, and Reset in seconds
 * with millisecond precision), `ietf` (`RateLimit-Policy` and `RateLimit`, whole seconds as the
 * drafts write them), `remaining-only` (Limit and Remaining, no reset) or `none`.
 */
export type HeaderStyle = 'x-ratelimit' | 'ietf' | 'remaining-only' | 'none';

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
  } else if (style === 'ietf') {
    const { quota, windowSeconds } = report.policy;
    headers['ratelimit-policy'] = `"default";q=${quota};w=${Math.max(1, Math.round(windowSeconds))}`;
    headers.ratelimit = `"default";r=${remaining};t=${Math.ceil(report.resetMs / 1000 - 1e-9)}`;
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
