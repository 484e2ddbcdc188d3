import type { HeaderReader } from './headers.js';

/**
 * Windows gateways declare outside the IETF `RateLimit-Policy` field. A gateway that keeps
 * more than one quota (20 a second and 600 a minute) reports, in its Limit/Remaining/Reset
 * headers, the one with the least left; a limiter that knows which window each Limit is per
 * paces at the lesser of their rates from the first answer that says it, instead of reading
 * each window from resets it only sees late in the window.
 */

/** A quota a gateway reports with its window: what it allows per `windowSeconds`, and what is left. */
export interface UnitQuota {
  readonly limit: number;
  readonly remaining: number | undefined;
  readonly windowSeconds: number;
}

const DECIMAL = /^\s*(\d+(?:\.\d+)?)\s*$/;

function decimal(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const m = DECIMAL.exec(v);
  if (m === null) return undefined;
  const x = Number(m[1]);
  return Number.isFinite(x) ? x : undefined;
}

/**
 * Kong's rate-limiting plugin: `X-RateLimit-Limit-Second: 20`, `X-RateLimit-Remaining-Second: 12`,
 * and so on for each unit it is configured with (second, minute, hour, day, month, year; a month
 * and a year read as 30 and 365 days, longer than any window a limiter reads as a rate anyway).
 * Every unit configured is on every answer; `RateLimit-Limit`/`-Remaining`/`-Reset` say the one
 * with the least left.
 */
export const KONG_UNITS: ReadonlyArray<readonly [string, number]> = [
  ['second', 1],
  ['minute', 60],
  ['hour', 3600],
  ['day', 86_400],
  ['month', 30 * 86_400],
  ['year', 365 * 86_400],
];

/**
 * The quotas a Kong gateway says on this answer, one per unit (none when it says none), and one
 * per window its rate-limiting-advanced plugin names by its length in seconds
 * (`X-RateLimit-Limit-10`, `X-RateLimit-Remaining-10`).
 */
export function kongQuotas(h: HeaderReader): UnitQuota[] {
  const out: UnitQuota[] = [];
  const add = (suffix: string, windowSeconds: number): void => {
    const limit = decimal(h(`x-ratelimit-limit-${suffix}`));
    if (limit === undefined || limit <= 0 || !(windowSeconds > 0)) return;
    const remaining = decimal(h(`x-ratelimit-remaining-${suffix}`));
    out.push({
      limit,
      remaining: remaining === undefined ? undefined : Math.min(remaining, limit),
      windowSeconds,
    });
  };
  for (const [unit, windowSeconds] of KONG_UNITS) add(unit, windowSeconds);
  for (const name of h.limitsBySeconds()) {
    const suffix = name.slice('x-ratelimit-limit-'.length);
    add(suffix, Number(suffix));
  }
  return out;
}

/**
 * The window a Limit header in the list form of the early IETF drafts (and Envoy's rate limit
 * service) declares: `RateLimit-Limit: 10, 10;w=1, 600;w=60` (`window=` in the earliest) is the
 * limit in force, then the quota policies; the window is that of the policy whose quota is the
 * limit in force (of two, the longer: the lesser rate). Undefined when the value has no such
 * policy.
 */
export function listedWindow(value: string | undefined, limit: number | undefined): number | undefined {
  if (value === undefined || limit === undefined || !value.includes(';')) return undefined;
  const items = value.split(',');
  let longest: number | undefined;
  for (let i = 1; i < items.length; i++) {
    const [quota, ...params] = items[i]!.split(';');
    if (decimal(quota) !== limit) continue;
    for (const p of params) {
      const eq = p.indexOf('=');
      if (eq < 0) continue;
      const key = p.slice(0, eq).trim().toLowerCase();
      if (key !== 'w' && key !== 'window') continue;
      const w = decimal(p.slice(eq + 1));
      if (w !== undefined && w > 0 && (longest === undefined || w > longest)) longest = w;
    }
  }
  return longest;
}

/**
 * The window of the quota a gateway reported (`limit`, `remaining`), by the quotas it declares
 * per unit: the one with that limit and what is left (of several alike, the longest window: the
 * lesser rate). Undefined when none matches.
 */
export function windowOfReported(
  quotas: readonly UnitQuota[],
  limit: number | undefined,
  remaining: number | undefined,
): number | undefined {
  let best: number | undefined;
  for (const q of quotas) {
    if (q.limit !== limit) continue;
    if (remaining !== undefined && q.remaining !== undefined && q.remaining !== remaining) continue;
    if (best === undefined || q.windowSeconds > best) best = q.windowSeconds;
  }
  return best;
}
