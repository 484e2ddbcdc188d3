// MemoryStore against the RateStore contract as store.ts documents it, with every number
// worked out by hand as a token bucket (tokens refill at the rate, up to the burst) rather than
// as the GCRA the store keeps: take is all-or-nothing over the levels and returns the wait,
// peek spends nothing, adjust applies a vendor's pause, rate, cap, reset and budget, snapshot
// reads, evictIdle drops only levels equal to fresh ones.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type LevelSpec, MemoryStore } from './store.js';

const level = (id: string, ratePerSecond: number, burst: number): LevelSpec => ({ id, ratePerSecond, burst });
const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

describe('MemoryStore: a fresh level', () => {
  it('is full at its configured rate, unpaused', () => {
    const store = new MemoryStore();
    assert.deepEqual(store.snapshot(level('a', 4, 6), 123), { tokens: 6, ratePerSecond: 4, pausedUntil: 0 });
    assert.equal(store.size, 0, 'reading creates no state');
  });

  it('grants up to its burst at once, then one token per interval', () => {
    const store = new MemoryStore();
    const a = level('a', 4, 3);
    assert.equal(store.take([a], 3, 0), 0);
    assert.equal(store.size, 1);
    assert.equal(store.take([a], 1, 0), 250, 'one token at 4/s is 250 ms away');
    assert.equal(store.take([a], 2, 0), 500);
    assert.equal(store.take([a], 1, 250), 0);
    assert.equal(store.take([a], 1, 250), 250);
  });

  it('peek of a level never seen: 0 within the burst, the refill time of the rest beyond it', () => {
    const store = new MemoryStore();
    const a = level('a', 4, 3);
    assert.equal(store.peek([a], 3, 0), 0);
    assert.equal(store.peek([a], 1, 0), 0);
    assert.equal(store.peek([a], 5, 0), 500, 'two tokens beyond the burst at 4/s');
    assert.equal(store.size, 0, 'peek creates no state');
  });

  it('a cost above the burst waits for the tokens beyond the burst, then is granted', () => {
    const store = new MemoryStore();
    const a = level('a', 2, 2);
    assert.equal(store.take([a], 3, 0), 500);
    assert.equal(store.snapshot(a, 0).tokens, 2, 'a refused take spends nothing');
  });
});

