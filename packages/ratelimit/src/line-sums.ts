/**
 * The least-squares slope of points added one at a time, in constant time and memory: what
 * `lineFit` (remaining-only.ts) computes over a kept array, for a span read at every answer of a
 * fast vendor. Means and co-moments are updated as each point comes (Welford's way), not raw sums
 * of squares, which lose the slope to cancellation when the points sit close together far from
 * 0 (three answers within 2 ms, a minute in: -654.9746 against -654.9753 per second). Held to
 * `lineFit` by a property (line-sums.test.ts).
 */
export class LineSums {
  #n = 0;
  #mx = 0;
  #my = 0;
  #cxx = 0;
  #cxy = 0;
  #cyy = 0;

  /** Points added so far. */
  get count(): number {
    return this.#n;
  }

  /** The mean of the y added so far (0 before any). */
  get meanY(): number {
    return this.#my;
  }

  add(x: number, y: number): void {
    this.#n++;
    const dx = x - this.#mx;
    this.#mx += dx / this.#n;
    const dy = y - this.#my;
    this.#my += dy / this.#n;
    this.#cxx += dx * (x - this.#mx);
    this.#cxy += dx * (y - this.#my);
    this.#cyy += dy * (y - this.#my);
  }

  /** The slope of the least-squares line (y per unit of x); 0 while every x is the same. */
  slope(): number {
    return this.#cxx > 0 ? this.#cxy / this.#cxx : 0;
  }

  /**
   * The standard error of that slope, from what the line leaves (its residuals): how far the
   * slope read may be off by noise alone. Infinite under three points or while every x is the same.
   */
  slopeError(): number {
    if (this.#n < 3 || !(this.#cxx > 0)) return Number.POSITIVE_INFINITY;
    const residual = Math.max(0, this.#cyy - (this.#cxy * this.#cxy) / this.#cxx);
    return Math.sqrt(residual / (this.#n - 2) / this.#cxx);
  }
}
