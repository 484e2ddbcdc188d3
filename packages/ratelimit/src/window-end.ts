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
  readonly #exact: boolean[] = [];
  #next = 0;
  // The last spreads of the earliest bounds within one window (see `bounds`'s `due`).
  readonly #spreads: number[] = [];
  #nextSpread = 0;
  #trusted = true;
  // The last pauses that ended at `due`, before `high` (see `ended`).
  readonly #early: { readonly from: number; readonly to: number }[] = [];

  /**
   * Another answer, come back `now` after `roundTripMs` with a reset of `resetMs` less half the
   * round trip (see answerBounds).
   */
  add(now: number, resetMs: number, roundTripMs: number): void {
    const b = answerBounds(now, resetMs, roundTripMs);
    if (b === undefined) return;
    this.#lo[this.#next] = b.low;
    this.#hi[this.#next] = b.high;
    this.#exact[this.#next] = b.exact;
    this.#next = (this.#next + 1) % ANSWERS_KEPT;
  }

  /**
   * The window this answer (as for `add`) was counted in: it ended after `low` and by `high`,
   * as the answers kept that were counted in it too bound it. Undefined when they disagree, or
   * when this one's round trip is too long to tell which window it was counted in.
   *
   * `due` is when a request sent reaches the vendor after that end, as far as the answers tell:
   * `high` unless they tell more. Each answer's earliest bound (its send plus its reset) is the
   * end less the time from its send to the vendor's count. Those times spread as the way there
   * does, and a window's answers show how much (the spread of their earliest bounds); a request
   * sent at the latest of them plus the widest spread seen in a window (of at least
   * `SPREAD_ANSWERS` answers) arrives after the end unless its way there is shorter than every
   * one seen, by that spread again. Where the vendor counts on arrival and writes its reset then
   * (as gateways and their middleware do), that is ahead of `high` by about the way back: at p50
   * 120 ms, 25-40 ms of a window that starts at our next send (an expiring counter). A vendor
   * that writes its reset after a steady piece of work looks the same and is not: its earliest
   * bounds are early by that work. A refusal of a request admitted after such a pause ended,
   * before `high`, says so (`refused`), and `due` is `high` from then on.
   */
  bounds(
    now: number,
    resetMs: number,
    roundTripMs: number,
    windowMs: number,
  ): { readonly low: number; readonly high: number; readonly due: number } | undefined {
    const q = answerBounds(now, resetMs, roundTripMs);
    const w = q === undefined ? undefined : windowBounds(this.#lo, this.#hi, q, windowMs, this.#exact);
    if (w === undefined) return undefined;
    if (w.answers >= SPREAD_ANSWERS) {
      this.#spreads[this.#nextSpread] = w.spread;
      this.#nextSpread = (this.#nextSpread + 1) % SPREADS_KEPT;
    }
    const due =
      this.#trusted && this.#spreads.length > 0 && w.earliest !== undefined
        ? Math.min(w.high, w.earliest + Math.max(...this.#spreads) + AGREE_MS)
        : w.high;
    return { low: w.low, high: w.high, due };
  }

  /** A pause at 0 ended at `due`, before `high` (as `bounds` said them): see `refused`. */
  ended(due: number, high: number): void {
    if (!(due < high)) return;
    this.#early.push({ from: due, to: high });
    if (this.#early.length > EARLY_KEPT) this.#early.shift();
  }

  /**
   * A request admitted at `sentAt` was refused. Admitted after a pause that ended at `due` and
   * before that window's `high`, it may have been early (see `bounds`): `due` is `high` from now
   * on. Other refusals say nothing of `due` (a late answer of a window can reopen its budget
   * after a pause ended at `high`, old rule and new alike), and leave it be.
   */
  refused(sentAt: number): void {
    if (this.#early.some((e) => sentAt >= e.from - AGREE_MS && sentAt < e.to)) this.#trusted = false;
  }
}

/**
 * How many answers of one window (the one asked about counted, and counted again once added)
 * show its spread: fewer say too little of how short a way there can be.
 */
const SPREAD_ANSWERS = 8;

/** How many pauses that ended at `due` are kept: the last windows' at a second or so each. */
const EARLY_KEPT = 8;

/** How many answers' spreads are kept (the last few windows' at tens a second). */
const SPREADS_KEPT = 64;

/** How many answers are kept: a window's at tens a second. */
const ANSWERS_KEPT = 32;

/** How far the bounds may cross and still agree (ms): resets in whole milliseconds, both ends rounded. */
const AGREE_MS = 2;

/**
 * Where one answer puts the end of the window it was counted in: within half its round trip of
 * `now + resetMs`. A reset taken down to 0 was up to half a round trip when it came: the end is
 * then anywhere from the send on, and `low` is not the send plus the reset as sent (`exact`).
 */
export function answerBounds(
  now: number,
  resetMs: number,
  roundTripMs: number,
): { readonly low: number; readonly high: number; readonly exact: boolean } | undefined {
  if (!Number.isFinite(now + resetMs + roundTripMs) || roundTripMs < 0 || resetMs < 0) return undefined;
  const half = roundTripMs / 2;
  const exact = resetMs > 0;
  return { low: exact ? now + resetMs - half : now - roundTripMs, high: now + resetMs + half, exact };
}

/** What windowBounds tells of one window's end. */
export interface WindowBounds {
  /** It ended after this... */
  readonly low: number;
  /** ...and by this. */
  readonly high: number;
  /** The latest exact earliest bound (a send plus its reset as sent), if any took part. */
  readonly earliest?: number;
  /** How far apart the exact earliest bounds taking part are (0 with fewer than two). */
  readonly spread: number;
  /** How many exact bounds took part, the query's among them. */
  readonly answers: number;
}

/**
 * The intersection of `query` and the answers' bounds `[lo[i], hi[i]]` that were counted in
 * the same window, or undefined when it is empty or `query` is too wide. Only bounds narrower
 * than half a window take part, and of those the ones whose middle is within half a window of
 * the query's: each is less than a quarter of a window off its own window's end, so those of
 * the window before or after are a half or more away. With it, what the exact earliest bounds
 * taking part say (`exact[i]`, `query.exact`: exact unless false; see WindowBounds).
 * A pure function, tested as a table and by a property in window-end.test.ts.
 */
export function windowBounds(
  lo: readonly number[],
  hi: readonly number[],
  query: { readonly low: number; readonly high: number; readonly exact?: boolean },
  windowMs: number,
  exact?: readonly boolean[],
): WindowBounds | undefined {
  const narrow = windowMs / 2;
  if (!(windowMs > 0) || !(query.high - query.low < narrow)) return undefined;
  const mid = (query.low + query.high) / 2;
  let low = query.low;
  let high = query.high;
  // The spread counts exact earliest bounds only (answerBounds): a reset taken down to 0 says
  // little of the way there.
  let highest = query.exact === false ? Number.NEGATIVE_INFINITY : query.low;
  let lowest = query.exact === false ? Number.POSITIVE_INFINITY : query.low;
  let answers = query.exact === false ? 0 : 1;
  for (let i = 0; i < lo.length; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    if (h - l >= narrow || Math.abs((l + h) / 2 - mid) >= narrow) continue;
    low = Math.max(low, l);
    high = Math.min(high, h);
    if (exact?.[i] === false) continue;
    highest = Math.max(highest, l);
    lowest = Math.min(lowest, l);
    answers++;
  }
  if (low > high + AGREE_MS) return undefined;
  return {
    low: Math.min(low, high),
    high,
    ...(answers > 0 ? { earliest: highest, spread: highest - lowest } : { spread: 0 }),
    answers,
  };
}
