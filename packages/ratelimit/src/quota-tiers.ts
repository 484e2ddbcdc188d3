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
 * least of the rates of the tiers in force (`bindingTier`). A Limit within NEAR_LIMIT_SHARE of a
 * tier's is that tier, its Limit moved. A tier goes when it cannot be in force any more: not said
 * for two of its windows (`tierLive`), not said for TIER_FORGET_MS, another Limit declared over
 * the same window, an answer of a quota with more left than its Limit (`tiersAfterRemaining`), or
 * a declaration of every quota that leaves it out (`tiersDeclared`); and no more than MAX_TIERS
 * are kept. A vendor that never says a Limit has one tier (`limit` undefined), and a Limit said
 * for the first time after it takes that tier's window (the same quota, its Limit said at last).
 * Pure decisions, tested as a table in quota-tiers.test.ts.
 */
import { roundWindow } from './round-window.js';
import { windowAfter } from './vendor-window.js';

/** One quota of the vendor's: its Limit now (undefined: not said), its window so far (0: none), when last said. */
export interface QuotaTier {
  readonly limit: number | undefined;
  /** The Limit it was first said with: what the limiter keeps per tier is keyed by it. */
  readonly key: number | undefined;
  readonly windowMs: number;
  /** The window is the one the vendor declares (IETF `w`), not read from resets. */
  readonly declared: boolean;
  readonly seenAt: number;
}

/** How long a tier not said is kept (ms): longer than any window read as a rate (`maxPauseMs`' default). */
export const TIER_FORGET_MS = 600_000;

/** The most tiers kept (those said last). */
export const MAX_TIERS = 8;

/**
 * How near a Limit must be to a tier's to be that tier, its Limit moved: a Limit that moves a
 * little (90-110 per 10 s) is one quota. Read as a tier each, every value's window came from a
 * few resets, read short (3.1-3.8 % throttled); and the least of them bound (90.5 %).
 */
export const NEAR_LIMIT_SHARE = 0.1;

/** Whether two Limits said are one quota (see NEAR_LIMIT_SHARE). */
export function sameQuota(a: number | undefined, b: number | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return Math.abs(a - b) <= NEAR_LIMIT_SHARE * Math.max(a, b);
}

/**
 * The tier an answer saying `limit` belongs to: the one with that Limit, or the nearest one of
 * the same quota (its Limit now `limit`; where the answer declares a window, one not declared
 * over another), or a new one (from the window of the quota whose Limit was not said, if any).
 */
export function tierOf(
  tiers: readonly QuotaTier[],
  limit: number | undefined,
  declaredMs?: number,
): QuotaTier {
  let near: QuotaTier | undefined;
  for (const t of tiers) {
    if (t.limit === limit) return t;
    if (limit === undefined || t.limit === undefined || !sameQuota(t.limit, limit)) continue;
    if (declaredMs !== undefined && t.declared && t.windowMs !== declaredMs) continue;
    if (near === undefined || Math.abs(t.limit - limit) < Math.abs((near.limit as number) - limit)) near = t;
  }
  if (near !== undefined) return { ...near, limit };
  const unsaid = limit === undefined ? undefined : tiers.find((t) => t.limit === undefined);
  return {
    limit,
    key: limit,
    windowMs: unsaid?.windowMs ?? 0,
    declared: unsaid?.declared ?? false,
    seenAt: Number.NaN,
  };
}

/**
 * The tiers after an answer said `tier` (its window as read after it) at `tier.seenAt`: each
 * other kept unless not said for `forgetMs`, or declared over the same window; the MAX_TIERS said
 * last.
 */
export function tiersAfter(
  tiers: readonly QuotaTier[],
  tier: QuotaTier,
  forgetMs: number = TIER_FORGET_MS,
): QuotaTier[] {
  const out: QuotaTier[] = [];
  for (const t of tiers) {
    if (t.key === tier.key) continue;
    // The Limit said at last: the tier without one is that same quota.
    if (t.limit === undefined && tier.limit !== undefined) continue;
    if (t.seenAt < tier.seenAt - forgetMs) continue;
    // Another Limit declared over the same window is that quota changed: a gateway that reports
    // the quota with the least left never reports the larger of two over one window. (Not for
    // windows read from resets: a minute's, read from its last second, reads as a second's.)
    if (t.declared && tier.declared && t.windowMs === tier.windowMs) continue;
    out.push(t);
  }
  out.push(tier);
  if (out.length > MAX_TIERS) {
    out.sort((a, b) => a.seenAt - b.seenAt);
    out.splice(0, out.length - MAX_TIERS);
  }
  return out;
}

