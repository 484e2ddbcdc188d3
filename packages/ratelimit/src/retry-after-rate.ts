/** The cut from the second paused-again cut in a row on (see throttleCut). */
export const DESCENT_BETA = 0.85;

/**
 * After a bare throttle (a vendor that sends no quota headers), in `hold` mode: the rate to hold
 * just under (`wMax`), the rate to start again from (`cut`) and how long the climb from one to
 * the other takes (`climbMs`), given the rate the vendor refused (RateController's throttled
 * rate). A pure decision, tested as a table in retry-after-rate.test.ts.
 *
 * A throttle cuts to `beta` of the refused rate and climbs back in `recoverMs`. But when a
 * Retry-After paused us again before that climb was over, the climb is what failed: each
 * further throttle costs a whole pause (a second or more, rounded up to whole seconds, on a
 * vendor whose window may be a second: on a 1 s window of 20/s, 20 requests), while a climb
 * that stays a little under the vendor's rate costs a request or two a second. The climb back
 * from the cut then takes `holdMs`, so the rate spends that long between the cut and the
 * refused rate, where the vendor's rate is, instead of reaching the refused rate again within
 * seconds and being paused there. The caller passes the rate in force as the refused one then.
 *
 * Paused again a second time in a row, the rate in force is still well above the vendor's: a
 * limiter configured at twice a quota of 20/s, cut by a tenth a pause, took 6 to 8 whole-second
 * pauses to come down (a cycle of 2 to 3 s at p50 300 ms round trips, into the measured minute);
 * from the second such cut in a row the cut is to `DESCENT_BETA` of the refused rate (or `beta`,
 * if that is lower). Not from the first: a rate just above the vendor's is often paused again
 * once, and a deeper cut there leaves it well under the vendor's rate for the long climb.
 */
export function throttleCut(input: {
  /** The rate the vendor refused. */
  readonly refused: number;
  /** A Retry-After paused us again before the last climb was over. */
  readonly pausedAgain: boolean;
  /** Cuts in a row, this one included, each paused again before the last climb was over. */
  readonly pausedAgainInRow: number;
  readonly beta: number;
  readonly minRate: number;
  readonly recoverMs: number;
  readonly holdMs: number;
}): { readonly wMax: number; readonly cut: number; readonly climbMs: number } {
  const { refused, pausedAgain, pausedAgainInRow, beta, minRate, recoverMs, holdMs } = input;
  const share = pausedAgainInRow >= 2 ? Math.min(beta, DESCENT_BETA) : beta;
  return {
    wMax: refused,
    cut: Math.max(minRate, refused * share),
    climbMs: pausedAgain ? holdMs : recoverMs,
  };
}

/**
 * About how old an answer may be when it comes back (see bareThrottle's `lone`): round trips of
 * p50 300 ms have a p99 of 1.5 s.
 */
export const ANSWER_AGE_MS = 2000;

/** Each wall in a row pauses this much longer than the last (see bareThrottle). */
export const WALL_GROWTH = 1.5;

/**
 * What one throttle without quota headers and without Retry-After does, in `hold` mode (a
 * pure decision, tested as a table in retry-after-rate.test.ts):
 *
 * - `same`: it says nothing new. We are paused (the request went out before the pause), or the
 *   last cut is under a second old (the requests in flight when the limit was reached come
 *   back throttled together, and that is one event).
 * - `wall`: a second or more after the last cut, nothing went through since it. The vendor
 *   refuses everything whatever our rate: a window of a minute spent until its end, a
 *   vendor-wide outage. Cutting again each second would say the vendor's rate is nothing (a
 *   minute's wall of 600 per 60 s cut 20/s to the floor, where the slow probe up never got back
 *   from), so the rate stays and we wait: a pause, one request probes at its end, and each wall
 *   in a row pauses half as long again (1 s, 1.5 s, 2.25 s ...), capped at `maxPauseMs` (a
 *   slower growth than doubling: a sliding log frees its first request a window after our
 *   burst, and a pause that overshoots leaves a hole in its log that comes back every window).
 *   A vendor that threw a wall before is taken for one as soon as two requests sent since the
 *   cut came back refused and none went through, not a second later.
 * - `lone`: the first throttle since the last cut, during the climb back from it, a second or
 *   more after the cut but within `ANSWER_AGE_MS`, with answers through meanwhile: not a cut
 *   yet (nothing else either). With round trips of up to 1.5 s (p99), the answer of a request
 *   sent at the refused rate, before the cut, comes back more than a second after it and says
 *   the climbing rate was refused when it never was (20/s fixed window, p50 300 ms, 3x: a cut
 *   at 18.3/s from a request sent at 21.9/s 1.3 s before, after a second with nothing refused,
 *   then 30 s held at 16.8/s). The limiter cannot tell an answer's age (a vendor without
 *   headers has no lease counted), so it waits for another: the next throttle is no longer the
 *   first and cuts, as the one held back would have, a throttle later. A rate still too much
 *   is refused within the first second after its cut too (a descent from twice the quota:
 *   throttles all along) and is cut as before; so is a first throttle later than an answer's
 *   age (one sent after the cut: a bucket's, as the climb passes its rate).
 * - `cut`: otherwise, the rate in force was too much: a cut (throttleCut).
 */
export function bareThrottle(input: {
  /** Since the last cut (infinite if none). */
  readonly sinceCutMs: number;
  /** Answers that went through since the last cut. */
  readonly wentThroughSinceCut: number;
  /** The limiter is paused now. */
  readonly paused: boolean;
  /** Walls in a row so far (reset by a cut). */
  readonly walls: number;
  /** This vendor threw a wall before (nothing through for a second after a cut). */
  readonly wallsSeen: boolean;
  /** Throttled answers since the cut beyond the requests in flight at the cut. */
  readonly refusedSentSinceCut: number;
  readonly maxPauseMs: number;
  /** The climb back from the last cut is not over. */
  readonly climbing: boolean;
  /** Throttled answers since the last cut, this one not counted. */
  readonly throttledSinceCut: number;
}):
  | { readonly kind: 'same' }
  | { readonly kind: 'cut' }
  | { readonly kind: 'lone' }
  | { readonly kind: 'wall'; readonly pauseMs: number } {
  const { sinceCutMs, wentThroughSinceCut, paused, walls, maxPauseMs, wallsSeen, refusedSentSinceCut } =
    input;
  if (paused || !Number.isFinite(sinceCutMs) || wentThroughSinceCut > 0) {
    if (paused || sinceCutMs < 1000) return { kind: 'same' };
    // Maybe the answer of a request sent before the cut: a cut once another confirms it.
    if (input.climbing && input.throttledSinceCut === 0 && sinceCutMs < ANSWER_AGE_MS)
      return { kind: 'lone' };
    return { kind: 'cut' };
  }
  // Nothing through since the cut: a wall after a whole second, or sooner on a vendor whose
  // walls outlasted a second before, once the requests sent since the cut came back refused.
  const early = wallsSeen && refusedSentSinceCut >= 2;
  if (sinceCutMs >= 1000 || early)
    return { kind: 'wall', pauseMs: Math.min(maxPauseMs, 1000 * WALL_GROWTH ** Math.min(walls, 60)) };
  return { kind: 'same' };
}
