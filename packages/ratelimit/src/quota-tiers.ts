/**
 * A vendor may keep more than one quota at once: an API gateway's 20 a second and 600 a minute
 * (Kong's rate-limiting plugin, AWS API Gateway's rate and quota, an IETF `RateLimit-Policy`
 * with two policies). Most such gateways report, on each answer, the quota with the least left
 * (Kong's `RateLimit-Limit`/`-Remaining`/`-Reset`): the Limit said alternates between them, and
 * each comes with the resets of its own window. Read as one quota, the Limit said last paired
 * with the longest reset of any, a gateway of 20 a second and 600 a minute was paced at 20 per
 * 60 s, 0.94/s (9.5 % of its quota, every claim waiting dead-lettered), and one of 20 a second
 * and 100 per 10 s at 3.96/s (39.7 %).
 *
 * So each Limit said is a tier with a window of its own (the longest reset said with that Limit,
 * or the window it declares: `windowAfter` over its own answers), and the vendor allows the
 * least of the tiers' rates (`bindingTier`). A tier not said for `TIER_FORGET_MS` is dropped: a
 * vendor that changed its Limit keeps only the new one; and no more than `MAX_TIERS` are kept. A vendor that never says a Limit has one
 * tier (`limit` undefined), and a Limit said for the first time after it takes that tier's
 * window (the same quota, its Limit said at last). Pure decisions, tested as a table in
 * quota-tiers.test.ts.
 */
import { roundWindow } from './round-window.js';

/** One quota of the vendor's: its Limit (undefined: not said), its window so far (0: none), when last said. */
export interface QuotaTier {
  readonly limit: number | undefined;
  readonly windowMs: number;
  /** The window is the one the vendor declares (IETF `w`), not read from resets. */
  readonly declared: boolean;
  readonly seenAt: number;
}

/** How long a tier not said is kept (ms): longer than any window read as a rate (`maxPauseMs`' default). */
export const TIER_FORGET_MS = 600_000;

/** The most tiers kept (those said last): a vendor whose Limit moves on every answer keeps a few. */
export const MAX_TIERS = 8;

/** The tier an answer saying `limit` belongs to: the one with that Limit, or a new one. */
export function tierOf(tiers: readonly QuotaTier[], limit: number | undefined): QuotaTier {
  const same = tiers.find((t) => t.limit === limit);
  if (same !== undefined) return same;
  const unsaid = limit === undefined ? undefined : tiers.find((t) => t.limit === undefined);
  return { limit, windowMs: unsaid?.windowMs ?? 0, declared: unsaid?.declared ?? false, seenAt: Number.NaN };
}

/** The tiers after an answer said `tier` (its window as read after it) at `tier.seenAt`. */
export function tiersAfter(
  tiers: readonly QuotaTier[],
  tier: QuotaTier,
  forgetMs: number = TIER_FORGET_MS,
): QuotaTier[] {
  const out: QuotaTier[] = [];
  for (const t of tiers) {
    if (t.limit === tier.limit) continue;
    // The Limit said at last: the tier without one is that same quota.
    if (t.limit === undefined && tier.limit !== undefined) continue;
    if (t.seenAt < tier.seenAt - forgetMs) continue;
    out.push(t);
  }
  out.push(tier);
  if (out.length > MAX_TIERS) {
    out.sort((a, b) => a.seenAt - b.seenAt);
    out.splice(0, out.length - MAX_TIERS);
  }
  return out;
}

/** The tier whose rate (its limit over its window, rounded as vendors configure) is the least, of those with both. */
export function bindingTier(tiers: readonly QuotaTier[]): QuotaTier | undefined {
  let best: QuotaTier | undefined;
  let bestRate = Number.POSITIVE_INFINITY;
  for (const t of tiers) {
    if (t.limit === undefined || !(t.windowMs > 0)) continue;
    const rate = t.limit / roundWindow(t.windowMs);
    if (rate < bestRate) {
      best = t;
      bestRate = rate;
    }
  }
  return best;
}
