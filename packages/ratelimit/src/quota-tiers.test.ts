import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { bindingTier, MAX_TIERS, type QuotaTier, TIER_FORGET_MS, tierOf, tiersAfter } from './quota-tiers.js';
import { roundWindow } from './round-window.js';

const tier = (limit: number | undefined, windowMs: number, seenAt = 0, declared = false): QuotaTier => ({
  limit,
  windowMs,
  declared,
  seenAt,
});

describe('tierOf (the quota an answer speaks of)', () => {
  const table: ReadonlyArray<
    [string, QuotaTier[], number | undefined, Pick<QuotaTier, 'windowMs' | 'declared'>]
  > = [
    ['nothing known: a new tier, no window', [], 20, { windowMs: 0, declared: false }],
    [
      'the tier with that Limit',
      [tier(20, 1000), tier(600, 30_000)],
      600,
      { windowMs: 30_000, declared: false },
    ],
    [
      'a Limit not seen: a new tier, not the window of another',
      [tier(20, 60_000)],
      600,
      { windowMs: 0, declared: false },
    ],
    [
      'a Limit said at last: the window read while it was not said',
      [tier(undefined, 10_000, 0, true)],
      100,
      { windowMs: 10_000, declared: true },
    ],
    [
      'no Limit said: the tier without one',
      [tier(undefined, 5000)],
      undefined,
      { windowMs: 5000, declared: false },
    ],
  ];
  for (const [label, tiers, limit, want] of table)
    it(label, () => {
      const got = tierOf(tiers, limit);
      assert.equal(got.limit, limit);
      assert.deepEqual({ windowMs: got.windowMs, declared: got.declared }, want);
    });
});

describe('tiersAfter (the tiers kept after an answer)', () => {
  it('replaces the tier said, keeps the others', () => {
    const after = tiersAfter([tier(20, 1000, 0), tier(600, 2000, 0)], tier(600, 30_000, 5000));
    assert.deepEqual(
      after.map((t) => [t.limit, t.windowMs, t.seenAt]),
      [
        [20, 1000, 0],
        [600, 30_000, 5000],
      ],
    );
  });
  it('drops a tier not said for TIER_FORGET_MS (a Limit the vendor changed)', () => {
    const after = tiersAfter([tier(600, 60_000, 0)], tier(1200, 60_000, TIER_FORGET_MS + 1));
    assert.deepEqual(
      after.map((t) => t.limit),
      [1200],
    );
    const kept = tiersAfter([tier(600, 60_000, 0)], tier(1200, 60_000, TIER_FORGET_MS));
    assert.deepEqual(
      kept.map((t) => t.limit),
      [600, 1200],
    );
  });
  it('keeps the MAX_TIERS said last (a Limit that moves on every answer)', () => {
    let tiers: QuotaTier[] = [];
    for (let i = 0; i < 20; i++) tiers = tiersAfter(tiers, tier(100 + i, 1000, i));
    assert.deepEqual(
      tiers.map((t) => t.limit).sort((a, b) => (a as number) - (b as number)),
      Array.from({ length: MAX_TIERS }, (_, i) => 100 + 20 - MAX_TIERS + i),
    );
  });
  it('drops the tier without a Limit once one is said (the same quota)', () => {
    const after = tiersAfter([tier(undefined, 10_000, 0)], tier(100, 10_000, 1));
    assert.deepEqual(
      after.map((t) => t.limit),
      [100],
    );
  });
});

describe('bindingTier (the quota that allows least)', () => {
  const table: ReadonlyArray<[string, QuotaTier[], number | undefined]> = [
    ['none', [], undefined],
    ['a tier without a window binds nothing', [tier(20, 0)], undefined],
    ['a tier without a Limit binds nothing', [tier(undefined, 1000)], undefined],
    ['one tier', [tier(20, 1000)], 20],
    ['20 a second and 600 a minute: the minute (10/s)', [tier(20, 1000), tier(600, 60_000)], 600],
    ['20 a second and 100 per 10 s: the 10 s (10/s)', [tier(100, 10_000), tier(20, 1000)], 100],
    [
      '10 a second and 1000 a minute: the second (10/s against 16.7/s)',
      [tier(10, 1000), tier(1000, 60_000)],
      10,
    ],
    [
      'a window read short is rounded as vendors configure (870 ms: 1 s)',
      [tier(20, 870), tier(25, 1000)],
      20,
    ],
  ];
  for (const [label, tiers, want] of table) it(label, () => assert.equal(bindingTier(tiers)?.limit, want));

  it('its rate is the least of the tiers with a Limit and a window (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            limit: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
            windowMs: fc.integer({ min: 0, max: 3_600_000 }),
          }),
          { maxLength: 6 },
        ),
        (raw) => {
          const tiers = raw.map((t) => tier(t.limit, t.windowMs));
          const rates = tiers
            .filter((t) => t.limit !== undefined && t.windowMs > 0)
            .map((t) => (t.limit as number) / roundWindow(t.windowMs));
          const b = bindingTier(tiers);
          if (rates.length === 0) return b === undefined;
          return b !== undefined && (b.limit as number) / roundWindow(b.windowMs) === Math.min(...rates);
        },
      ),
    );
  });
});
