import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

// Node's HDR histogram takes whole numbers from 1: a value is kept as microseconds plus one
// (0 ms is 1), up to this (about 28 hours; longer is kept as this).
const HIGHEST = 100_000_000_000;
// The ranks buckets() reads, in percent: every half percent, then finer into the tail.
const RANKS = [
  ...Array.from({ length: 199 }, (_, i) => (i + 1) / 2),
  99.6,
  99.7,
  99.8,
  99.9,
  99.95,
  99.99,
  99.999,
  100,
];

/**
 * Latencies in milliseconds on Node's HDR histogram (`perf_hooks.createHistogram`): every value
 * counts, in constant memory. A percentile is within the histogram's significant digits of the
 * value at that rank (3 by default: 0.1 %, and 1 µs), never above the largest value recorded (kept exactly).
 */
export class LatencyHistogram {
  readonly #h: RecordableHistogram;
  // The largest value exactly (the histogram's own max is its bucket's highest value: a pos
  // claim of 1200 ms read 1200.13, past its deadline).
  #max = 0;

  /** @param figures significant digits kept (1–5): 3 for a run's totals, 2 for chart buckets. */
  constructor(figures = 3) {
    this.#h = createHistogram({ lowest: 1, highest: HIGHEST, figures });
  }

  record(ms: number): void {
    if (ms > this.#max) this.#max = ms;
    this.#h.record(Math.min(HIGHEST, Math.round(Math.max(0, ms || 0) * 1000) + 1));
  }

  /** Records `count` values of `ms` (merging another histogram's buckets). */
  add(ms: number, count: number): void {
    for (let i = 0; i < count; i++) this.record(ms);
  }

  /**
   * Adds another histogram's `buckets()`, its values at their ranks: the merged percentiles
   * are those of the whole within half a percent of rank, and its max is the whole's (the
   * last bucket is the max): how --workers sums its processes.
   */
  merge(buckets: ReadonlyArray<readonly [upper: number, count: number]>): void {
    for (const [upper, count] of buckets) this.add(upper, count);
  }

  get count(): number {
    return this.#h.count;
  }
  get max(): number {
    return this.#max;
  }

  /** The value at percentile `p` (0–100), nearest rank: the ⌈p·n⌉-th smallest value. */
  percentile(p: number): number {
    const n = this.#h.count;
    return n === 0 ? 0 : this.#atRank(Math.max(1, Math.ceil((Math.min(100, Math.max(0, p)) / 100) * n)));
  }

  // Node's percentile rounds its rank (⌊p·n + ½⌋): asked just below `rank`, it answers at it.
  #atRank(rank: number): number {
    const n = this.#h.count;
    return Math.min(this.#max, ms(this.#h.percentile(((rank - 0.25) / n) * 100)));
  }

  /** Counts by value at rank (every half percent, finer into the tail), for drawing and merging. */
  buckets(): Array<[upper: number, count: number]> {
    const n = this.#h.count;
    if (n === 0) return [];
    const out: Array<[number, number]> = [];
    let taken = 0;
    for (const r of RANKS) {
      const upTo = r === 100 ? n : Math.ceil((r / 100) * n);
      if (upTo <= taken) continue;
      const v = upTo === n ? this.#max : this.#atRank(upTo); // the last is the max, exactly
      const last = out.at(-1);
      if (last !== undefined && last[0] === v) last[1] += upTo - taken;
      else out.push([v, upTo - taken]);
      taken = upTo;
    }
    return out;
  }
}

const ms = (raw: number): number => (raw - 1) / 1000;
