/**
 * A vendor that sends Limit and Remaining but no reset counts our own requests: in a sliding
 * log (or a sliding counter) what it has left is its limit less what we sent in its window. We
 * know when we sent, so the window is the one, of those vendors configure, over which we sent
 * `limit − remaining`: no throttle is needed to find the rate. A pure decision, tested as a
 * table in own-window.test.ts; `OwnSends` keeps the send log it reads.
 */

/** One answer read against our sends: what the vendor counted, and what we sent over each window. */
export interface OwnReading {
  /** `limit − remaining`, from an answer whose Remaining was 1 or more. */
  readonly counted: number;
  /** What we sent (and the vendor did not refuse) over each candidate window; NaN beyond our history. */
  readonly sent: readonly number[];
  /** What we sent over all our history. */
  readonly all: number;
}

/**
 * The one window of `candidates` (ms, ascending) over which we sent, on average over these
 * answers, what the vendor says it counted (within a request and a half or 5 %); or undefined:
 * too few answers (8), too little counted (3), no candidate, more than one, or all our history
 * (any longer window would count the same). Answers come back out of order when round trips
 * vary, so one answer's count is off by a few; their average is not.
 */
export function windowFromOwnSends(
  readings: readonly OwnReading[],
  candidates: readonly number[],
): number | undefined {
  const n = readings.length;
  if (n < 8) return undefined;
  const mean = (f: (r: OwnReading) => number): number => readings.reduce((a, r) => a + f(r), 0) / n;
  const counted = mean((r) => r.counted);
  if (counted < 3) return undefined;
  const tolerance = Math.max(1.5, 0.05 * counted);
  if (Math.abs(mean((r) => r.all - r.counted)) <= tolerance) return undefined;
  let found: number | undefined;
  for (let i = 0; i < candidates.length; i++) {
    const residual = mean((r) => r.sent[i]! - r.counted);
    if (Number.isNaN(residual) || Math.abs(residual) > tolerance) continue;
    if (found !== undefined) return undefined;
    found = candidates[i];
  }
  return found;
}

/** Our sends over time: (time, running count) at each answer, thinned, over a bounded span. */
export class OwnSends {
  readonly #t: number[] = [];
  readonly #n: number[] = [];
  #head = 0;
  readonly #keepMs: number;
  readonly #everyMs: number;

  constructor(keepMs: number, everyMs = 10) {
    this.#keepMs = keepMs;
    this.#everyMs = everyMs;
  }

  /** When the log begins (+Infinity while empty). */
  get startsAt(): number {
    return this.#head < this.#t.length ? this.#t[this.#head]! : Number.POSITIVE_INFINITY;
  }

  /** The count of the latest record: what we sent so far (0 while empty). */
  get count(): number {
    return this.#head < this.#n.length ? this.#n[this.#n.length - 1]! : 0;
  }

  /** How far back the log reaches from `now` (ms). */
  spanMs(now: number): number {
    return this.#head < this.#t.length ? now - this.#t[this.#head]! : 0;
  }

  /** `count`: what we sent so far (less what the vendor refused), at `now`. */
  record(now: number, count: number): void {
    const t = this.#t;
    const n = this.#n;
    const last = t.length - 1;
    if (last >= this.#head && now - t[last]! < this.#everyMs) n[last] = count;
    else {
      t.push(now);
      n.push(count);
    }
    while (this.#head < t.length - 1 && t[this.#head]! < now - this.#keepMs) this.#head++;
    if (this.#head > 4096) {
      t.splice(0, this.#head);
      n.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** What we sent in the last `ms` before the latest record (all of the log when it is shorter). */
  sentWithin(ms: number): number {
    const t = this.#t;
    const last = t.length - 1;
    if (last < this.#head) return 0;
    return this.sentBetween(t[last]! - ms, t[last]!);
  }

  /** What we sent from `from` to `to` (the log's ends where it is shorter). */
  sentBetween(from: number, to: number): number {
    return this.#countAt(to) - this.#countAt(from);
  }

  // The count at `at`, interpolated between the records around it.
  #countAt(at: number): number {
    const t = this.#t;
    const n = this.#n;
    let lo = this.#head;
    let hi = t.length - 1;
    if (hi < lo) return 0;
    if (at <= t[lo]!) return n[lo]!;
    if (at >= t[hi]!) return n[hi]!;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (t[mid]! < at) lo = mid;
      else hi = mid;
    }
    return n[lo]! + ((n[hi]! - n[lo]!) * (at - t[lo]!)) / (t[hi]! - t[lo]!);
  }
}
