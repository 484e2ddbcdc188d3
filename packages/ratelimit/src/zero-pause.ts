/**
 * Where a `Remaining: 0` pause of a vendor taken for a fixed window ends. A pure decision, tested
 * as a table in zero-pause.test.ts.
 *
 * The pause ends where the answers bound the window to have ended (WindowEnd), late by the
 * shortest return trip among them. For a window aligned on the clock that costs little: the
 * next window's quota still fits in what is left of it. But many gateways keep a counter with
 * an expiry (`INCR` then `EXPIRE`, as rate-limiter-flexible's Redis store does): a window
 * starts at the first request after the last one ended, so a pause that ends late starts every
 * window that late, and at round trips of p50 120 ms it cost 3.7 % of the quota (a 20/s counter
 * with X-RateLimit: 96.3 %).
 *
 * When the window's first request was ours and nobody else's came between it and the answered
 * one, the window began with our request, so it ends a window after that one arrives; and a
 * request is admitted by any model that counts `limit` per window of `windowMs` (aligned,
 * expiring, or a sliding log) once our last `limit` admissions span a window. So the pause ends
 * a window after the later of that first one and our `limit`-th last admission. The evidence:
 * an answer said our request was its window's first (`Remaining: limit − 1`), and from it to the
 * answered one we admitted what the vendor says it counted, no more, no less, and both answers
 * bound the same window end (one of ours before it, in the window before, and another client's
 * in this one would otherwise count the same).
 * The window is stretched by the pace's own share under the vendor's rate (a paced `limit + 1`
 * span that much more), the jitter margin the pace already keeps.
 */
export interface ZeroPauseInput {
  readonly now: number;
  /** Where the pause ends otherwise: the window's end as its answers bound it. */
  readonly boundEnd: number;
  /** The vendor's limit per window, and the window, ms. */
  readonly limit: number;
  readonly windowMs: number;
  /** The share of the vendor's rate the pace aims at, in (0, 1]. */
  readonly share: number;
  /** What the vendor had counted in the window when it answered: its limit less Remaining. */
  readonly counted: number;
  /** When the last request an answer called its window's first was admitted. */
  readonly firstAt: number;
  /** Whether that first one's answer and the answered one bound the same window end (sameWindowEnd). */
  readonly sameWindow: boolean;
  /** Our admissions from that first one to the answered one, both included; undefined when not known. */
  readonly firstToAnswered: number | undefined;
  /** When our `limit`-th last admission was made; undefined when fewer are known. */
  readonly limitthLast: number | undefined;
}

/** When the pause ends: the bound, or earlier when the window was ours from its first request (see above). */
export function zeroPauseEnd(i: ZeroPauseInput): number {
  const ours = i.sameWindow && i.firstToAnswered !== undefined && i.firstToAnswered === i.counted;
  if (!ours || i.limitthLast === undefined) return i.boundEnd;
  return Math.max(i.now, Math.min(i.boundEnd, Math.max(i.limitthLast, i.firstAt) + i.windowMs / i.share));
}
