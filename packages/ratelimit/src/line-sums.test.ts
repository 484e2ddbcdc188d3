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
});
