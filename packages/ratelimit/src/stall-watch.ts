/**
 * How late this process's own timers fire, as an allowance a pace leaves for it.
 *
 * A stall of the event loop (a collection, a long task) holds up what the process does next:
 * a request admitted just before it is written, and counted by the vendor, that much late. A
 * vendor's sliding log keeps it that much longer, and the request a window after it, sent on
 * time, finds the log full: refused, with a whole second of Retry-After. Over loopback (session
 * 30) a 1 s log of 50 paced at 99 % (10 ms to spare a window) refused one such request in three of
 * four 40 s runs: each time one request counted 10-14 ms after it was admitted, its admission on
 * time and the timers around it too. The stall itself is seen only when a timer is due within
 * it, and the ones seen were of the same size (3-11 ms, several a run), so the pace leaves room
 * for the largest seen lately (RateController's ceiling, by `stallShare`), not for the one that hit.
 *
 * In virtual time timers fire when due: nothing is seen, and no pace changes.
 */

/** A timer this much late or less is a timer's own lateness (the clock's millisecond), not a stall. */
export const STALL_FLOOR_MS = 2;

/** A stall is remembered this long. */
export const STALL_MEMORY_MS = 60_000;

/**
 * The allowance never takes more than this share of a window: as much again as the margin
 * (99 % of the limit at most 98 %). At 5 % (session 30's first form), the loopback table's 3x
 * slow cells of buckets, GCRA and an expiring counter with X-RateLimit and IETF headers read
 * 94.1-94.5 % without a throttle (98.6-98.9 % at session 27): at that load the process's timers
 * run late by tens of ms, and a bucket's burst takes up a late count anyway.
 */
export const STALL_MAX_SHARE = 0.01;

interface StallSample {
  /** When the late timer fired. */
  readonly at: number;
  /** How late it fired (ms). */
  readonly lateMs: number;
}

/**
 * The allowance: the largest lateness over the floor among the late timers of the last
 * `STALL_MEMORY_MS`, rounded up to a whole millisecond (so a new largest by a fraction changes
 * no rate); 0 when there is none. Kept as timers fire as a sliding maximum (each sample drops
 * the smaller ones before it, which can never be the largest again), held to the definition by
 * a property (stall-watch.test.ts).
 */
export class StallWatch {
  // Samples over the floor, by time, their lateness falling.
  readonly #kept: StallSample[] = [];

  /** A timer due at `due` fired at `now`. */
  fired(due: number, now: number): void {
    const lateMs = now - due;
    if (lateMs > STALL_FLOOR_MS) {
      while (this.#kept.length > 0 && this.#kept.at(-1)!.lateMs <= lateMs) this.#kept.pop();
      this.#kept.push({ at: now, lateMs });
    }
  }

  /** The allowance at `now` (ms). */
  allowanceMs(now: number): number {
    while (this.#kept.length > 0 && this.#kept[0]!.at <= now - STALL_MEMORY_MS) this.#kept.shift();
    return Math.ceil(this.#kept[0]?.lateMs ?? 0);
  }
}

/**
 * The share of a window's rate a pace keeps to leave `stallMs` of room a window (a rate, not a
 * pace alone: the bucket under it refills no faster, or the budget by Remaining takes back
 * what it banked and the pace misses its turns): window / (window + the allowance, at most
 * STALL_MAX_SHARE of the window).
 */
export function stallShare(windowMs: number, stallMs: number): number {
  if (!(windowMs > 0) || !(stallMs > 0)) return 1;
  return windowMs / (windowMs + Math.min(stallMs, STALL_MAX_SHARE * windowMs));
}
