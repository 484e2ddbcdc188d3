/** Each throttle at a steady pace, from the second within `MARGIN_PAIR_MS` on, takes this off. */
export const MARGIN_STEP = 0.01;

/** The share aimed at never goes below this on account of jitter. */
export const MARGIN_FLOOR = 0.95;

/** Two such throttles this close take a step; a lone one only arms the next. */
export const MARGIN_PAIR_MS = 60_000;

/** Each stretch this long without a throttle gives one step back. */
export const MARGIN_BACK_MS = 300_000;

/**
 * How long a pace must have held before a throttle at it says the margin is too thin: five
 * windows, 5 s at least. A throttle soon after a climb, or a change of the vendor's limit or
 * window says something else. After a pause, one window is enough (session 17): a pause gives
 * nothing back when it ends (the pace goes on from one request), so the window after it is
 * paced as before. (Session 13 measured a step on throttles one window after a pause costing
 * 97-98 % cells a point, held-out seed 1, 101 -> 97 of 120 header cells, on the code then; at
 * session 17 the zoo's table and the held-out counts were the same on seeds 1-3 with it.)
 * Five windows after a throttle's pause of a second came never when the jitter throttled every
 * 3 s: a vendor that counts a request half a round trip after it left (a symmetric path; round
 * trips of a fast API, p50 10 ms, p99 40 ms) refused one of a 99 % pace of a 1 s sliding log
 * that often, for good, and the margin never moved (70.8 % of the quota, 1.96 % throttled).
 */
export const STEADY_MS = 5000;

/**
 * Is this throttle one of a request sent at a steady pace under the vendor's advertised rate
 * (a pure decision, tested as a table in jitter-margin.test.ts)? Its limit and window known,
 * no climb and no change of either for five windows (`STEADY_MS` at least), no pause for one; the
 * rate in force not above the advertised rate (a vendor that has just lowered its quota is
 * above it); and the first such throttle of its window (the requests in flight together are
 * refused together, and a throttle that says only its limit does not pause the limiter).
 */
export function steadyThrottle(input: {
  readonly throttled: boolean;
  readonly now: number;
  /** The vendor's window as read (ms). */
  readonly windowMs: number;
  /** Since when the pace has been steady: the later of a change of limit or window and a climb's end. */
  readonly steadySince: number;
  /** When the last pause ended (-Infinity if none): a window after it, the pace is steady again. */
  readonly pausedTill: number;
  /** The last throttle that counted (-Infinity if none). */
  readonly lastAt: number;
  readonly ratePerSecond: number;
  /** The vendor's advertised rate times the configured share. */
  readonly underPerSecond: number;
}): boolean {
  const { throttled, now, windowMs, steadySince, pausedTill, lastAt, ratePerSecond, underPerSecond } = input;
  return (
    throttled &&
    now - steadySince >= Math.max(STEADY_MS, 5 * windowMs) &&
    now - pausedTill >= windowMs &&
    now - lastAt >= windowMs &&
    ratePerSecond <= underPerSecond * (1 + 1e-9)
  );
}

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
 * a request arrived, but such a throttle says the margin is too thin for this path
 * (`throttledUnder`, see steadyThrottle). The second within `MARGIN_PAIR_MS` of the one before,
 * and each after it, takes a step off the share aimed at, to `MARGIN_FLOOR` at most: a lone one
 * may be a fluke (a virtual run without jitter, held-out seed 3, IETF fixed window at p50
 * 300 ms: one throttle 8 s in and none after; a step on it cost the cell 98.0 -> 97.0 %). Each
 * `MARGIN_BACK_MS` without any throttle gives a step back (all of them at once after a long
 * quiet), so one collection's pause does not cost the quota for good.
 */
export function jitterMargin(input: {
  /** The share aimed at now. */
  readonly share: number;
  /** The configured share (`targetShare`): the most it comes back to. */
  readonly targetShare: number;
  /** When the share last moved, down or up (-Infinity if never). */
  readonly movedAt: number;
  /** When the last steady throttle came (-Infinity if none yet). */
  readonly lastAt: number;
  /** When the last throttle of any kind came (-Infinity if none yet). */
  readonly lastThrottleAt: number;
  readonly now: number;
  /** This answer is a throttle. */
  readonly throttled: boolean;
  /** This answer is a throttle of a request sent at a steady pace under the vendor's advertised rate. */
  readonly throttledUnder: boolean;
}): { readonly share: number; readonly movedAt: number; readonly lastAt: number } {
  const { share, targetShare, movedAt, lastAt, lastThrottleAt, now, throttled, throttledUnder } = input;
  const floor = Math.min(MARGIN_FLOOR, targetShare);
  if (throttledUnder) {
    // A second within MARGIN_PAIR_MS of the last: this path's jitter, not a fluke.
    if (now - lastAt <= MARGIN_PAIR_MS && share > floor)
      return { share: Math.max(floor, share - MARGIN_STEP), movedAt: now, lastAt: now };
    return { share, movedAt, lastAt: now };
  }
  if (throttled || share >= targetShare) return { share, movedAt, lastAt };
  const since = Math.max(movedAt, lastThrottleAt);
  const steps = Math.floor((now - since) / MARGIN_BACK_MS);
  if (steps < 1) return { share, movedAt, lastAt };
  return {
    share: Math.min(targetShare, share + steps * MARGIN_STEP),
    movedAt: since + steps * MARGIN_BACK_MS,
    lastAt,
  };
}

/**
 * The state `jitterMargin` folds over, for one level (RateController) or one window read from
 * our sends (RemainingOnlyRate): the share aimed at, when it last moved, the last steady
 * throttle and the last throttle of any kind.
 */
export class LearnedMargin {
  #share: number;
  readonly #targetShare: number;
  #movedAt = Number.NEGATIVE_INFINITY;
  #lastAt = Number.NEGATIVE_INFINITY;
  #lastThrottleAt = Number.NEGATIVE_INFINITY;

  constructor(targetShare: number) {
    this.#targetShare = targetShare;
    this.#share = targetShare;
  }

  /** The share aimed at now. */
  get share(): number {
    return this.#share;
  }

  /** When the last steady throttle came (-Infinity if none yet). */
  get lastAt(): number {
    return this.#lastAt;
  }

  /** One answer: a throttle or not, and if one, whether at a steady pace under the rate (steadyThrottle). */
  step(now: number, throttled: boolean, throttledUnder: boolean): void {
    ({
      share: this.#share,
      movedAt: this.#movedAt,
      lastAt: this.#lastAt,
    } = jitterMargin({
      share: this.#share,
      targetShare: this.#targetShare,
      movedAt: this.#movedAt,
      lastAt: this.#lastAt,
      lastThrottleAt: this.#lastThrottleAt,
      now,
      throttled,
      throttledUnder,
    }));
    if (throttled) this.#lastThrottleAt = now;
  }
}
