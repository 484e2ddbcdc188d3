/**
 * The window of a fixed-window vendor that reports Remaining but no reset, read from the times
 * Remaining came back up (its resets, as the answers show them). A pure decision, tested as a
 * table in reset-period.test.ts.
 *
 * Answers come back out of order when round trips vary: an answer from the old window that
 * arrives after the first answers of the new one makes Remaining fall and rise again, a second
 * "reset" a few hundred ms after the true one. So consecutive intervals do not agree, and an
 * estimate from them is thrown off. What holds is the phase: true and spurious resets alike
 * come a round trip or so after a multiple of the window. The times are folded onto each
 * window vendors configure; the window is the longest one on which they cluster (the mean
 * resultant length of their phases is at least `coherence`). A window's divisors fold the same
 * times into one cluster as well, hence the longest; a multiple of it splits them into several.
 * Times that follow no window (a sliding log's Remaining moving with our own traffic) spread
 * their phases and give none. Where round trips are steady, four resets whose intervals agree
 * say it sooner (`windowFromIntervals`, the rule before).
 */
export function windowFromResets(
  /** Times Remaining came back up (ms), oldest first. */
  times: readonly number[],
  /** The windows vendors configure (ms), any order. */
  windows: readonly number[],
  options: {
    /** Least number of resets read. @default 6 */
    readonly minResets?: number;
    /** Least number of windows the resets must span. @default 4 */
    readonly minCycles?: number;
    /** Least mean resultant length of the phases. @default 0.75 */
    readonly coherence?: number;
    /**
     * The shortest window the resets can be: one gives back what was spent in it, so a window in
     * which we could not have spent what came back is not theirs. @default 0
     */
    readonly minWindowMs?: number;
    /**
     * The longest window the resets can be: a fixed window takes at most twice its limit in any
     * span of its length, so a window over which the vendor was seen to take far more is not
     * theirs. @default Infinity
     */
    readonly maxWindowMs?: number;
    /**
     * With each reset, the time since the answer read before it (ms), where the reset lies: one
     * whose gap is half a window or more says nothing of its phase on that window. @default none
     */
    readonly gaps?: readonly number[];
  } = {},
): number | undefined {
  const minResets = options.minResets ?? 6;
  const minCycles = options.minCycles ?? 4;
  const coherence = options.coherence ?? 0.75;
  const minWindowMs = options.minWindowMs ?? 0;
  const maxWindowMs = options.maxWindowMs ?? Number.POSITIVE_INFINITY;
  const allowed = windows.filter((w) => w >= minWindowMs && w <= maxWindowMs);
  const agreed = windowFromIntervals(times, allowed);
  if (agreed !== undefined || times.length < minResets) return agreed;
  const gaps = options.gaps;
  let best: number | undefined;
  for (const w of allowed) {
    if (best !== undefined && w <= best) continue;
    const located = gaps === undefined ? times : times.filter((_, i) => gaps[i]! < w / 2);
    if (located.length < minResets) continue;
    const span = located[located.length - 1]! - located[0]!;
    if (span < minCycles * w) continue;
    if (phaseCoherence(located, w) >= coherence && coversCycles(located, w, minCycles)) best = w;
  }
  return best;
}

/**
 * The shortest window resets can be: a reset gives back what went in its window, so one that
 * gave back `rise` while we sent `perSecond` is of a window at least half as long as sending
 * that took (half: answers come back out of order, and some of it was still on its way). The
 * median over the resets: answers out of order make resets of their own, some with small rises.
 * Before, the least rise that counts as a reset (a quarter of the limit) at our pace at the last
 * one: a fixed window of 20 a second, round trips of p50 300 ms and p99 1.5 s, showed seven
 * resets in 5 s, four in phase on 250 ms, each having given back 5-17 at 4-13/s (373 ms at
 * least, the median); under a floor of 194 ms they read as 20 per 250 ms, paced at 79.2/s,
 * halved thrice by throttles (held-out zoo, seed 2, 3x: 93.8 %, now 99.0 %). Tested as a table.
 */
export function shortestResetWindowMs(
  resets: readonly { readonly rise: number; readonly perSecond: number }[],
): number {
  const floors = resets
    .map(({ rise, perSecond }) => (perSecond > 0 ? (500 * rise) / perSecond : 0))
    .sort((a, b) => a - b);
  const n = floors.length;
  if (n === 0) return 0;
  const mid = n >> 1;
  return n % 2 === 1 ? floors[mid]! : (floors[mid - 1]! + floors[mid]!) / 2;
}

/**
 * The last four resets, when their three intervals agree within 15 % and their mean lies within
 * 10 % of a window vendors configure: that window. Quick where round trips are steady; where they
 * vary, the phases (above) say it.
 */
export function windowFromIntervals(
  times: readonly number[],
  windows: readonly number[],
): number | undefined {
  const n = times.length;
  if (n < 4 || windows.length === 0) return undefined;
  const last = times.slice(n - 4);
  const mean = (last[3]! - last[0]!) / 3;
  for (let i = 1; i < 4; i++) if (Math.abs(last[i]! - last[i - 1]! - mean) > 0.15 * mean) return undefined;
  let round = windows[0]!;
  for (const w of windows) if (Math.abs(w - mean) < Math.abs(round - mean)) round = w;
  return Math.abs(round - mean) <= 0.1 * mean ? round : undefined;
}

/** The times' phases on a period of `w` summed as unit vectors (cosines, sines). */
function phaseSums(times: readonly number[], w: number): { readonly c: number; readonly s: number } {
  let c = 0;
  let s = 0;
  for (const t of times) {
    const a = (2 * Math.PI * (t % w)) / w;
    c += Math.cos(a);
    s += Math.sin(a);
  }
  return { c, s };
}

/** The mean resultant length of the times' phases on a period of `w`: 1 all at one phase, near 0 spread. */
export function phaseCoherence(times: readonly number[], w: number): number {
  const { c, s } = phaseSums(times, w);
  return Math.hypot(c, s) / times.length;
}

// The resets fall in at least `n` distinct windows: one window's burst of spurious resets is
// not a period. Cycles are counted around the resets' mean phase, not from multiples of `w`:
// resets timed either side of a multiple (half way between two sends errs both ways) fell in one
// cycle, and a window whose resets spanned four cycles was refused while its half passed (1 s
// read as 500 ms).
function coversCycles(times: readonly number[], w: number, n: number): boolean {
  const { c, s } = phaseSums(times, w);
  const phase = ((Math.atan2(s, c) / (2 * Math.PI)) * w + w) % w;
  const seen = new Set<number>();
  for (const t of times) seen.add(Math.floor((t - phase + w / 2) / w));
  return seen.size >= n;
}
