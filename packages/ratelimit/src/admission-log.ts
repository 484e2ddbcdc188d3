/**
 * When the last admissions of a level were made: how many came after a given time.
 *
 * A vendor's `Remaining` counts the requests it had seen when the request it answers arrived:
 * every request admitted after that one is not in it yet. Requests still in flight that went
 * before it are, so "Remaining less what is in flight" counts them twice. At round trips of
 * p50 120 ms, p99 600 ms, a fixed window of 20/s lost a request or two of every window that
 * way (94.5 %). With the answer's round trip, the limiter counts what it admitted since.
 */
export class AdmissionLog {
  // A ring of admission times, oldest at #head once full.
  readonly #at: number[] = [];
  #head = 0;
  // Every admission at or after #from is here (after it, once the ring has dropped one there).
  #from: number;
  #dropped = false;

  /** A log of every admission from `startedAt` on. */
  constructor(startedAt: number) {
    this.#from = startedAt;
  }

  /** An admission at `now` (the times come in order, or nearly: a shared store answers late). */
  record(now: number): void {
    if (this.#at.length < ADMISSIONS_KEPT) this.#at.push(now);
    else {
      // The oldest leaves: the log now reaches back to just after it.
      this.#from = this.#at[this.#head]!;
      this.#dropped = true;
      this.#at[this.#head] = now;
      this.#head = (this.#head + 1) % ADMISSIONS_KEPT;
    }
  }

  /**
   * Admissions made at or after `t`; undefined when the log does not reach back that far (it began
   * later, or `t` is more than the admissions kept ago: a round trip of 2 s at 256/s). A binary
   * search over the ring.
   */
  since(t: number): number | undefined {
    if (!(this.#dropped ? t > this.#from : t >= this.#from)) return undefined;
    const n = this.#at.length;
    let lo = 0;
    let hi = n;
    // The first index, oldest first, whose time is `t` or later.
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.#at[(this.#head + mid) % n]! >= t) hi = mid;
      else lo = mid + 1;
    }
    return n - lo;
  }
}

/** How many admission times a level keeps. */
export const ADMISSIONS_KEPT = 512;
