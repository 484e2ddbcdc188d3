import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  coarseResetEnded,
  nextFitAfter,
  phaseAfter,
  resetByPhase,
  windowAfter,
  windowBegan,
} from './vendor-window.js';

describe('windowAfter (the vendor window the limiter reads its rate over)', () => {
  const o = { windowMs: 0, declared: false, maxPauseMs: 300_000 };
  type In = Partial<Parameters<typeof windowAfter>[0]>;
  const table: ReadonlyArray<[string, In, ReturnType<typeof windowAfter>]> = [
    ['nothing said: no window', {}, { windowMs: 0, declared: false }],
    ['a reset: the window is at least that', { resetMs: 9000 }, { windowMs: 9000, declared: false }],
    [
      'a shorter reset later: the longest stays',
      { windowMs: 9000, resetMs: 3000 },
      { windowMs: 9000, declared: false },
    ],
    ['a day-long reset is no rate', { resetMs: 86_400_000 }, { windowMs: 0, declared: false }],
    ['a reset under 10 ms says "now", no window', { resetMs: 9.9 }, { windowMs: 0, declared: false }],
    ['a reset of 10 ms is one', { resetMs: 10 }, { windowMs: 10, declared: false }],
    [
      'a declared window wins over the resets read',
      { windowMs: 8700, declaredMs: 10_000 },
      { windowMs: 10_000, declared: true },
    ],
    [
      'even when shorter than the longest reset read',
      { windowMs: 12_000, declaredMs: 10_000 },
      { windowMs: 10_000, declared: true },
    ],
    [
      'declared once: later resets do not lengthen it',
      { windowMs: 10_000, declared: true, resetMs: 11_000 },
      { windowMs: 10_000, declared: true },
    ],
    [
      'a declared window of a day is no rate',
      { declaredMs: 86_400_000, resetMs: 5000 },
      { windowMs: 5000, declared: false },
    ],
    [
      'a declared window of nothing is ignored',
      { declaredMs: 0, resetMs: 5000 },
      { windowMs: 5000, declared: false },
    ],
  ];
  for (const [label, input, want] of table) {
    it(label, () => assert.deepEqual(windowAfter({ ...o, ...input }), want));
  }

  it('property: the window never exceeds the longest pause, and a declared one (within it) is taken as is', () => {
    fc.assert(
      fc.property(
        fc.nat(1_000_000),
        fc.boolean(),
        fc.option(fc.double({ min: -10, max: 1e8, noNaN: true }), { nil: undefined }),
        fc.option(fc.double({ min: 0, max: 1e8, noNaN: true }), { nil: undefined }),
        fc.integer({ min: 1, max: 1_000_000 }),
        (w, declared, declaredMs, resetMs, maxPauseMs) => {
          const windowMs = Math.min(w, maxPauseMs);
          const r = windowAfter({ windowMs, declared, declaredMs, resetMs, maxPauseMs });
          assert.ok(r.windowMs <= maxPauseMs);
          if (declaredMs !== undefined && declaredMs > 0 && declaredMs <= maxPauseMs)
            assert.deepEqual(r, { windowMs: declaredMs, declared: true });
          else if (!declared) assert.ok(r.windowMs >= windowMs);
        },
      ),
    );
  });
});

describe('nextFitAfter (a reset that is the time until one more request fits)', () => {
  const o = {
    latched: false,
    ruledOut: false,
    windowMs: 0,
    declared: false,
    throttled: false,
    limit: 100,
    remaining: 45,
    resetMs: 0,
  };
  const marked = { latched: true, ruledOut: false };
  const not = { latched: false, ruledOut: false };
  const out = { latched: false, ruledOut: true };
  type In = Partial<Parameters<typeof nextFitAfter>[0]>;
  const table: ReadonlyArray<[string, In, ReturnType<typeof nextFitAfter>]> = [
    ['half the limit or less left, a reset of 0, no window read yet: marked', {}, marked],
    ['exactly half left', { remaining: 50 }, marked],
    ['a reset under 10 ms (0.001 s said, no round trip taken off)', { resetMs: 1 }, marked],
    [
      'more than half left: not yet (a bucket read short by half a round trip says 0 at first)',
      { remaining: 51 },
      not,
    ],
    ['nothing left: a sliding log about to free one says that too', { remaining: 0 }, not],
    ['a reset of 10 ms or more', { resetMs: 10 }, not],
    ['a window read already (a reset said one before half the limit was gone)', { windowMs: 1000 }, not],
    ['a declared window', { declared: true }, not],
    ['a refusal', { throttled: true }, not],
    ['no limit said', { limit: undefined }, not],
    ['no Remaining', { remaining: undefined }, not],
    ['no reset', { resetMs: undefined }, not],
    ['marked, another "now" with room: stays', { ...marked, remaining: 80 }, marked],
    [
      'marked, spent and a reset (the time to the next request): stays',
      { ...marked, remaining: 0, resetMs: 120 },
      marked,
    ],
    [
      'marked, a refusal with a reset: stays',
      { ...marked, throttled: true, remaining: 0, resetMs: 900 },
      marked,
    ],
    [
      'marked, a reset of 10 ms or more with room left: ruled out (a fixed window after all)',
      { ...marked, remaining: 1, resetMs: 10 },
      out,
    ],
    ['ruled out: never marked again', { ...out }, out],
  ];
  for (const [label, input, want] of table) {
    it(label, () => assert.deepEqual(nextFitAfter({ ...o, ...input }), want));
  }
});

