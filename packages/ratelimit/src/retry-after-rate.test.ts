import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ANSWER_AGE_MS, bareThrottle, throttleCut } from './retry-after-rate.js';

describe('throttleCut (hold mode, a throttle without quota headers)', () => {
  const o = { beta: 0.9, minRate: 2, recoverMs: 3000, holdMs: 30_000 };
  const table: ReadonlyArray<
    [string, number, boolean, number, { wMax: number; cut: number; climbMs: number }]
  > = [
    [
      'a throttle: a cut below the refused rate, back in recoverMs',
      20,
      false,
      0,
      { wMax: 20, cut: 18, climbMs: 3000 },
    ],
    [
      'paused again before the climb was over: the climb back takes holdMs',
      20,
      true,
      1,
      { wMax: 20, cut: 18, climbMs: 30_000 },
    ],
    [
      'paused again a second time in a row: still well above the vendor, a deeper cut',
      36,
      true,
      2,
      { wMax: 36, cut: 30.6, climbMs: 30_000 },
    ],
    [
      'paused again a third time in a row: the deeper cut again',
      30,
      true,
      3,
      { wMax: 30, cut: 25.5, climbMs: 30_000 },
    ],
    ['never below the floor', 2, false, 0, { wMax: 2, cut: 2, climbMs: 3000 }],
    ['never below the floor, paused again', 2, true, 1, { wMax: 2, cut: 2, climbMs: 30_000 }],
    ['never below the floor, paused again in a row', 2.2, true, 2, { wMax: 2.2, cut: 2, climbMs: 30_000 }],
  ];
  for (const [label, refused, pausedAgain, pausedAgainInRow, want] of table) {
    it(label, () => {
      const r = throttleCut({ ...o, refused, pausedAgain, pausedAgainInRow });
      assert.ok(Math.abs(r.wMax - want.wMax) < 1e-9, `wMax ${r.wMax}`);
      assert.ok(Math.abs(r.cut - want.cut) < 1e-9, `cut ${r.cut}`);
      assert.equal(r.climbMs, want.climbMs);
    });
  }
  it('a configured beta below the descent cut is kept', () => {
    const r = throttleCut({ ...o, beta: 0.7, refused: 20, pausedAgain: true, pausedAgainInRow: 2 });
    assert.ok(Math.abs(r.cut - 14) < 1e-9, `cut ${r.cut}`);
  });
});