/**
 * The tiers after an answer of the quota `key` that went through with `remaining` left, from a
 * gateway that reports the quota with the least left: every other whose Limit is under that
 * cannot be in force (it would have less left, and be the one reported). A Limit raised from 600
 * to 1200 a minute, the 600 kept as a tier until it was not said for two minutes, held the vendor
 * at half its new quota that long (90.6 % over 12 minutes). Declared windows are left alone: the
 * classifier reports, of IETF policies, the most restrictive by rate, not the one with least left.
 */
export function tiersAfterRemaining(
  tiers: readonly QuotaTier[],
  key: number | undefined,
  remaining: number,
): QuotaTier[] {
  return tiers.filter((t) => t.key === key || t.declared || t.limit === undefined || t.limit >= remaining);
}

/**
 * The tiers after an answer that declares every quota the vendor keeps (`QuotaSignal.quotas`,
 * with the one it reports, by their Limits now): the others are quotas it no longer keeps (a
 * Limit raised from 600 to 1200 a minute, kept as a tier, held the vendor at 57.7 % of its new
 * quota).
 */
export function tiersDeclared(
  tiers: readonly QuotaTier[],
  limits: ReadonlySet<number | undefined>,
): QuotaTier[] {
  return tiers.filter((t) => limits.has(t.limit));
}

/**
 * The tiers after an answer that declares quotas (`QuotaSignal.quotas`) besides the one it
 * reports (`reported`, its tier already read): a tier each, its window as declared (the longest,
 * where one Limit is declared over two), before it is ever the one reported; and none that it
 * leaves out (tiersDeclared). Declarations without a positive Limit and window are passed over.
 */
export function tiersWithDeclared(
  tiers: readonly QuotaTier[],
  quotas: readonly { readonly limit: number; readonly windowSeconds: number }[],
  reported: number | undefined,
  now: number,
  maxPauseMs: number,
): QuotaTier[] {
  const windows = new Map<number, number>();
  for (const q of quotas)
    if (
      q.limit > 0 &&
      q.limit !== reported &&
      q.windowSeconds > 0 &&
      Number.isFinite(q.limit * q.windowSeconds)
    )
      windows.set(q.limit, Math.max(windows.get(q.limit) ?? 0, q.windowSeconds * 1000));
  let out: QuotaTier[] = [...tiers];
  for (const [limit, declaredMs] of windows) {
    const known = tierOf(out, limit, declaredMs);
    const window = windowAfter({
      windowMs: known.windowMs,
      declared: known.declared,
      declaredMs,
      maxPauseMs,
    });
    out = tiersAfter(out, { limit, key: known.key, ...window, seenAt: now });
  }
  return tiersDeclared(out, new Set<number | undefined>([reported, ...windows.keys()]));
}

/**
 * Whether a tier is still in force at `now`: said within two of its windows (and 2 s). A gateway
 * reports a quota that binds at least once a window, when it is the one with the least left; a
 * Limit not said for longer was changed (a 429 storm that lowered it to a quarter for a while,
 * kept as a tier for 10 minutes, held the vendor at a quarter of its restored quota: half the
 * claims of the simulator's 429-storm dead-lettered). One that does not bind is not needed.
 */
export function tierLive(tier: QuotaTier, now: number): boolean {
  return now - tier.seenAt <= Math.max(2 * roundWindow(tier.windowMs), LIVE_MIN_MS);
}

/** The least time a tier not said stays in force (see tierLive). */
export const LIVE_MIN_MS = 2000;

/**
 * The tier whose rate (its limit over its window, rounded as vendors configure) is the least, of
 * those in force at `now` with both.
 */
export function bindingTier(tiers: readonly QuotaTier[], now: number): QuotaTier | undefined {
  let best: QuotaTier | undefined;
  let bestRate = Number.POSITIVE_INFINITY;
  for (const t of tiers) {
    if (t.limit === undefined || !(t.windowMs > 0) || !tierLive(t, now)) continue;
    const rate = t.limit / roundWindow(t.windowMs);
    if (rate < bestRate) {
      best = t;
      bestRate = rate;
    }
  }
  return best;
}
