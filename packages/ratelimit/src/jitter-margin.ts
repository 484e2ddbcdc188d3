/** Each throttle at a pace under the vendor's rate takes this much more off the share aimed at. */
export const MARGIN_STEP = 0.01;

/** The share aimed at never goes below this on account of jitter. */
export const MARGIN_FLOOR = 0.95;

/** Two such throttles this close take a step; a lone one only arms the next. */
export const MARGIN_PAIR_MS = 60_000;

/** A stretch this long without such a throttle gives one step back. */
export const MARGIN_BACK_MS = 300_000;

/**
 * The share of the vendor's advertised rate to aim at, learned from throttles (a pure decision,
 * tested as a table in jitter-margin.test.ts).
 *
 * A limiter paced at 99 % of a 1 s sliding log of 20 leaves 10 ms of the log to spare for each
 * request: the 20th before it must have left the log when it arrives. A request held up on its
 * way (a young-generation collection pauses a process 5-15 ms, on either side) while the 20th
 * after it goes on time takes more than that, and the vendor refuses that one with a
 * whole-second Retry-After: a second of the quota lost for 10 ms of jitter, every 10-20 s over
 * loopback (the issue's own vendor, 93.5 % of its quota). Nothing in the answers says how late
 * a request arrived, but such a throttle says the margin is too thin for this path: the caller
 * says `throttledUnder` when the vendor refused a request sent at a steady pace under the rate
 * it advertises (its limit over its window known, no pause and no climb for a few windows, the
 * rate in force not above it). The second such throttle within `MARGIN_PAIR_MS` of the one
 * before, and each after it, takes a step off the share aimed at, to `MARGIN_FLOOR` at most: a
 * lone one may be a fluke (a virtual run without jitter, held-out seed 3, IETF fixed window at
 * p50 300 ms: one throttle 8 s in and none after; a step on it cost the cell 98.0 -> 97.0 %). The
 * throttles of one burst are one, because the first pauses the limiter and the pace is no
 * longer steady for the rest. A step comes back after `MARGIN_BACK_MS` with no such
 * throttle, so one collection's pause does not cost the quota for good.
 */
export function jitterMargin(input: {
  /** The share aimed at now. */
  readonly share: number;
  /** The configured share (`targetShare`): the most it comes back to. */
  readonly targetShare: number;
  /** When the share last moved, down or up (-Infinity if never). */
  readonly movedAt: number;
  /** When the last such throttle came (-Infinity if none yet). */
  readonly lastAt: number;
  readonly now: number;
  /** This answer is a throttle of a request sent at a pace under the vendor's advertised rate. */
  readonly throttledUnder: boolean;
}): { readonly share: number; readonly movedAt: number; readonly lastAt: number } {
  const { share, targetShare, movedAt, lastAt, now, throttledUnder } = input;
  const floor = Math.min(MARGIN_FLOOR, targetShare);
  if (throttledUnder) {
    // A second within MARGIN_PAIR_MS of the last: this path's jitter, not a fluke.
    if (now - lastAt <= MARGIN_PAIR_MS && share > floor)
      return { share: Math.max(floor, share - MARGIN_STEP), movedAt: now, lastAt: now };
    return { share, movedAt, lastAt: now };
  }
  if (share < targetShare && now - movedAt >= MARGIN_BACK_MS)
    return { share: Math.min(targetShare, share + MARGIN_STEP), movedAt: now, lastAt };
  return { share, movedAt, lastAt };
}
