import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { throttleCut } from './retry-after-rate.js';

describe('throttleCut (hold mode, a throttle without quota headers)', () => {
  const o = { beta: 0.9, minRate: 2, recoverMs: 3000, holdMs: 30_000 };
  const table: ReadonlyArray<[string, number, boolean, { wMax: number; cut: number; climbMs: number }]> = [
    [
      'a throttle: a cut below the refused rate, back in recoverMs',
      20,
      false,
      { wMax: 20, cut: 18, climbMs: 3000 },
    ],
    [
      'paused again before the climb was over: the climb back takes holdMs',
      20,
      true,
      { wMax: 20, cut: 18, climbMs: 30_000 },
    ],
    ['never below the floor', 2, false, { wMax: 2, cut: 2, climbMs: 3000 }],
    ['never below the floor, paused again', 2, true, { wMax: 2, cut: 2, climbMs: 30_000 }],
  ];
  for (const [label, refused, pausedAgain, want] of table) {
    it(label, () => {
      const r = throttleCut({ ...o, refused, pausedAgain });
      assert.ok(Math.abs(r.wMax - want.wMax) < 1e-9, `wMax ${r.wMax}`);
      assert.ok(Math.abs(r.cut - want.cut) < 1e-9, `cut ${r.cut}`);
      assert.equal(r.climbMs, want.climbMs);
    });
  }
});
