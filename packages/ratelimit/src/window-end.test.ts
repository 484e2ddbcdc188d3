import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { answerBounds, WindowEnd, windowBounds } from './window-end.js';

describe('answerBounds: where one answer puts the end of its window', () => {
  const rows: readonly [
    string,
    number,
    number,
    number,
    { low: number; high: number; exact: boolean } | undefined,
  ][] = [
    [
      'a reset less half the round trip: within half the round trip of now + reset',
      1000,
      300,
      100,
      { low: 1250, high: 1350, exact: true },
    ],
    [
      'a reset taken down to 0: from the send on, to half a round trip after now',
      1000,
      0,
      100,
      { low: 900, high: 1050, exact: false },
    ],
    ['a negative round trip says nothing', 1000, 300, -1, undefined],
    ['a negative reset says nothing', 1000, -1, 100, undefined],
    ['an infinite reset says nothing', 1000, Number.POSITIVE_INFINITY, 100, undefined],
  ];
  for (const [name, now, resetMs, rtt, want] of rows)
    it(name, () => assert.deepEqual(answerBounds(now, resetMs, rtt), want));
});

describe('windowBounds: the answers counted in one window bound its end together', () => {
  const q = (low: number, high: number) => ({ low, high });
  it("no other answer: the asked one's own bounds", () => {
    assert.deepEqual(windowBounds([], [], q(950, 1060), 1000), {
      low: 950,
      high: 1060,
      earliest: 950,
      spread: 0,
      answers: 1,
    });
  });
  it('answers of the same window narrow it', () => {
    // [950, 1060], [980, 1100] and [990, 1040]: the end lies in [990, 1040].
    assert.deepEqual(windowBounds([950, 980], [1060, 1100], q(990, 1040), 1000), {
      low: 990,
      high: 1040,
      earliest: 990,
      spread: 40,
      answers: 3,
    });
  });
  it('answers of the windows before and after take no part (a lattice may move: a window that starts at the first request)', () => {
    assert.deepEqual(windowBounds([1980, 2990, 950], [2010, 3040, 1060], q(980, 1100), 1000), {
      low: 980,
      high: 1060,
      earliest: 980,
      spread: 30,
      answers: 2,
    });
  });
  it('answers that disagree (no end in all of them): no bound', () => {
    assert.equal(windowBounds([950], [1010], q(1030, 1080), 1000), undefined);
  });
  it('an answer as wide as half a window or more takes no part', () => {
    assert.deepEqual(windowBounds([600], [1100], q(950, 1060), 1000), {
      low: 950,
      high: 1060,
      earliest: 950,
      spread: 0,
      answers: 1,
    });
  });
  it('a bound from a reset taken down to 0 narrows the window, and takes no part in the spread of the earliest bounds', () => {
    // [900, 1050] is not exact: its low is the send, not the send plus the reset as sent.
    assert.deepEqual(windowBounds([900, 980], [1050, 1100], q(990, 1040), 1000, [false, true]), {
      low: 990,
      high: 1040,
      earliest: 990,
      spread: 10,
      answers: 2,
    });
  });
  it('no exact bound: no earliest bound, no spread', () => {
    assert.deepEqual(windowBounds([900], [1050], { low: 920, high: 1040, exact: false }, 1000, [false]), {
      low: 920,
      high: 1040,
      spread: 0,
      answers: 0,
    });
  });
  it('the answer asked about as wide as half a window or more: which window it was counted in is not known', () => {
    assert.equal(windowBounds([950], [1060], q(900, 1400), 1000), undefined);
  });
  it('no window: no bound', () => {
    assert.equal(windowBounds([950], [1060], q(950, 1060), 0), undefined);
  });
});

