import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { HdrHistogram } from './hdr.js';

// Latencies as a run sees them: sub-millisecond to minutes, many repeats.
const latency = fc.oneof(
  fc.double({ min: 0, max: 128, noNaN: true }),
  fc.double({ min: 128, max: 600_000, noNaN: true }),
  fc.integer({ min: 0, max: 5000 }),
);

/** The nearest-rank percentile of the values themselves: what the histogram approximates. */
function exact(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

describe('HdrHistogram', () => {
  it('puts every value in a bucket whose edges hold it', () => {
    fc.assert(
      fc.property(latency, (v) => {
        const b = HdrHistogram.bucketOf(v);
        const lower = b === 0 ? 0 : HdrHistogram.upperOf(b - 1);
        assert.ok(lower <= v && v < HdrHistogram.upperOf(b), `${lower} <= ${v} < ${HdrHistogram.upperOf(b)}`);
      }),
    );
  });

  it('reports a percentile at most 1/8 ms (below 128 ms) or 1/128 (above) over the true one, never over the max', () => {
    fc.assert(
      fc.property(
        fc.array(latency, { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (values, p) => {
          const h = new HdrHistogram();
          for (const v of values) h.record(v);
          const want = exact(values, p);
          const got = h.percentile(p);
          assert.ok(got >= want, `p${p}: ${got} < ${want}`);
          assert.ok(got - want <= Math.max(1 / 8, want / 128) + 1e-9, `p${p}: ${got} for ${want}`);
          assert.ok(got <= Math.max(...values));
          assert.equal(h.count, values.length);
          assert.equal(h.max, Math.max(...values));
        },
      ),
    );
  });

  it('merges another histogram’s buckets into the same buckets (how --workers sums its processes)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(latency, { minLength: 1, maxLength: 100 }), { minLength: 1, maxLength: 4 }),
        (parts) => {
          const whole = new HdrHistogram();
          const merged = new HdrHistogram();
          for (const part of parts) {
            const h = new HdrHistogram();
            for (const v of part) {
              h.record(v);
              whole.record(v);
            }
            merged.merge(h.buckets(), h.max);
          }
          assert.deepEqual(merged.buckets(), whole.buckets());
          assert.equal(merged.count, whole.count);
          assert.equal(merged.max, whole.max);
          for (const p of [0, 50, 90, 95, 99, 100])
            assert.equal(merged.percentile(p), whole.percentile(p), `p${p}`);
        },
      ),
    );
  });

  it('reads percentiles again after more values, from the buckets as they are now', () => {
    const h = new HdrHistogram();
    for (let i = 1; i <= 100; i++) h.record(i);
    assert.equal(h.percentile(50), 50.125);
    for (let i = 0; i < 100; i++) h.record(1000);
    assert.equal(h.percentile(50), 100.125);
    assert.equal(h.percentile(99), 1000);
    assert.equal(h.percentile(0), 1.125);
  });
});
