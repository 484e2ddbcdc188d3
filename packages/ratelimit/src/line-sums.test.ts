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

  it('property: the slope lineFit reads over the same points (Remaining against seconds of answers)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.double({ min: 0, max: 60_000, noNaN: true }), fc.integer({ min: 0, max: 1000 })),
          {
            minLength: 3,
            maxLength: 300,
          },
        ),
        (raw) => {
          const points = raw.map(([at, level]) => ({ at, level }));
          const fit = lineFit(points, 0);
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
    );
  });
});