describe('bareThrottle (hold mode, a throttle with no quota header and no Retry-After)', () => {
  const o = {
    sinceCutMs: 1500,
    wentThroughSinceCut: 3,
    paused: false,
    walls: 0,
    maxPauseMs: 300_000,
    wallsSeen: false,
    refusedSentSinceCut: 0,
    climbing: false,
    throttledSinceCut: 2,
  };
  type In = Partial<typeof o>;
  const table: ReadonlyArray<[string, In, ReturnType<typeof bareThrottle>]> = [
    ['the first throttle: a cut', { sinceCutMs: Number.POSITIVE_INFINITY }, { kind: 'cut' }],
    ['a second after a cut, some went through since: a cut', {}, { kind: 'cut' }],
    ['under a second after a cut: the same event', { sinceCutMs: 400 }, { kind: 'same' }],
    [
      'paused: sent before the pause, nothing new',
      { paused: true, wentThroughSinceCut: 0 },
      { kind: 'same' },
    ],
    [
      'a second after a cut, nothing through since: a wall, 1 s',
      { wentThroughSinceCut: 0 },
      { kind: 'wall', pauseMs: 1000 },
    ],
    [
      'the third wall in a row: 1.5 times 1.5 s',
      { wentThroughSinceCut: 0, walls: 2 },
      { kind: 'wall', pauseMs: 2250 },
    ],
    [
      'walls in a row are capped at maxPauseMs',
      { wentThroughSinceCut: 0, walls: 40 },
      { kind: 'wall', pauseMs: 300_000 },
    ],
    [
      'under a second, nothing through, walls never seen: the same event',
      { sinceCutMs: 300, wentThroughSinceCut: 0, refusedSentSinceCut: 5 },
      { kind: 'same' },
    ],
    [
      'under a second, walls seen before, two sent since the cut refused: a wall at once',
      { sinceCutMs: 300, wentThroughSinceCut: 0, wallsSeen: true, refusedSentSinceCut: 2 },
      { kind: 'wall', pauseMs: 1000 },
    ],
    [
      'under a second, walls seen, only the requests in flight at the cut refused: the same event',
      { sinceCutMs: 300, wentThroughSinceCut: 0, wallsSeen: true, refusedSentSinceCut: 1 },
      { kind: 'same' },
    ],
    [
      'during the climb, a second after the cut, the first refused since: maybe sent before the cut, held back',
      { climbing: true, throttledSinceCut: 0 },
      { kind: 'lone' },
    ],
    [
      'during the climb, another after the one held back: a cut',
      { climbing: true, throttledSinceCut: 1 },
      { kind: 'cut' },
    ],
    [
      'during the climb, refused all along since the cut (a descent): a cut as before',
      { climbing: true, throttledSinceCut: 12 },
      { kind: 'cut' },
    ],
    [
      'the climb over, the first refused since the cut: a cut as before',
      { throttledSinceCut: 0 },
      { kind: 'cut' },
    ],
    [
      'during the climb, the first since, under a second after the cut: the same event',
      { climbing: true, throttledSinceCut: 0, sinceCutMs: 400 },
      { kind: 'same' },
    ],
    [
      'during the climb, the first since, nothing through since the cut: a wall as before',
      { climbing: true, throttledSinceCut: 0, wentThroughSinceCut: 0 },
      { kind: 'wall', pauseMs: 1000 },
    ],
    [
      'during the climb, the first since, paused: the same event',
      { climbing: true, throttledSinceCut: 0, paused: true },
      { kind: 'same' },
    ],
    [
      'during the climb, the first since, later than an answer can be old: sent after the cut, a cut',
      { climbing: true, throttledSinceCut: 0, sinceCutMs: 2400 },
      { kind: 'cut' },
    ],
    [
      'the first throttle ever: a cut',
      { climbing: true, throttledSinceCut: 0, sinceCutMs: Number.POSITIVE_INFINITY },
      { kind: 'cut' },
    ],
  ];
  for (const [label, input, want] of table) {
    it(label, () => assert.deepEqual(bareThrottle({ ...o, ...input }), want));
  }

  it('property: a wall pause is never longer than maxPauseMs, and nothing while paused or with answers through is a wall', () => {
    fc.assert(
      fc.property(
        fc.record({
          sinceCutMs: fc.oneof(
            fc.double({ min: 0, max: 1e7, noNaN: true }),
            fc.constant(Number.POSITIVE_INFINITY),
          ),
          wentThroughSinceCut: fc.integer({ min: -5, max: 100 }),
          paused: fc.boolean(),
          walls: fc.nat(100),
          maxPauseMs: fc.double({ min: 1, max: 1e7, noNaN: true }),
          wallsSeen: fc.boolean(),
          refusedSentSinceCut: fc.integer({ min: -5, max: 100 }),
          climbing: fc.boolean(),
          throttledSinceCut: fc.integer({ min: 0, max: 100 }),
        }),
        (input) => {
          const r = bareThrottle(input);
          if (r.kind === 'wall') {
            assert.ok(r.pauseMs > 0 && r.pauseMs <= input.maxPauseMs);
            assert.ok(!input.paused && input.wentThroughSinceCut <= 0);
          }
          if (r.kind === 'cut') assert.ok(!input.paused && input.sinceCutMs >= 1000);
          // Held back only during a climb, a second or more after a cut, the first since it.
          if (r.kind === 'lone')
            assert.ok(
              !input.paused &&
                input.climbing &&
                input.throttledSinceCut === 0 &&
                input.sinceCutMs >= 1000 &&
                input.sinceCutMs < ANSWER_AGE_MS,
            );
        },
      ),
    );
  });
});
