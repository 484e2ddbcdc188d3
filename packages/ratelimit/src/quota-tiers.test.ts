import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  bindingTier,
  LIVE_MIN_MS,
  MAX_TIERS,
  type QuotaTier,
  sameQuota,
  TIER_FORGET_MS,
  tierLive,
  tierOf,
  tiersAfter,
  tiersAfterRemaining,
  tiersDeclared,
  tiersWithDeclared,
} from './quota-tiers.js';
import { roundWindow } from './round-window.js';

const tier = (limit: number | undefined, windowMs: number, seenAt = 0, declared = false): QuotaTier => ({
  limit,
  key: limit,
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

describe('sameQuota and a Limit that moves a little', () => {
  const table: ReadonlyArray<[number | undefined, number | undefined, boolean]> = [
    [100, 100, true],
    [100, 110, true],
    [90, 100, true],
    [100, 112, false],
    [20, 600, false],
    [undefined, undefined, true],
    [undefined, 100, false],
  ];
  for (const [a, b, want] of table) it(`${a} and ${b}: ${want}`, () => assert.equal(sameQuota(a, b), want));

  it('a Limit within 10 % of a tier is that tier, its Limit moved (its key and window kept)', () => {
    const got = tierOf([tier(100, 10_000, 5)], 104);
    assert.deepEqual(got, { limit: 104, key: 100, windowMs: 10_000, declared: false, seenAt: 5 });
    // the nearest of two
    assert.equal(tierOf([tier(100, 10_000), tier(108, 10_000)], 106).key, 108);
    // not one declared over another window than the answer declares
    assert.equal(tierOf([tier(100, 60_000, 0, true)], 104, 1000).key, 104);
    assert.equal(tierOf([tier(100, 60_000, 0, true)], 104, 60_000).key, 100);
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
  it('drops another Limit declared over the same window (that quota changed), not one read from resets', () => {
    const declared = tiersAfter([tier(600, 60_000, 0, true)], tier(1200, 60_000, 1, true));
    assert.deepEqual(
      declared.map((t) => t.limit),
      [1200],
    );
    const read = tiersAfter([tier(20, 1000, 0)], tier(600, 1000, 1));
    assert.deepEqual(
      read.map((t) => t.limit),
      [20, 600],
    );
  });
  it('tiersAfterRemaining: an answer with more left than a Limit rules out that quota, unless declared', () => {
    const tiers = [tier(600, 60_000), tier(1200, 60_000), tier(20, 1000, 0, true)];
    assert.deepEqual(
      tiersAfterRemaining(tiers, 1200, 1150).map((t) => t.limit),
      [1200, 20],
    );
    assert.deepEqual(
      tiersAfterRemaining(tiers, 1200, 600).map((t) => t.limit),
      [600, 1200, 20],
    );
  });
  it('tiersWithDeclared: a tier per quota declared (the longest window of one Limit), none it leaves out', () => {
    const reported = tier(20, 1000, 5, true);
    const got = tiersWithDeclared(
      [tier(300, 60_000, 0, true), reported],
      [
        { limit: 20, windowSeconds: 1 },
        { limit: 600, windowSeconds: 10 },
        { limit: 600, windowSeconds: 60 },
        { limit: 0, windowSeconds: 60 },
        { limit: 50, windowSeconds: Number.NaN },
      ],
      20,
      5,
      300_000,
    );
    assert.deepEqual(
      got.map((t) => [t.limit, t.windowMs, t.declared, t.seenAt]),
      [
        [20, 1000, true, 5],
        [600, 60_000, true, 5],
      ],
    );
  });
  it('tiersDeclared: a declaration of every quota leaves out the others', () => {
    const tiers = [tier(20, 1000), tier(600, 60_000), tier(1200, 60_000)];
    assert.deepEqual(
      tiersDeclared(tiers, new Set([20, 1200])).map((t) => t.limit),
      [20, 1200],
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
  for (const [label, tiers, want] of table) it(label, () => assert.equal(bindingTier(tiers, 0)?.limit, want));

  it('a tier not said for two of its windows (2 s at least) is no longer in force: a Limit lowered for a while, then restored', () => {
    // A quarter of 20 a second said until 10 s, the full 20 since.
    const tiers = [tier(5, 1000, 10_000), tier(20, 1000, 12_001)];
    assert.equal(bindingTier(tiers, 12_000)?.limit, 5);
    assert.equal(bindingTier(tiers, 12_001)?.limit, 20);
    // A minute's quota said once a minute (as the one with least left, late in each) stays in force.
    assert.ok(tierLive(tier(600, 60_000, 0), 120_000));
    assert.ok(!tierLive(tier(600, 60_000, 0), 120_001));
    assert.ok(tierLive(tier(20, 500, 0), LIVE_MIN_MS));
    assert.ok(!tierLive(tier(20, 500, 0), LIVE_MIN_MS + 1));
  });

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
          const b = bindingTier(tiers, 0);
          if (rates.length === 0) return b === undefined;
          return b !== undefined && (b.limit as number) / roundWindow(b.windowMs) === Math.min(...rates);
        },
      ),
    );
  });
});
