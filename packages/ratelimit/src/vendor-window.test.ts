import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { windowAfter } from './vendor-window.js';

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
