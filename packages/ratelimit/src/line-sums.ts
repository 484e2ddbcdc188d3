/**
 * The least-squares slope of points added one at a time, in constant time and memory: what
 * `lineFit` (remaining-only.ts) computes over a kept array, for a span read at every answer of a
 * fast vendor. Held to `lineFit` by a property (line-sums.test.ts). `x` should be small (seconds
 * since the span began): the sums of squares lose precision on epoch milliseconds.
 */
export class LineSums {
  #n = 0;
  #x = 0;
  #y = 0;
  #xx = 0;
  #xy = 0;

  /** Points added so far. */
  get count(): number {
    return this.#n;
  }

  add(x: number, y: number): void {
    this.#n++;
    this.#x += x;
    this.#y += y;
    this.#xx += x * x;
    this.#xy += x * y;
  }

  /** The slope of the least-squares line (y per unit of x); 0 while every x is the same. */
  slope(): number {
    const d = this.#n * this.#xx - this.#x * this.#x;
    return d > 0 ? (this.#n * this.#xy - this.#x * this.#y) / d : 0;
  }
}
