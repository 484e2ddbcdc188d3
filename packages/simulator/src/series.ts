import { LatencyHistogram } from './latency.js';

/** One time bucket of a run. */
export interface Bucket {
  /** Bucket start, ms since the run began. */
  readonly t: number;
  submitted: number;
  /** Requests sent to a vendor. */
  sent: number;
  /** Answers that adjudicated (paid, rejected, duplicate…): goodput. */
  adjudicated: number;
  throttled: number;
  failedOver: number;
  /** The vendor's remaining quota at the bucket's end (primary). */
  remaining: number;
  /** The client limiter's rate in force at the bucket's end. */
  limiterRate: number;
  readonly latency: { pos: LatencyHistogram; batch: LatencyHistogram };
  readonly outcomes: Record<string, number>;
}

export class Series {
  readonly bucketMs: number;
  readonly buckets: Bucket[] = [];
  constructor(bucketMs: number) {
    this.bucketMs = bucketMs;
  }
  at(tMs: number): Bucket {
    const i = Math.max(0, Math.floor(tMs / this.bucketMs));
    while (this.buckets.length <= i) {
      this.buckets.push({
        t: this.buckets.length * this.bucketMs,
        submitted: 0,
        sent: 0,
        adjudicated: 0,
        throttled: 0,
        failedOver: 0,
        remaining: Number.NaN,
        limiterRate: Number.NaN,
        latency: { pos: new LatencyHistogram(2), batch: new LatencyHistogram(2) },
        outcomes: {},
      });
    }
    return this.buckets[i]!;
  }
  toJSON() {
    const r2 = (x: number) => Math.round(x * 100) / 100;
    return {
      bucketMs: this.bucketMs,
      t: this.buckets.map((b) => b.t),
      submitted: this.buckets.map((b) => b.submitted),
      sent: this.buckets.map((b) => b.sent),
      adjudicated: this.buckets.map((b) => b.adjudicated),
      throttled: this.buckets.map((b) => b.throttled),
      failedOver: this.buckets.map((b) => b.failedOver),
      remainingQuota: this.buckets.map((b) => (Number.isNaN(b.remaining) ? null : b.remaining)),
      limiterRate: this.buckets.map((b) => (Number.isNaN(b.limiterRate) ? null : r2(b.limiterRate))),
      latency: { pos: this.#percentiles('pos', r2), batch: this.#percentiles('batch', r2) },
    };
  }

  #percentiles(lane: 'pos' | 'batch', r2: (x: number) => number) {
    const at = (q: number) =>
      this.buckets.map((b) => (b.latency[lane].count ? r2(b.latency[lane].percentile(q)) : null));
    return { p50: at(50), p95: at(95), p99: at(99) };
  }
}
