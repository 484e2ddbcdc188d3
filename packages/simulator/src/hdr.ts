/**
 * A high-dynamic-range histogram of non-negative values (milliseconds here): log-linear
 * buckets, 128 linear sub-buckets per power of two, so any recorded value is reported within
 * 1/128 (< 0.8 %) of itself, in constant memory whatever the count.
 */
export class HdrHistogram {
  static readonly SUB = 128;
  readonly #counts = new Map<number, number>();
  #count = 0;
  #max = 0;
  #min = Number.POSITIVE_INFINITY;

  record(value: number): void {
    const v = Math.max(0, value || 0);
    const b = HdrHistogram.bucketOf(v);
    this.#counts.set(b, (this.#counts.get(b) ?? 0) + 1);
    this.#count++;
    if (v > this.#max) this.#max = v;
    if (v < this.#min) this.#min = v;
  }

  /** Adds `count` values of `value` at once (merging another histogram's buckets). */
  add(value: number, count: number): void {
    if (count <= 0) return;
    const v = Math.max(0, value || 0);
    const b = HdrHistogram.bucketOf(v);
    this.#counts.set(b, (this.#counts.get(b) ?? 0) + count);
    this.#count += count;
    if (v > this.#max) this.#max = v;
    if (v < this.#min) this.#min = v;
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
    for (const b of [...this.#counts.keys()].sort((x, y) => x - y)) {
      seen += this.#counts.get(b)!;
      if (seen >= rank) return Math.min(this.#max, HdrHistogram.upperOf(b));
    }
    return this.#max;
  }

  /** Counts by bucket upper edge, for drawing. */
  buckets(): Array<[upper: number, count: number]> {
    return [...this.#counts.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([b, c]) => [HdrHistogram.upperOf(b), c]);
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
