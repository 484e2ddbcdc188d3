import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { LineSums } from './line-sums.js';
import { lineFit } from './remaining-only.js';

describe('LineSums: the slope of points added one at a time', () => {
  it('a table: flat, rising, one point, the same x', () => {
    const slope = (points: [number, number][]) => {
      const s = new LineSums();
      for (const [x, y] of points) s.add(x, y);
      return s.slope();
    };
    assert.equal(slope([]), 0);
    assert.equal(slope([[1, 5]]), 0);
    assert.equal(
      slope([
        [2, 5],
        [2, 9],
      ]),
      0,
    );
    assert.equal(
      slope([
        [0, 30],
        [1, 30],
        [2, 30],
      ]),
      0,
    );
    assert.equal(
      slope([
        [0, 1],
        [1, 3],
        [2, 5],
      ]),
      2,
    );
  });

  it('property: the slope lineFit reads over the same points (Remaining against seconds of answers a millisecond apart or more)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 60_000_000 }), fc.integer({ min: 0, max: 1000 })), {
          minLength: 3,
          maxLength: 300,
        }),
        (raw) => {
          // Times in microseconds, as a clock in milliseconds with three decimals says them.
          const points = raw.map(([us, level]) => ({ at: us / 1000, level }));
          const fit = lineFit(points, 1);
          const sums = new LineSums();
          for (const p of points) sums.add(p.at / 1000, p.level);
          if (fit === undefined) return;
          const tolerance = 1e-6 * Math.max(1, Math.abs(fit.perSecond));
          assert.ok(
            Math.abs(sums.slope() - fit.perSecond) <= tolerance,
            `${sums.slope()} against ${fit.perSecond}`,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('points close together a minute in (what raw sums of squares lost to cancellation)', () => {
    const points = [
      { at: 59_998.7938293738, level: 0 },
      { at: 59_999.25057026418, level: 0 },
      { at: 59_997.605894591754, level: 1 },
    ];
    const sums = new LineSums();
    for (const p of points) sums.add(p.at / 1000, p.level);
    const fit = lineFit(points, 1)!;
    assert.ok(Math.abs(sums.slope() - fit.perSecond) <= 1e-6 * Math.abs(fit.perSecond), `${sums.slope()}`);
  });

  it("property: the slope's standard error is what two passes over the points say", () => {
    // The slow definition, written out: the line through the means, what it leaves, and the
    // error of its slope, sqrt(sum of squared residuals / (n - 2) / sum of squared x deviations).
    const slow = (points: readonly [number, number][]): number => {
      const n = points.length;
      const mx = points.reduce((a, [x]) => a + x, 0) / n;
      const my = points.reduce((a, [, y]) => a + y, 0) / n;
      let sxx = 0;
      let sxy = 0;
      for (const [x, y] of points) {
        sxx += (x - mx) ** 2;
        sxy += (x - mx) * (y - my);
      }
      const b = sxy / sxx;
      let rss = 0;
      for (const [x, y] of points) rss += (y - my - b * (x - mx)) ** 2;
      return Math.sqrt(rss / (n - 2) / sxx);
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 1000 })), {
          minLength: 3,
          maxLength: 300,
        }),
        (raw) => {
          const points = raw.map(([ms, y]) => [ms / 1000, y] as [number, number]);
          const xs = new Set(points.map(([x]) => x));
          const sums = new LineSums();
          for (const [x, y] of points) sums.add(x, y);
          if (xs.size < 2) return assert.equal(sums.slopeError(), Number.POSITIVE_INFINITY);
          const want = slow(points);
          assert.ok(
            Math.abs(sums.slopeError() - want) <= 1e-6 * Math.max(1, want),
            `${sums.slopeError()} against ${want}`,
          );
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('property: meanY is the plain mean of the y added', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 600_000 }), fc.integer({ min: 0, max: 1000 })), {
          minLength: 1,
          maxLength: 300,
        }),
        (raw) => {
          const sums = new LineSums();
          let total = 0;
          for (const [x, y] of raw) {
            sums.add(x / 1000, y);
            total += y;
          }
          assert.ok(Math.abs(sums.meanY - total / raw.length) <= 1e-9 * Math.max(1, total), `${sums.meanY}`);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a flat line leaves no error; whole-number steps leave some', () => {
    const flat = new LineSums();
    for (let i = 0; i < 50; i++) flat.add(i / 10, 30);
    assert.equal(flat.slope(), 0);
    assert.equal(flat.slopeError(), 0);
    const steps = new LineSums();
    for (let i = 0; i < 50; i++) steps.add(i / 10, 30 + (i % 2));
    assert.ok(steps.slopeError() > 0);
  });
});