describe('MemoryStore: take and peek', () => {
  it('refills at the rate up to the burst, fractions included', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 5);
    store.take([a], 5, 0);
    near(store.snapshot(a, 0).tokens, 0, 'after the burst');
    near(store.snapshot(a, 150).tokens, 1.5, '150 ms at 10/s');
    near(store.snapshot(a, 400).tokens, 4, '400 ms');
    near(store.snapshot(a, 10_000).tokens, 5, 'never past the burst');
    assert.equal(store.take([a], 2, 150), 50, 'half a token short');
    assert.equal(store.take([a], 2, 200), 0);
    near(store.snapshot(a, 200).tokens, 0, 'both spent');
  });

  it('is all-or-nothing over the levels: a refused take spends none of them', () => {
    const store = new MemoryStore();
    const account = level('acct', 10, 10);
    const payer = level('key:610014/ADV', 1, 1);
    assert.equal(store.take([account, payer], 1, 0), 0);
    assert.equal(store.take([account, payer], 1, 0), 1000, "the payer's next token is a second away");
    near(store.snapshot(account, 0).tokens, 9, 'the account lost only the granted take');
    assert.equal(store.take([account], 9, 0), 0, 'the account still holds its nine');
  });

  it('waits for the slowest level, and grants when every level can', () => {
    const store = new MemoryStore();
    const fast = level('fast', 10, 1);
    const slow = level('slow', 2, 1);
    store.take([fast, slow], 1, 0);
    assert.equal(store.take([slow, fast], 1, 0), 500);
    assert.equal(store.take([fast, slow], 1, 0), 500, 'in either order');
    assert.equal(store.peek([fast, slow], 1, 0), 500);
    assert.equal(store.take([fast, slow], 1, 500), 0);
    near(store.snapshot(fast, 500).tokens, 0, 'the fast level spent too');
    near(store.snapshot(slow, 500).tokens, 0, 'and the slow one');
  });

  it('peek answers what take would, and spends nothing', () => {
    const store = new MemoryStore();
    const a = level('a', 4, 2);
    const b = level('b', 1, 3);
    store.take([a, b], 2, 0);
    for (const [cost, now] of [
      [1, 0],
      [1, 100],
      [2, 250],
      [3, 0],
      [1, 1000],
    ] as const) {
      const seen = store.peek([a, b], cost, now);
      assert.equal(store.peek([a, b], cost, now), seen, 'peek twice, same answer');
      const copy = new MemoryStore();
      copy.take(
        [a, b].map((l) => ({ ...l })),
        2,
        0,
      );
      assert.equal(
        copy.take(
          [a, b].map((l) => ({ ...l })),
          cost,
          now,
        ),
        seen,
        `cost ${cost} at ${now}`,
      );
    }
    near(store.snapshot(a, 0).tokens, 0, 'peek spent nothing on a');
    near(store.snapshot(b, 0).tokens, 1, 'nor on b');
  });

  it('a level met through a new spec object with the same id is the same level', () => {
    const store = new MemoryStore();
    store.take([level('k', 1, 1)], 1, 0);
    assert.equal(store.take([level('k', 1, 1)], 1, 0), 1000);
    assert.equal(store.peek([level('k', 1, 1)], 1, 0), 1000);
    assert.equal(store.size, 1);
  });

  it('works with frozen level specs', () => {
    const store = new MemoryStore();
    const a = Object.freeze(level('a', 2, 1));
    assert.equal(store.take([a], 1, 0), 0);
    assert.equal(store.take([a], 1, 0), 500);
    assert.equal(store.take([a, Object.freeze(level('b', 2, 1))], 1, 500), 0);
  });

  it('a non-integral interval does not leave float noise as a wait', () => {
    const store = new MemoryStore();
    const a = level('a', 3, 1);
    let now = 0;
    for (let i = 0; i < 30; i++) {
      assert.equal(store.take([a], 1, now), 0, `take ${i} at ${now}`);
      now += 1000 / 3;
    }
    const b = level('b', 7, 1);
    for (let i = 0; i < 70; i++) assert.equal(store.take([b], 1, (i * 1000) / 7), 0, `7/s take ${i}`);
  });
});