describe('windowBegan and resetByPhase (a declared fixed window read to the millisecond)', () => {
  it('a window began when the reset jumps up by more than half the window', () => {
    const table: ReadonlyArray<[number | undefined, number, number, boolean]> = [
      [undefined, 9000, 10_000, false],
      [1000, 9500, 10_000, true],
      [1000, 5500, 10_000, false],
      [9000, 8000, 10_000, false],
      [1000, 9500, 0, false],
      // A 1 s window: resets less half a varying round trip jump about; no phase read.
      [250, 850, 1000, false],
      [250, 1850, 2000, false],
    ];
    for (const [prev, reset, w, want] of table)
      assert.equal(windowBegan(prev, reset, w), want, `${prev} -> ${reset}`);
  });

  it('the phase keeps the earliest sighting of a window start, brought forward a whole number of windows', () => {
    const table: ReadonlyArray<[number | undefined, number, number, number]> = [
      [undefined, 10_180, 10_000, 10_180],
      // Seen at 10 180, now at 20 090: the earlier phase (20 090) wins.
      [10_180, 20_090, 10_000, 20_090],
      // Seen at 10 090, now at 20 250: 20 090 stays.
      [10_090, 20_250, 10_000, 20_090],
      [10_090, 20_250, 0, 20_250],
    ];
    for (const [began, now, w, want] of table)
      assert.equal(phaseAfter(began, now, w), want, `${began}, ${now}`);
  });

  const table: ReadonlyArray<[string, Parameters<typeof resetByPhase>[0], number]> = [
    [
      'no window seen to begin: the reset',
      { resetMs: 1940, now: 5000, windowMs: 10_000, beganAt: undefined },
      1940,
    ],
    // A window began at 1100; the next at 11 100: from 10 000, 1100 ms, within the second before t.
    [
      'a coarse t of 2 (1.94 s): the phase says 1.1 s',
      { resetMs: 1940, now: 10_000, windowMs: 10_000, beganAt: 1100 },
      1100,
    ],
    ['several windows later', { resetMs: 1940, now: 50_000, windowMs: 10_000, beganAt: 1100 }, 1100],
    [
      'the phase more than two seconds before the reset: the reset stands',
      { resetMs: 3140, now: 10_000, windowMs: 10_000, beganAt: 1100 },
      3140,
    ],
    [
      'the phase after the reset: the reset stands',
      { resetMs: 900, now: 10_000, windowMs: 10_000, beganAt: 1100 },
      900,
    ],
    [
      'a window seen to begin later than now: the reset',
      { resetMs: 1940, now: 10_000, windowMs: 10_000, beganAt: 12_000 },
      1940,
    ],
    // An answer from the window that ended at 11 100, come back 200 ms later: t=1 (880 ms).
    [
      'an answer older than its window: the window began already, no wait',
      { resetMs: 880, now: 11_300, windowMs: 10_000, beganAt: 1100 },
      0,
    ],
  ];
  for (const [label, input, want] of table) {
    it(label, () => assert.ok(Math.abs(resetByPhase(input) - want) < 1e-9, `${resetByPhase(input)}`));
  }

  it('property: the phase only ever shortens a reset, by less than two seconds, never below 0', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1e7, noNaN: true }),
        fc.double({ min: 1, max: 1e6, noNaN: true }),
        fc.option(fc.double({ min: 0, max: 1e7, noNaN: true }), { nil: undefined }),
        (resetMs, now, windowMs, beganAt) => {
          const r = resetByPhase({ resetMs, now, windowMs, beganAt });
          assert.ok(r <= resetMs && r > resetMs - 2000 && r >= 0);
        },
      ),
    );
  });
});

describe('coarseResetEnded (a whole-second reset from a window that has surely ended)', () => {
  it('as a table: the reset as read (written less half the round trip) and the round trip', () => {
    // [why, resetMs as read, round trip, ended]
    const table: ReadonlyArray<[string, number, number, boolean]> = [
      // t = 1 on a 1 s window: 1000 less half the round trip.
      ['t 1, back in 1094 ms: counted over a second ago, that window is over', 1000 - 547, 1094, true],
      ['t 1, back in exactly 1 s: over', 500, 1000, true],
      ['t 1, back in 999 ms: may still be the window in force', 500.5, 999, false],
      ['t 1, back in 200 ms: may be the window in force', 900, 200, false],
      ['t 2, back in 2.2 s: over', 900, 2200, true],
      ['t 2, back in 1.5 s: not surely over', 1250, 1500, false],
      ['an exact reset (0.412 s written) is left to WindowEnd', 412 - 60, 120, false],
      ['an exact reset written as 1.0004 s: not whole seconds', 1000.4 - 600, 1200, false],
      ['a reset read as 0 (clipped): nothing to pause on anyway', 0, 2500, false],
      ['no round trip said: nothing known', 1000, Number.NaN, false],
      ['a reset of 0 written (t 0): nothing ahead', -100, 200, false],
    ];
    for (const [why, resetMs, roundTripMs, want] of table)
      assert.equal(coarseResetEnded({ resetMs, roundTripMs }), want, why);
  });

  it('property: read as the router reads it, a whole-second reset t is set aside exactly when the round trip is t seconds or more', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.double({ min: 0, max: 130_000, noNaN: true }),
        (t, rtt) => {
          // As signalAsAnswered reads it: the reset less half the round trip, never below 0.
          const resetMs = Math.max(0, t - rtt / 2000) * 1000;
          const ended = coarseResetEnded({ resetMs, roundTripMs: rtt });
          return resetMs > 0 ? ended === rtt >= t * 1000 : ended === false;
        },
      ),
    );
  });
});
