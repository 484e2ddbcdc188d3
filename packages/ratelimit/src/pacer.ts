/**
 * A level's own pace once its rate is the vendor's: each admission at most `toleranceMs`
 * before its turn, a turn every `1 / perSecond`, and no catch-up past that after a late one.
 * The level's bucket lets a late timer's tokens go at once (a catch-up); a vendor's sliding log
 * counts the late request and the caught-up ones in one window.
 */
export interface PaceSpec {
  readonly perSecond: number;
  readonly toleranceMs: number;
}

export class Pacer {
  // The theoretical time of the next turn (GCRA's TAT).
  #tat = Number.NEGATIVE_INFINITY;
  // The last admission and its cost.
  #lastAt = Number.NEGATIVE_INFINITY;
  #lastCost = 0;
  #spec: PaceSpec;

  constructor(spec: PaceSpec) {
    this.#spec = spec;
  }

  /**
   * A new pace. A faster one is due from the last admission at once (the turn it still owes at
   * the old pace would hold the level under its new rate); a slower one is the bucket's to keep.
   */
  setSpec(spec: PaceSpec): void {
    if (spec.perSecond > this.#spec.perSecond)
      this.#tat = Math.min(this.#tat, this.#lastAt + (this.#lastCost * 1000) / spec.perSecond);
    this.#spec = spec;
  }

  /** Milliseconds until the next admission keeps to the pace (0: now). */
  wait(now: number): number {
    const w = this.#tat - this.#spec.toleranceMs - now;
    return w > 1e-6 ? w : 0;
  }

  /**
   * The level was paused from `now` (a Retry-After, Remaining 0 until a reset): the pace's lead
   * (a turn and the tolerance at most) is dropped, so the first admission after the pause goes
   * when the bucket lets it. The pause's turns are not owed: the bucket holds one token when
   * it ends, and the pace goes on from there.
   */
  paused(now: number): void {
    if (this.#tat > now) this.#tat = now;
  }

  /** An admission of `cost` at `now`. */
  admitted(now: number, cost: number): void {
    this.#tat = Math.max(this.#tat, now) + (cost * 1000) / this.#spec.perSecond;
    this.#lastAt = now;
    this.#lastCost = cost;
  }
}
