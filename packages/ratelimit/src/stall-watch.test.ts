import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  STALL_FLOOR_MS,
  STALL_MEMORY_MS,
  type StallSample,
  StallWatch,
  stallAllowance,
} from './stall-watch.js';

describe('StallWatch', () => {
  it('allows for the largest stall over the floor in the last minute (a table)', () => {
    // [the timers fired: due, fired], the time asked at, the allowance then
    const table: ReadonlyArray<[string, ReadonlyArray<readonly [number, number]>, number, number]> = [
      ['none fired', [], 0, 0],
      ['on time (virtual time)', [[100, 100]], 100, 0],
      ["a timer's own lateness, at the floor", [[100, 100 + STALL_FLOOR_MS]], 200, 0],
      ['a stall of 11 ms', [[100, 111]], 200, 11],
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
          const samples: StallSample[] = [];
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
});
