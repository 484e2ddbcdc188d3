import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { answerBounds, latticeBounds, WindowEnd } from './window-end.js';

describe('answerBounds: where one answer puts the end of its window', () => {
  const rows: readonly [string, number, number, number, { low: number; high: number } | undefined][] = [
    [
      'a reset less half the round trip: within half the round trip of now + reset',
      1000,
      300,
      100,
      { low: 1250, high: 1350 },
    ],
    [
      'a reset taken down to 0: from the send on, to half a round trip after now',
      1000,
      0,
      100,
      { low: 900, high: 1050 },
    ],
    ['a negative round trip says nothing', 1000, 300, -1, undefined],
    ['a negative reset says nothing', 1000, -1, 100, undefined],
    ['an infinite reset says nothing', 1000, Number.POSITIVE_INFINITY, 100, undefined],
  ];
  for (const [name, now, resetMs, rtt, want] of rows)
    it(name, () => assert.deepEqual(answerBounds(now, resetMs, rtt), want));
});

describe('latticeBounds: the answers of several windows bound one lattice', () => {
  const q = (low: number, high: number) => ({ low, high });
  it('one answer: its own bounds', () => {
    assert.deepEqual(latticeBounds([950], [1060], q(950, 1060), 1000), { low: 950, high: 1060 });
  });
  it('answers from other windows narrow it, each moved a whole number of windows', () => {
    // Ends at 1000, 2000, 3000: [950, 1060], [1980, 2100] and [2990, 3040] meet at [990, 1040] + k.
    assert.deepEqual(latticeBounds([950, 1980, 2990], [1060, 2100, 3040], q(2990, 3040), 1000), {
      low: 2990,
      high: 3040,
    });
    assert.deepEqual(latticeBounds([950, 1980, 2990], [1060, 2100, 3040], q(3900, 4200), 1000), {
      low: 3990,
      high: 4040,
    });
  });
  it('answers that disagree (no window end in all of them): no bound', () => {
    assert.equal(latticeBounds([950, 2100], [1010, 2160], q(2100, 2160), 1000), undefined);
  });
  it('an answer as wide as half a window or more takes no part', () => {
    assert.deepEqual(latticeBounds([950, 1400], [1060, 2100], q(950, 1060), 1000), { low: 950, high: 1060 });
  });
  it('the answer asked about as wide as half a window or more: which window it was counted in is not known', () => {
    assert.equal(latticeBounds([950], [1060], q(900, 1400), 1000), undefined);
  });
  it('no answers, or no window: no bound', () => {
    assert.equal(latticeBounds([], [], q(950, 1060), 1000), undefined);
    assert.equal(latticeBounds([950], [1060], q(950, 1060), 0), undefined);
  });
});

// The vendor here is written from scratch: fixed windows ending at `phase + k * windowMs`, a
// request counted when it arrives, its reset measured at any moment from then until the answer
// leaves (on arrival, as gateways do, or after the work), and the router's reading of it (the
// reset less half the round trip, never below 0).
describe('WindowEnd against a fixed-window vendor', () => {
  it('property: the bounds of the window an answer was counted in always hold its true end', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(500, 1000, 2000, 10_000),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(
          fc.record({
            gap: fc.double({ min: 0, max: 1500, noNaN: true }),
            up: fc.double({ min: 0, max: 80, noNaN: true }),
            work: fc.double({ min: 0, max: 600, noNaN: true }),
            back: fc.double({ min: 0, max: 400, noNaN: true }),
            measuredAt: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        (windowMs, phaseShare, answers) => {
          const phase = phaseShare * windowMs;
          const ends = new WindowEnd();
          let sent = 0;
          for (const a of answers) {
            sent += a.gap;
            const arrived = sent + a.up;
            const end = phase + (Math.floor((arrived - phase) / windowMs) + 1) * windowMs;
            const measured = arrived + a.measuredAt * a.work;
            const rawResetMs = end - measured;
            const now = arrived + a.work + a.back;
            const rtt = now - sent;
            const resetMs = Math.max(0, rawResetMs - rtt / 2);
            ends.add(now, resetMs, rtt);
            const b = ends.bounds(now, resetMs, rtt, windowMs);
            if (b === undefined) continue;
            assert.ok(b.high >= end - 1e-6, `ends ${end}, bound says by ${b.high}`);
            assert.ok(b.low <= end + 1e-6, `ends ${end}, bound says after ${b.low}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("slow answers of a 1 s window: the bound is late by about the shortest round trip kept, one answer's guess by half its own", () => {
    // A deterministic run: round trips 40-700 ms (p50 ~140 ms), all but 2 ms of each after the
    // count. The bound: 43 ms late on average; one answer's guess: 70 ms.
    const ends = new WindowEnd();
    let lateBound = 0;
    let lateGuess = 0;
    let n = 0;
    let x = 7;
    const next = () => {
      x = (x * 48271) % 2147483647;
      return x / 2147483647;
    };
    for (let sent = 0; sent < 60_000; sent += 50) {
      const rtt = next() < 0.8 ? 40 + 160 * next() : 200 + 500 * next();
      const arrived = sent + 2;
      const end = (Math.floor(arrived / 1000) + 1) * 1000;
      const now = sent + rtt;
      const resetMs = Math.max(0, end - arrived - rtt / 2);
      ends.add(now, resetMs, rtt);
      const b = ends.bounds(now, resetMs, rtt, 1000);
      if (sent < 10_000 || b === undefined || resetMs === 0) continue;
      n++;
      lateBound += b.high - end;
      lateGuess += now + resetMs - end;
    }
    assert.ok(n > 800, `${n} answers bounded`);
    assert.ok(lateBound / n < 50, `bound ${(lateBound / n).toFixed(1)} ms late on average`);
    assert.ok(lateGuess / n > 65, `one answer's guess ${(lateGuess / n).toFixed(1)} ms late on average`);
  });
});
