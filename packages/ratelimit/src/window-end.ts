/**
 * When a vendor's fixed window ends, bounded by the answers that reported it.
 *
 * An answer's reset was measured at the vendor at some moment between our send and the
 * answer's return, so the window ended no later than (answer + reset as sent), and no earlier
 * than (send + reset as sent). The router hands the reset on less half the round trip (its
 * best single guess) with the round trip (`roundTripMs`), so each answer says: the window end
 * lies within half a round trip of `now + reset`. A pause at `Remaining: 0` that ends at one
 * answer's guess ends late where most of the round trip comes after the vendor counts (an API
 * gateway counts a request on arrival and writes its headers after the work): 35-90 ms of a
 * 1 s window at p50 120 ms, a request or so of every window lost.
 *
 * Every answer counted in the same window bounds the same end, so their intersection is never
 * early and is nearer the true end than any one answer's guess: late by about the shortest
 * round trip among them. Only answers of the window at hand take part: a lattice of windows a
 * whole number of windows apart would bound it more tightly still, but a window that starts at
 * the first request after the last one ended (a Redis INCR with an expiry, say) moves that
 * lattice each time, later by our lateness, and its answers still seem to agree: a bound read
 * across windows there is early. Where the answers disagree (the intersection is empty) there
 * is no bound, and the one answer's guess stands.
 */
export class WindowEnd {
  // The last answers' bounds on the end of the window each was counted in (ms).
  readonly #lo: number[] = [];
  readonly #hi: number[] = [];
  #next = 0;

  /**
   * Another answer, come back `now` after `roundTripMs` with a reset of `resetMs` less half the
   * round trip (see answerBounds).
   */
  add(now: number, resetMs: number, roundTripMs: number): void {
    const b = answerBounds(now, resetMs, roundTripMs);
    if (b === undefined) return;
    this.#lo[this.#next] = b.low;
    this.#hi[this.#next] = b.high;
    this.#next = (this.#next + 1) % ANSWERS_KEPT;
  }

  /**
   * The window this answer (as for `add`) was counted in: it ended after `low` and by `high`,
   * as the answers kept that were counted in it too bound it. Undefined when they disagree, or
   * when this one's round trip is too long to tell which window it was counted in.
   */
  bounds(
    now: number,
    resetMs: number,
    roundTripMs: number,
    windowMs: number,
  ): { readonly low: number; readonly high: number } | undefined {
    const q = answerBounds(now, resetMs, roundTripMs);
    return q === undefined ? undefined : windowBounds(this.#lo, this.#hi, q, windowMs);
  }
}

/** How many answers are kept: a window's at tens a second. */
const ANSWERS_KEPT = 32;

/** How far the bounds may cross and still agree (ms): resets in whole milliseconds, both ends rounded. */
const AGREE_MS = 2;

/**
 * Where one answer puts the end of the window it was counted in: within half its round trip of
 * `now + resetMs`. A reset taken down to 0 was up to half a round trip when it came: the end is
 * then anywhere from the send on.
 */
export function answerBounds(
  now: number,
  resetMs: number,
  roundTripMs: number,
): { readonly low: number; readonly high: number } | undefined {
  if (!Number.isFinite(now + resetMs + roundTripMs) || roundTripMs < 0 || resetMs < 0) return undefined;
  const half = roundTripMs / 2;
  return { low: resetMs > 0 ? now + resetMs - half : now - roundTripMs, high: now + resetMs + half };
}

/**
 * The intersection of `query` and the answers' bounds `[lo[i], hi[i]]` that were counted in
 * the same window, or undefined when it is empty or `query` is too wide. Only bounds narrower
 * than half a window take part, and of those the ones whose middle is within half a window of
 * the query's: each is less than a quarter of a window off its own window's end, so those of
 * the window before or after are a half or more away. A pure function, tested as a table and
 * by a property in window-end.test.ts.
 */
export function windowBounds(
  lo: readonly number[],
  hi: readonly number[],
  query: { readonly low: number; readonly high: number },
  windowMs: number,
): { readonly low: number; readonly high: number } | undefined {
  const narrow = windowMs / 2;
  if (!(windowMs > 0) || !(query.high - query.low < narrow)) return undefined;
  const mid = (query.low + query.high) / 2;
  let low = query.low;
  let high = query.high;
  for (let i = 0; i < lo.length; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    if (h - l >= narrow || Math.abs((l + h) / 2 - mid) >= narrow) continue;
    low = Math.max(low, l);
    high = Math.min(high, h);
  }
  if (low > high + AGREE_MS) return undefined;
  return { low: Math.min(low, high), high };
}