describe('MemoryStore: adjust', () => {
  it('a pause holds every take until it ends, tokens or not; a shorter pause does not cut it', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 10);
    store.adjust(a, { pauseUntil: 2000 }, 0);
    assert.deepEqual(store.snapshot(a, 500), { tokens: 10, ratePerSecond: 10, pausedUntil: 2000 });
    assert.equal(store.take([a], 1, 500), 1500);
    assert.equal(store.peek([a], 1, 500), 1500);
    store.adjust(a, { pauseUntil: 1000 }, 500);
    assert.equal(store.snapshot(a, 500).pausedUntil, 2000, 'the later pause is kept');
    store.adjust(a, { pauseUntil: 3000 }, 500);
    assert.equal(store.snapshot(a, 500).pausedUntil, 3000, 'a longer one extends it');
    assert.equal(store.snapshot(a, 3000).pausedUntil, 0, 'over at its end');
    assert.equal(store.take([a], 1, 3000), 0);
  });

  it('a pause on one level holds a take over several', () => {
    const store = new MemoryStore();
    const account = level('acct', 10, 10);
    const payer = level('p', 10, 10);
    store.adjust(payer, { pauseUntil: 700 }, 0);
    assert.equal(store.take([account, payer], 1, 100), 600);
    near(store.snapshot(account, 100).tokens, 10, 'the account spent nothing');
  });

  it('a new rate keeps the debt in tokens and paces at the new rate', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 10);
    store.take([a], 10, 0);
    store.adjust(a, { ratePerSecond: 5 }, 0);
    const s = store.snapshot(a, 0);
    near(s.tokens, 0, 'still empty');
    assert.equal(s.ratePerSecond, 5);
    assert.equal(store.take([a], 1, 0), 200, 'one token at 5/s');
    near(store.snapshot(a, 1000).tokens, 5, 'a second at 5/s');
    near(store.snapshot(a, 2000).tokens, 10, 'full again after two');
  });

  it('a new rate on a half-spent level keeps what was left', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 10);
    store.take([a], 4, 0);
    store.adjust(a, { ratePerSecond: 2 }, 0);
    near(store.snapshot(a, 0).tokens, 6, 'six tokens left');
    near(store.snapshot(a, 1000).tokens, 8, 'two a second now');
    store.adjust(a, { ratePerSecond: 40 }, 1000);
    near(store.snapshot(a, 1000).tokens, 8, 'a faster rate does not add tokens');
    near(store.snapshot(a, 1025).tokens, 9, '40/s from here');
  });

  it('a cap lowers the tokens to what the vendor says remain, never raises them, and stays within 0..burst', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 10);
    store.adjust(a, { capTokens: 3 }, 0);
    near(store.snapshot(a, 0).tokens, 3, 'capped to 3');
    assert.equal(store.take([a], 4, 0), 100, 'the fourth token is a tenth of a second away');
    store.adjust(a, { capTokens: 8 }, 0);
    near(store.snapshot(a, 0).tokens, 3, 'a cap above what is held adds nothing');
    store.adjust(a, { capTokens: -5 }, 0);
    near(store.snapshot(a, 0).tokens, 0, 'a negative remaining holds none');
    const b = level('b', 10, 10);
    store.adjust(b, { capTokens: 50 }, 0);
    near(store.snapshot(b, 0).tokens, 10, 'a cap above the burst leaves it full');
    near(store.snapshot(a, 500).tokens, 5, 'a capped level refills at its rate');
  });

  it('a reset with no takes so far leaves a full level full; a reset does not lift a pause', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 5);
    store.adjust(a, { fill: true }, 0);
    near(store.snapshot(a, 0).tokens, 5, 'full');
    store.adjust(a, { pauseUntil: 900, capTokens: 0 }, 0);
    store.adjust(a, { fill: true, pauseUntil: 500 }, 100);
    assert.equal(store.snapshot(a, 100).pausedUntil, 900);
  });

  it('a reset gives back what the configured rate allows after an adapted rate slowed it', () => {
    const store = new MemoryStore();
    const a = level('a', 10, 10);
    store.take([a], 10, 0);
    store.adjust(a, { ratePerSecond: 1 }, 0);
    // At 1/s the level would hold 0.5 token at 500 ms; the configured 10/s would hold 5.
    store.adjust(a, { fill: true }, 500);
    near(store.snapshot(a, 500).tokens, 5, 'what 10/s allows after the takes');
    assert.equal(store.snapshot(a, 500).ratePerSecond, 1, 'the adapted rate stays');
  });

  it('a budget lets `count` more go before `until`, then waits for `until`', () => {
    const store = new MemoryStore();
    const a = level('a', 100, 10);
    store.adjust(a, { budget: { count: 2, until: 1000 } }, 0);
    assert.equal(store.take([a], 1, 0), 0);
    assert.equal(store.take([a], 1, 10), 0);
    assert.equal(store.peek([a], 1, 20), 980, 'the budget is spent: wait for its end');
    assert.equal(store.take([a], 1, 20), 980);
    assert.equal(store.take([a], 1, 1000), 0, 'its end frees the level');
    assert.equal(store.take([a], 5, 1000), 0);
  });

  it('a budget of one does not grant a take of two', () => {
    const store = new MemoryStore();
    const a = level('a', 100, 10);
    store.adjust(a, { budget: { count: 1, until: 400 } }, 0);
    assert.equal(store.take([a], 2, 0), 400);
    assert.equal(store.take([a], 1, 0), 0);
  });

  it('a budget counts takes over several levels, and a longer token wait wins over it', () => {
    const store = new MemoryStore();
    const account = level('acct', 1, 1);
    const payer = level('p', 100, 10);
    store.adjust(payer, { budget: { count: 5, until: 300 } }, 0);
    assert.equal(store.take([account, payer], 1, 0), 0);
    assert.equal(
      store.take([account, payer], 1, 0),
      1000,
      "the account's token is further than the budget's end",
    );
    store.adjust(payer, { budget: { count: 1, until: 2000 } }, 0);
    assert.equal(store.take([payer], 1, 0), 0);
    assert.equal(store.take([payer], 1, 0), 2000);
  });

  it('a budget whose end has passed limits nothing', () => {
    const store = new MemoryStore();
    const a = level('a', 100, 10);
    store.adjust(a, { budget: { count: 0, until: 100 } }, 0);
    assert.equal(store.take([a], 1, 50), 50);
    assert.equal(store.take([a], 1, 100), 0);
    assert.equal(store.take([a], 1, 5000), 0);
  });
});

