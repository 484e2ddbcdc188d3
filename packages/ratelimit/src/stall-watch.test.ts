import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { STALL_FLOOR_MS, STALL_MAX_SHARE, STALL_MEMORY_MS, StallWatch, stallShare } from './stall-watch.js';

// The allowance by its definition, written apart from StallWatch's sliding maximum: of every
// timer that fired late in the last minute, more than the floor, the largest lateness, rounded
// up to a whole millisecond.
const stallAllowance = (samples: readonly { at: number; lateMs: number }[], now: number): number =>
  Math.ceil(
    Math.max(
      0,
      ...samples
        .filter((s) => s.at > now - STALL_MEMORY_MS && s.lateMs > STALL_FLOOR_MS)
        .map((s) => s.lateMs),
    ),
  );

describe('StallWatch', () => {
  it('allows for the largest stall over the floor in the last minute (a table)', () => {
    // [the timers fired: due, fired], the time asked at, the allowance then
    const table: ReadonlyArray<[string, ReadonlyArray<readonly [number, number]>, number, number]> = [
      ['none fired', [], 0, 0],
      ['on time (virtual time)', [[100, 100]], 100, 0],
      ["a timer's own lateness, at the floor", [[100, 100 + STALL_FLOOR_MS]], 200, 0],
      ['a stall of 11 ms', [[100, 111]], 200, 11],
      ['a stall of 10.2 ms, rounded up', [[100, 110.2]], 200, 11],
      [
        'the largest of three',
        [
          [100, 105],
          [200, 214],
          [300, 307],
        ],
        400,
        14,
      ],
      ['a minute on, forgotten', [[100, 111]], 111 + STALL_MEMORY_MS, 0],
      [
        'the largest forgotten, the next one stands',
        [
          [100, 130],
          [30_000, 30_008],
        ],
        130 + STALL_MEMORY_MS,
        8,
      ],
    ];
    for (const [name, fired, at, want] of table) {
      const w = new StallWatch();
      for (const [due, now] of fired) w.fired(due, now);
      assert.equal(w.allowanceMs(at), want, name);
    }
  });

  it('keeps the allowance its definition gives, however timers fire and it is asked (a property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            gap: fc.integer({ min: 0, max: 5_000 }),
            late: fc.oneof(
              fc.constant(0),
              fc.integer({ min: 0, max: 40 }),
              fc.double({ min: 0, max: 40, noNaN: true }),
            ),
            ask: fc.boolean(),
          }),
          { maxLength: 60 },
        ),
        (steps) => {
          const w = new StallWatch();
          const samples: { at: number; lateMs: number }[] = [];
          let now = 0;
          for (const { gap, late, ask } of steps) {
            now += gap;
            const due = now;
            now += late;
            w.fired(due, now);
            samples.push({ at: now, lateMs: now - due });
            if (ask) assert.equal(w.allowanceMs(now), stallAllowance(samples, now));
          }
          assert.equal(w.allowanceMs(now + 1), stallAllowance(samples, now + 1));
        },
      ),
    );
  });

  it('stallShare: the share of a window rate left for the allowance, at most a hundredth of the window (a table)', () => {
    // [window ms, allowance ms, share]
    const table: ReadonlyArray<[number, number, number]> = [
      [1000, 0, 1],
      [1000, 10, 1000 / 1010],
      [10_000, 10, 10_000 / 10_010],
      [1000, 9, 1000 / 1009],
      // The cap: a stall of 49 ms or of a second on a 1 s window leaves 1 / 1.01, not a half.
      [1000, 49, 1 / (1 + STALL_MAX_SHARE)],
      [1000, 1000, 1 / (1 + STALL_MAX_SHARE)],
      // No window: nothing to spread over.
      [0, 10, 1],
      [Number.NaN, 10, 1],
    ];
    for (const [windowMs, stallMs, want] of table)
      assert.equal(stallShare(windowMs, stallMs), want, `${windowMs} ms window, ${stallMs} ms`);
  });
});
