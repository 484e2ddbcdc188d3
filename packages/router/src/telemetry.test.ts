// Metrics' histograms against a reference written another way: the nearest-rank percentile of a
// sorted copy of every value observed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Metrics } from './telemetry.js';

const nearestRank = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1]!;
};
// Node's HDR histogram keeps 3 significant digits (of microseconds): 0.1 %, and 1 µs.
const near = (got: number, want: number) => Math.abs(got - want) <= want / 500 + 0.002;

describe('Metrics histograms', () => {
  it('count every value and read p50, p99 and max within the histogram precision', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 500 }),
        (values) => {
          const m = new Metrics();
          const h = m.histogram('latency_ms');
          for (const v of values) h.observe(v);
          const s = m.snapshot().histograms.latency_ms!;
          assert.equal(s.count, values.length);
          assert.ok(near(s.max, Math.max(...values)), `max ${s.max}`);
          // Each percentile within precision of a value at its rank ± one value (HDR rounds its rank).
          for (const [p, got] of [
            [50, s.p50],
            [99, s.p99],
          ] as const) {
            const lo = nearestRank(values, Math.max(0, p - 100 / values.length));
            const hi = nearestRank(values, Math.min(100, p + 100 / values.length));
            assert.ok(
              got >= lo - lo / 500 - 0.002 && got <= hi + hi / 500 + 0.002,
              `p${p} ${got} not in [${lo}, ${hi}]`,
            );
          }
        },
      ),
    );
  });

  it('keeps every value, not a window: a slow first half still shows in p99 after 20,000 fast values', () => {
    const m = new Metrics();
    const h = m.histogram('latency_ms');
    for (let i = 0; i < 20_000; i++) h.observe(1000);
    for (let i = 0; i < 20_000; i++) h.observe(1);
    const s = m.snapshot().histograms.latency_ms!;
    assert.equal(s.count, 40_000);
    assert.ok(near(s.max, 1000));
    assert.ok(near(s.p99, 1000), `p99 ${s.p99}`);
  });
});