describe('MemoryStore: evictIdle', () => {
  it('drops levels equal to fresh ones and counts them; keeps the others', () => {
    const store = new MemoryStore();
    const idle = level('idle', 10, 10);
    const owing = level('owing', 1, 1);
    const paused = level('paused', 10, 10);
    const budgeted = level('budgeted', 10, 10);
    const adapted = level('adapted', 10, 10);
    store.take([idle], 1, 0);
    store.take([owing], 1, 0);
    store.adjust(paused, { pauseUntil: 5000 }, 0);
    store.adjust(budgeted, { budget: { count: 3, until: 5000 } }, 0);
    store.adjust(adapted, { ratePerSecond: 5 }, 0);
    assert.equal(store.size, 5);
    assert.equal(store.evictIdle(100), 1, 'only the refilled level');
    assert.equal(store.size, 4);
    assert.equal(store.evictIdle(1000), 1, "the 1/s level's token came back");
    assert.equal(store.size, 3);
    assert.equal(store.evictIdle(5000), 2, 'the pause and the budget are over');
    assert.equal(store.size, 1);
    assert.equal(store.snapshot(adapted, 5000).ratePerSecond, 5, 'an adapted rate is information: kept');
    store.adjust(adapted, { ratePerSecond: 10 }, 5000);
    assert.equal(store.evictIdle(5000), 1, 'back at its configured rate it is a fresh level');
    assert.equal(store.size, 0);
    assert.equal(store.evictIdle(5000), 0);
  });

  it('a level just at its refill time is idle; a moment before, it is not', () => {
    const store = new MemoryStore();
    const a = level('a', 4, 2);
    store.take([a], 1, 0);
    assert.equal(store.evictIdle(249), 0);
    assert.equal(store.evictIdle(250), 1);
  });

  it('an evicted level comes back fresh through the same spec object, and is counted again', () => {
    const store = new MemoryStore();
    const a = level('a', 1, 2);
    store.take([a], 2, 0);
    assert.equal(store.evictIdle(2000), 1);
    assert.equal(store.take([a], 2, 2000), 0, 'a full burst again');
    assert.equal(store.size, 1);
    assert.equal(store.take([a], 1, 2000), 1000, 'and the state is kept in the store');
    assert.equal(store.peek([a], 1, 2000), 1000);
    near(store.snapshot(a, 2000).tokens, 0, 'snapshot sees the same level');
  });
});

describe('MemoryStore: takes over several levels keep what one level would', () => {
  it('a budget counts the takes made together with the account', () => {
    const store = new MemoryStore();
    const account = level('acct', 100, 50);
    const payer = level('p', 100, 10);
    store.adjust(payer, { budget: { count: 2, until: 1000 } }, 0);
    assert.equal(store.take([account, payer], 1, 0), 0);
    assert.equal(store.take([account, payer], 1, 0), 0);
    assert.equal(store.take([account, payer], 1, 100), 900, 'the payer’s budget is spent until its end');
    assert.equal(store.take([account], 1, 100), 0, 'the account alone has no budget');
  });

  it('a reset after takes made together gives back what the configured rate allows', () => {
    const store = new MemoryStore();
    const account = level('acct', 100, 50);
    const payer = level('p', 10, 10);
    store.take([account, payer], 10, 0);
    store.adjust(payer, { capTokens: 0 }, 0);
    store.adjust(payer, { fill: true }, 500);
    near(store.snapshot(payer, 500).tokens, 5, 'half a second at 10/s');
    store.take([account, payer], 1, 10_000);
    store.adjust(payer, { capTokens: 0 }, 10_000);
    store.adjust(payer, { fill: true }, 10_050);
    near(store.snapshot(payer, 10_050).tokens, 9.5, 'the take at 10 s, half paid back 50 ms later');
  });

  it('a reset counts the configured debt from the last take, not from an earlier idle moment', () => {
    const store = new MemoryStore();
    const a = level('a', 1, 3);
    store.take([a], 3, 0);
    store.take([a], 1, 10_000);
    store.adjust(a, { capTokens: 0 }, 10_000);
    store.adjust(a, { fill: true }, 10_500);
    near(store.snapshot(a, 10_500).tokens, 2.5, 'the take at 10 s is half paid back at 10.5 s');
  });
});