// The vendors here are written from scratch, fixed windows of two kinds: ending at
// `phase + k * windowMs` (aligned), or starting at the first request after the last one ended
// (a counter with an expiry). A request is counted when it arrives, its reset measured at any
// moment from then until the answer leaves (on arrival, as gateways do, or after the work),
// and read as the router reads it (the reset less half the round trip, never below 0).
describe('WindowEnd against fixed-window vendors', () => {
  it('property: the bounds of the window an answer was counted in always hold its true end', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(500, 1000, 2000, 10_000),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(
          fc.record({
            gap: fc.double({ min: 0, max: 1500, noNaN: true }),
            up: fc.double({ min: 0, max: 80, noNaN: true }),
            work: fc.double({ min: 0, max: 600, noNaN: true }),
            back: fc.double({ min: 0, max: 400, noNaN: true }),
            measuredAt: fc.double({ min: 0, max: 1, noNaN: true }),
            // Sent the moment the last bound says its window ended, as after a pause at 0.
            atBound: fc.boolean(),
          }),
          { minLength: 1, maxLength: 60 },
        ),
        (windowMs, aligned, phaseShare, answers) => {
          const phase = phaseShare * windowMs;
          let windowEnd = Number.NEGATIVE_INFINITY;
          const ends = new WindowEnd();
          let sent = 0;
          let bound: number | undefined;
          for (const a of answers) {
            sent = a.atBound && bound !== undefined && bound > sent ? bound : sent + a.gap;
            const arrived = sent + a.up;
            if (aligned) windowEnd = phase + (Math.floor((arrived - phase) / windowMs) + 1) * windowMs;
            else if (arrived >= windowEnd) windowEnd = arrived + windowMs;
            const end = windowEnd;
            const measured = arrived + a.measuredAt * a.work;
            const rawResetMs = end - measured;
            const now = arrived + a.work + a.back;
            const rtt = now - sent;
            const resetMs = Math.max(0, rawResetMs - rtt / 2);
            ends.add(now, resetMs, rtt);
            const b = ends.bounds(now, resetMs, rtt, windowMs);
            bound = b?.high;
            if (b === undefined) continue;
            assert.ok(b.high >= end - 1e-6, `ends ${end}, bound says by ${b.high}`);
            assert.ok(b.low <= end + 1e-6, `ends ${end}, bound says after ${b.low}`);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: where the vendor counts on arrival and writes the reset then, a request sent at `due` is counted after the window's end (a steady way there), and `due` is never after `high`", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(500, 1000, 2000),
        fc.boolean(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 80, noNaN: true }),
        fc.array(
          fc.record({
            gap: fc.double({ min: 0, max: 300, noNaN: true }),
            work: fc.double({ min: 0, max: 600, noNaN: true }),
            back: fc.double({ min: 0, max: 400, noNaN: true }),
            // Sent the moment the last `due` says, as after a pause at 0.
            atDue: fc.boolean(),
          }),
          { minLength: 1, maxLength: 120 },
        ),
        (windowMs, aligned, phaseShare, up, answers) => {
          const phase = phaseShare * windowMs;
          let windowEnd = Number.NEGATIVE_INFINITY;
          const ends = new WindowEnd();
          // Sent, and come back in the order they come back (by `now`).
          const trips: { sent: number; end: number; now: number; rawResetMs: number }[] = [];
          let sent = 0;
          for (const a of answers) {
            sent += a.gap;
            const arrived = sent + up;
            if (aligned) windowEnd = phase + (Math.floor((arrived - phase) / windowMs) + 1) * windowMs;
            else if (arrived >= windowEnd) windowEnd = arrived + windowMs;
            trips.push({
              sent,
              end: windowEnd,
              now: arrived + a.work + a.back,
              rawResetMs: windowEnd - arrived,
            });
          }
          trips.sort((p, q) => p.now - q.now);
          for (const t of trips) {
            const rtt = t.now - t.sent;
            const resetMs = Math.max(0, t.rawResetMs - rtt / 2);
            ends.add(t.now, resetMs, rtt);
            const b = ends.bounds(t.now, resetMs, rtt, windowMs);
            if (b === undefined) continue;
            assert.ok(b.due <= b.high, `due ${b.due} after high ${b.high}`);
            assert.ok(
              b.due + up >= t.end - 1e-6,
              `ends ${t.end}; sent at due ${b.due}, counted at ${b.due + up}`,
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('slow answers of a 1 s window counted on arrival, 8 a window, a way there of 15 ms or one time in ten 1 ms: sent at `due`, a request is counted after the end even by the shorter way, and a few ms after it on average (`high`: about the shortest way back later)', () => {
    // A deterministic run, each answer measured on arrival; the answers that come back in the
    // last 150 ms of their window. Where every answer of a window went the long way, its
    // earliest bounds say 15 ms before the end: the widest spread seen in a window covers that.
    let lateDue = 0;
    let lateHigh = 0;
    let early = 0;
    let n = 0;
    replayNearEnds(
      { seed: 11, everyMs: 125, untilMs: 120_000, up: (next) => (next() < 0.1 ? 1 : 15) },
      (b, end) => {
        n++;
        // Sent at `due` the short way.
        if (b.due + 1 < end) early++;
        lateDue += b.due + 1 - end;
        lateHigh += b.high + 1 - end;
      },
    );
    assert.equal(early, 0);
    assert.ok(n > 30, `${n} answers`);
    assert.ok(lateDue / n < 20, `due ${(lateDue / n).toFixed(1)} ms late on average`);
    assert.ok(lateHigh / n > 40, `high ${(lateHigh / n).toFixed(1)} ms late on average`);
  });

  it("a vendor that writes its reset after a steady 100 ms of work: `due` is early by that work until a request admitted between a pause's `due` and `high` is refused (`refused`), and is `high` after; other refusals leave it be", () => {
    const ends = new WindowEnd();
    let last = { now: 0, resetMs: 0, rtt: 0, end: 0 };
    // The answers of a window's requests, sent 2 ms before the vendor counts.
    for (let sent = 0; sent < 4900; sent += 50) {
      const arrived = sent + 2;
      const end = (Math.floor(arrived / 1000) + 1) * 1000;
      const now = arrived + 100 + 10;
      const rtt = now - sent;
      last = { now, resetMs: Math.max(0, end - (arrived + 100) - rtt / 2), rtt, end };
      ends.add(last.now, last.resetMs, last.rtt);
    }
    const before = ends.bounds(last.now, last.resetMs, last.rtt, 1000);
    assert.ok(before !== undefined);
    // Sent at `due`, counted 2 ms later: about 100 ms before the end.
    assert.ok(before.due + 2 < last.end - 90, `due ${before.due}, end ${last.end}`);
    ends.ended(before.due, before.high);
    // Refused, but admitted before the pause ended, or after its window's `high`: no word on `due`.
    ends.refused(before.due - 50);
    ends.refused(before.high + 5);
    assert.equal(ends.bounds(last.now, last.resetMs, last.rtt, 1000)?.due, before.due);
    // Admitted just after the pause ended at `due`, and refused.
    ends.refused(before.due + 1);
    const after = ends.bounds(last.now, last.resetMs, last.rtt, 1000);
    assert.ok(after !== undefined);
    assert.equal(after.due, after.high);
    assert.ok(after.high + 2 >= last.end);
  });

  it("slow answers of a 1 s window, near its end (where a pause at 0 begins): the bound is late by about the shortest round trip in the window, one answer's guess by half its own", () => {
    // A deterministic run: a request every 50 ms, round trips 40-700 ms (p50 ~140 ms), all but
    // 2 ms of each after the count; the answers that come back in the last 150 ms of their window
    // (135): the bound 47 ms late on average, one answer's guess 69 ms.
    let lateBound = 0;
    let lateGuess = 0;
    let early = 0;
    let n = 0;
    replayNearEnds(
      { seed: 7, everyMs: 50, untilMs: 60_000, up: () => 2, upInTrip: true },
      (b, end, now, resetMs) => {
        n++;
        if (b.high < end) early++;
        lateBound += b.high - end;
        lateGuess += now + resetMs - end;
      },
    );
    assert.equal(early, 0);
    assert.ok(n > 100, `${n} answers`);
    assert.ok(lateBound / n < 50, `bound ${(lateBound / n).toFixed(1)} ms late on average`);
    assert.ok(lateGuess / n > 65, `one answer's guess ${(lateGuess / n).toFixed(1)} ms late on average`);
  });
});

/**
 * A deterministic run against an aligned 1 s window: a request every `everyMs` until `untilMs`,
 * the vendor counting it `up(next)` ms after it left and measuring its reset then, round trips
 * of 40-700 ms (p50 ~140 ms) more (or in all, `upInTrip`), each answer read as the router reads it (the reset less half
 * the round trip) in the order they come back. `look` sees the bounds of each answer that comes
 * back after 10 s, in the last 150 ms of its window.
 */
function replayNearEnds(
  o: {
    seed: number;
    everyMs: number;
    untilMs: number;
    up: (next: () => number) => number;
    upInTrip?: boolean;
  },
  look: (b: { low: number; high: number; due: number }, end: number, now: number, resetMs: number) => void,
): void {
  const ends = new WindowEnd();
  let x = o.seed;
  const next = () => {
    x = (x * 48271) % 2147483647;
    return x / 2147483647;
  };
  const answers: { at: number; run: () => void }[] = [];
  for (let sent = 0; sent < o.untilMs; sent += o.everyMs) {
    const up = o.up(next);
    const rtt = (o.upInTrip ? 0 : up) + (next() < 0.8 ? 40 + 160 * next() : 200 + 500 * next());
    const arrived = sent + up;
    const end = (Math.floor(arrived / 1000) + 1) * 1000;
    const now = sent + rtt;
    const resetMs = Math.max(0, end - arrived - rtt / 2);
    answers.push({
      at: now,
      run: () => {
        ends.add(now, resetMs, rtt);
        const b = ends.bounds(now, resetMs, rtt, 1000);
        if (sent < 10_000 || b === undefined || end - now > 150 || now > end) return;
        look(b, end, now, resetMs);
      },
    });
  }
  for (const a of answers.sort((p, q) => p.at - q.at)) a.run();
}
