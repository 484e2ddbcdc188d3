import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LatencyHistogram } from './latency.js';

// Latencies as a run sees them: sub-millisecond to minutes, many repeats.
const latency = fc.oneof(
  fc.double({ min: 0, max: 128, noNaN: true }),
  fc.double({ min: 128, max: 600_000, noNaN: true }),
  fc.integer({ min: 0, max: 5000 }),
);

/** The nearest-rank percentile of the values themselves, from a sorted copy: the reference. */
function exact(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
}

// Within 3 significant digits of the value (0.1 %), plus the microsecond it is kept in.
const close = (got: number, want: number) => Math.abs(got - want) <= want / 1000 + 0.0011;

describe('LatencyHistogram (perf_hooks.createHistogram)', () => {
  it('reports every percentile within 0.1 % (and 1 µs) of the nearest-rank value, never over the max', () => {
    fc.assert(
      fc.property(
        fc.array(latency, { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        (values, p) => {
          const h = new LatencyHistogram();
          for (const v of values) h.record(v);
          const want = exact(values, p);
          const got = h.percentile(p);
          assert.ok(close(got, want), `p${p}: ${got} for ${want}`);
          assert.ok(got <= h.max);
          assert.equal(h.count, values.length);
          assert.equal(h.max, Math.max(...values));
        },
      ),
    );
  });

  it('buckets() count every value, end at the max, and a merge of them keeps count, max and percentiles within half a percent of rank', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(latency, { minLength: 1, maxLength: 100 }), { minLength: 1, maxLength: 4 }),
        (parts) => {
          const all = parts.flat();
          const merged = new LatencyHistogram();
          for (const part of parts) {
            const h = new LatencyHistogram();
            for (const v of part) h.record(v);
            const b = h.buckets();
            assert.equal(
              b.reduce((n, [, c]) => n + c, 0),
              part.length,
            );
            assert.equal(b.at(-1)![0], h.max);
            merged.merge(b);
          }
          assert.equal(merged.count, all.length);
          assert.equal(merged.max, Math.max(...all));
          for (const p of [1, 50, 90, 95, 99, 100]) {
            const got = merged.percentile(p);
            // The value at some rank within half a percent (and one value) of p's.
            const lo = exact(all, Math.max(0, p - 0.5 - 100 / all.length));
            const hi = exact(all, Math.min(100, p + 0.5 + 100 / all.length));
            assert.ok(
              got >= lo - lo / 1000 - 0.0011 && got <= hi + hi / 1000 + 0.0011,
              `p${p}: ${got} not in [${lo}, ${hi}]`,
            );
          }
        },
      ),
    );
  });

  it('reads percentiles again after more values; 0 ms is 0; an empty histogram reads 0', () => {
    const h = new LatencyHistogram();
    assert.equal(h.percentile(50), 0);
    assert.deepEqual(h.buckets(), []);
    h.record(0);
    assert.equal(h.percentile(50), 0);
    for (let i = 1; i <= 100; i++) h.record(i);
    assert.ok(close(h.percentile(50), 50), `${h.percentile(50)}`);
    for (let i = 0; i < 101; i++) h.record(1000);
    assert.ok(close(h.percentile(50), 100), `${h.percentile(50)}`);
    assert.ok(close(h.percentile(99), 1000));
    assert.equal(h.percentile(0), 0);
  });
});
