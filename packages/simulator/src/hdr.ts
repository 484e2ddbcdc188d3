/**
 * A high-dynamic-range histogram of non-negative values (milliseconds here): 1/8 ms buckets
 * below 128 ms, then log-linear buckets, 128 linear sub-buckets per power of two. A recorded
 * value is reported at most 1/8 ms above itself below 128 ms, and at most 1/128 (< 0.8 %) of
 * itself above, never above the largest value recorded; memory grows with the buckets used,
 * not with the count.
 */
export class HdrHistogram {
  static readonly SUB = 128;
  readonly #counts = new Map<number, number>();
  // The buckets in order, kept until a new bucket appears: percentiles are read in threes
  // (p50, p95, p99) and the report reads every bucket's, so the sort is done once per change.
  #sorted: number[] | undefined;
  #count = 0;
  #max = 0;
  #min = Number.POSITIVE_INFINITY;

  record(value: number): void {
    const v = Math.max(0, value || 0);
    const b = HdrHistogram.bucketOf(v);
    const had = this.#counts.get(b);
    if (had === undefined) this.#sorted = undefined;
    this.#counts.set(b, (had ?? 0) + 1);
    this.#count++;
    if (v > this.#max) this.#max = v;
    if (v < this.#min) this.#min = v;
  }

  /** Adds `count` values of `value` at once (merging another histogram's buckets). */
  add(value: number, count: number): void {
    if (count <= 0) return;
    const v = Math.max(0, value || 0);
    const b = HdrHistogram.bucketOf(v);
    const had = this.#counts.get(b);
    if (had === undefined) this.#sorted = undefined;
    this.#counts.set(b, (had ?? 0) + count);
    this.#count += count;
    if (v > this.#max) this.#max = v;
    if (v < this.#min) this.#min = v;
  }

  /**
   * Adds another histogram's `buckets()` (and its max): each count goes back into the bucket it
   * came from. (Adding each upper edge as a value would put it one bucket higher: an upper
   * edge is the next bucket's first value.)
   */
  merge(buckets: ReadonlyArray<readonly [upper: number, count: number]>, max: number): void {
    for (const [upper, count] of buckets) {
      if (count <= 0) continue;
      const b = HdrHistogram.bucketOf(upper) - 1;
      const had = this.#counts.get(b);
      if (had === undefined) this.#sorted = undefined;
      this.#counts.set(b, (had ?? 0) + count);
      this.#count += count;
      const lower = b === 0 ? 0 : HdrHistogram.upperOf(b - 1);
      if (lower < this.#min) this.#min = lower;
    }
    if (max > this.#max) this.#max = max;
  }

  get count(): number {
    return this.#count;
  }
  get max(): number {
    return this.#max;
  }
  /** The value at percentile `p` (0–100): the upper edge of its bucket, never above the max. */
  percentile(p: number): number {
    if (this.#count === 0) return 0;
    const rank = Math.max(1, Math.ceil((p / 100) * this.#count));
    let seen = 0;
    for (const b of this.#order()) {
      seen += this.#counts.get(b)!;
      if (seen >= rank) return Math.min(this.#max, HdrHistogram.upperOf(b));
    }
    return this.#max;
  }

  /** Counts by bucket upper edge, for drawing. */
  buckets(): Array<[upper: number, count: number]> {
    return this.#order().map((b) => [HdrHistogram.upperOf(b), this.#counts.get(b)!]);
  }

  #order(): number[] {
    this.#sorted ??= [...this.#counts.keys()].sort((x, y) => x - y);
    return this.#sorted;
  }

  static bucketOf(v: number): number {
    if (v < HdrHistogram.SUB) return Math.floor(v * 8); // 1/8 ms resolution below 128 ms
    const exp = Math.floor(Math.log2(v / HdrHistogram.SUB));
    const base = HdrHistogram.SUB * 2 ** exp;
    const sub = Math.floor(((v - base) / base) * HdrHistogram.SUB);
    return HdrHistogram.SUB * 8 + exp * HdrHistogram.SUB + sub;
  }

  static upperOf(b: number): number {
    if (b < HdrHistogram.SUB * 8) return (b + 1) / 8;
    const k = b - HdrHistogram.SUB * 8;
    const exp = Math.floor(k / HdrHistogram.SUB);
    const sub = k % HdrHistogram.SUB;
    const base = HdrHistogram.SUB * 2 ** exp;
    return base + ((sub + 1) * base) / HdrHistogram.SUB;
  }
}
