// Every store (MemoryStore, and RedisStore on a real redis-server) against the RateStore
// contract as store.ts documents it, with every number
// worked out by hand as a token bucket (tokens refill at the rate, up to the burst) rather than
// as the GCRA the store keeps: take is all-or-nothing over the levels and returns the wait,
// peek spends nothing, adjust applies a vendor's pause, rate, cap, reset and budget, snapshot
// reads, evictIdle drops only levels equal to fresh ones.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type LevelSpec, MemoryStore, type RateStore } from './store.js';
import { openStores, type StoreKind } from './test-support/stores.js';

const level = (id: string, ratePerSecond: number, burst: number): LevelSpec => ({ id, ratePerSecond, burst });
const near = (actual: number, expected: number, what: string) =>
  assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual}, expected ${expected}`);

const stores = await openStores();
after(() => stores.close());

for (const kind of stores.kinds) contract(kind);

function contract(kind: StoreKind): void {
  describe(`${kind.name} store: a fresh level`, () => {
    it('is full at its configured rate, unpaused', async () => {
      const store: RateStore = kind.make();
      assert.deepEqual(await store.snapshot(level('a', 4, 6), 123), {
        tokens: 6,
        ratePerSecond: 4,
        pausedUntil: 0,
      });
      if (store instanceof MemoryStore) assert.equal(store.size, 0, 'reading creates no state');
    });

    it('grants up to its burst at once, then one token per interval', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 4, 3);
      assert.equal(await store.take([a], 3, 0), 0);
      if (store instanceof MemoryStore) assert.equal(store.size, 1);
      assert.equal(await store.take([a], 1, 0), 250, 'one token at 4/s is 250 ms away');
      assert.equal(await store.take([a], 2, 0), 500);
      assert.equal(await store.take([a], 1, 250), 0);
      assert.equal(await store.take([a], 1, 250), 250);
    });

    it('peek of a level never seen: 0 within the burst, the refill time of the rest beyond it', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 4, 3);
      assert.equal(await store.peek([a], 3, 0), 0);
      assert.equal(await store.peek([a], 1, 0), 0);
      assert.equal(await store.peek([a], 5, 0), 500, 'two tokens beyond the burst at 4/s');
      if (store instanceof MemoryStore) assert.equal(store.size, 0, 'peek creates no state');
    });

    it('a cost above the burst waits for the tokens beyond the burst, then is granted', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 2, 2);
      assert.equal(await store.take([a], 3, 0), 500);
      assert.equal((await store.snapshot(a, 0)).tokens, 2, 'a refused take spends nothing');
    });
  });

  describe(`${kind.name} store: take and peek`, () => {
    it('refills at the rate up to the burst, fractions included', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 5);
      await store.take([a], 5, 0);
      near((await store.snapshot(a, 0)).tokens, 0, 'after the burst');
      near((await store.snapshot(a, 150)).tokens, 1.5, '150 ms at 10/s');
      near((await store.snapshot(a, 400)).tokens, 4, '400 ms');
      near((await store.snapshot(a, 10_000)).tokens, 5, 'never past the burst');
      assert.equal(await store.take([a], 2, 150), 50, 'half a token short');
      assert.equal(await store.take([a], 2, 200), 0);
      near((await store.snapshot(a, 200)).tokens, 0, 'both spent');
    });

    it('is all-or-nothing over the levels: a refused take spends none of them', async () => {
      const store: RateStore = kind.make();
      const account = level('acct', 10, 10);
      const payer = level('key:610014/ADV', 1, 1);
      assert.equal(await store.take([account, payer], 1, 0), 0);
      assert.equal(await store.take([account, payer], 1, 0), 1000, "the payer's next token is a second away");
      near((await store.snapshot(account, 0)).tokens, 9, 'the account lost only the granted take');
      assert.equal(await store.take([account], 9, 0), 0, 'the account still holds its nine');
    });

    it('waits for the slowest level, and grants when every level can', async () => {
      const store: RateStore = kind.make();
      const fast = level('fast', 10, 1);
      const slow = level('slow', 2, 1);
      await store.take([fast, slow], 1, 0);
      assert.equal(await store.take([slow, fast], 1, 0), 500);
      assert.equal(await store.take([fast, slow], 1, 0), 500, 'in either order');
      assert.equal(await store.peek([fast, slow], 1, 0), 500);
      assert.equal(await store.take([fast, slow], 1, 500), 0);
      near((await store.snapshot(fast, 500)).tokens, 0, 'the fast level spent too');
      near((await store.snapshot(slow, 500)).tokens, 0, 'and the slow one');
    });

    it('peek answers what take would, and spends nothing', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 4, 2);
      const b = level('b', 1, 3);
      await store.take([a, b], 2, 0);
      for (const [cost, now] of [
        [1, 0],
        [1, 100],
        [2, 250],
        [3, 0],
        [1, 1000],
      ] as const) {
        const seen = await store.peek([a, b], cost, now);
        assert.equal(await store.peek([a, b], cost, now), seen, 'peek twice, same answer');
        const copy = kind.make();
        await copy.take(
          [a, b].map((l) => ({ ...l })),
          2,
          0,
        );
        assert.equal(
          await copy.take(
            [a, b].map((l) => ({ ...l })),
            cost,
            now,
          ),
          seen,
          `cost ${cost} at ${now}`,
        );
      }
      near((await store.snapshot(a, 0)).tokens, 0, 'peek spent nothing on a');
      near((await store.snapshot(b, 0)).tokens, 1, 'nor on b');
    });

    it('a level met through a new spec object with the same id is the same level', async () => {
      const store: RateStore = kind.make();
      await store.take([level('k', 1, 1)], 1, 0);
      assert.equal(await store.take([level('k', 1, 1)], 1, 0), 1000);
      assert.equal(await store.peek([level('k', 1, 1)], 1, 0), 1000);
      if (store instanceof MemoryStore) assert.equal(store.size, 1);
    });

    it('works with frozen level specs', async () => {
      const store: RateStore = kind.make();
      const a = Object.freeze(level('a', 2, 1));
      assert.equal(await store.take([a], 1, 0), 0);
      assert.equal(await store.take([a], 1, 0), 500);
      assert.equal(await store.take([a, Object.freeze(level('b', 2, 1))], 1, 500), 0);
    });

    it('a non-integral interval does not leave float noise as a wait', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 3, 1);
      let now = 0;
      for (let i = 0; i < 30; i++) {
        assert.equal(await store.take([a], 1, now), 0, `take ${i} at ${now}`);
        now += 1000 / 3;
      }
      const b = level('b', 7, 1);
      for (let i = 0; i < 70; i++) assert.equal(await store.take([b], 1, (i * 1000) / 7), 0, `7/s take ${i}`);
    });
  });

  describe(`${kind.name} store: adjust`, () => {
    it('a pause holds every take until it ends, tokens or not; a shorter pause does not cut it', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 10);
      await store.adjust(a, { pauseUntil: 2000 }, 0);
      assert.deepEqual(await store.snapshot(a, 500), { tokens: 10, ratePerSecond: 10, pausedUntil: 2000 });
      assert.equal(await store.take([a], 1, 500), 1500);
      assert.equal(await store.peek([a], 1, 500), 1500);
      await store.adjust(a, { pauseUntil: 1000 }, 500);
      assert.equal((await store.snapshot(a, 500)).pausedUntil, 2000, 'the later pause is kept');
      await store.adjust(a, { pauseUntil: 3000 }, 500);
      assert.equal((await store.snapshot(a, 500)).pausedUntil, 3000, 'a longer one extends it');
      assert.equal((await store.snapshot(a, 3000)).pausedUntil, 0, 'over at its end');
      assert.equal(await store.take([a], 1, 3000), 0);
    });

    it('a pause on one level holds a take over several', async () => {
      const store: RateStore = kind.make();
      const account = level('acct', 10, 10);
      const payer = level('p', 10, 10);
      await store.adjust(payer, { pauseUntil: 700 }, 0);
      assert.equal(await store.take([account, payer], 1, 100), 600);
      near((await store.snapshot(account, 100)).tokens, 10, 'the account spent nothing');
    });

    it('a new rate keeps the debt in tokens and paces at the new rate', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 10);
      await store.take([a], 10, 0);
      await store.adjust(a, { ratePerSecond: 5 }, 0);
      const s = await store.snapshot(a, 0);
      near(s.tokens, 0, 'still empty');
      assert.equal(s.ratePerSecond, 5);
      assert.equal(await store.take([a], 1, 0), 200, 'one token at 5/s');
      near((await store.snapshot(a, 1000)).tokens, 5, 'a second at 5/s');
      near((await store.snapshot(a, 2000)).tokens, 10, 'full again after two');
    });

    it('a new rate on a half-spent level keeps what was left', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 10);
      await store.take([a], 4, 0);
      await store.adjust(a, { ratePerSecond: 2 }, 0);
      near((await store.snapshot(a, 0)).tokens, 6, 'six tokens left');
      near((await store.snapshot(a, 1000)).tokens, 8, 'two a second now');
      await store.adjust(a, { ratePerSecond: 40 }, 1000);
      near((await store.snapshot(a, 1000)).tokens, 8, 'a faster rate does not add tokens');
      near((await store.snapshot(a, 1025)).tokens, 9, '40/s from here');
    });

    it('a cap lowers the tokens to what the vendor says remain, never raises them, and stays within 0..burst', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 10);
      await store.adjust(a, { capTokens: 3 }, 0);
      near((await store.snapshot(a, 0)).tokens, 3, 'capped to 3');
      assert.equal(await store.take([a], 4, 0), 100, 'the fourth token is a tenth of a second away');
      await store.adjust(a, { capTokens: 8 }, 0);
      near((await store.snapshot(a, 0)).tokens, 3, 'a cap above what is held adds nothing');
      await store.adjust(a, { capTokens: -5 }, 0);
      near((await store.snapshot(a, 0)).tokens, 0, 'a negative remaining holds none');
      const b = level('b', 10, 10);
      await store.adjust(b, { capTokens: 50 }, 0);
      near((await store.snapshot(b, 0)).tokens, 10, 'a cap above the burst leaves it full');
      near((await store.snapshot(a, 500)).tokens, 5, 'a capped level refills at its rate');
    });

    it('a reset with no takes so far leaves a full level full; a reset does not lift a pause', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 5);
      await store.adjust(a, { fill: true }, 0);
      near((await store.snapshot(a, 0)).tokens, 5, 'full');
      await store.adjust(a, { pauseUntil: 900, capTokens: 0 }, 0);
      await store.adjust(a, { fill: true, pauseUntil: 500 }, 100);
      assert.equal((await store.snapshot(a, 100)).pausedUntil, 900);
    });

    it('a reset gives back what the configured rate allows after an adapted rate slowed it', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 10, 10);
      await store.take([a], 10, 0);
      await store.adjust(a, { ratePerSecond: 1 }, 0);
      // At 1/s the level would hold 0.5 token at 500 ms; the configured 10/s would hold 5.
      await store.adjust(a, { fill: true }, 500);
      near((await store.snapshot(a, 500)).tokens, 5, 'what 10/s allows after the takes');
      assert.equal((await store.snapshot(a, 500)).ratePerSecond, 1, 'the adapted rate stays');
    });

    it('a budget lets `count` more go before `until`, then waits for `until`', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 100, 10);
      await store.adjust(a, { budget: { count: 2, until: 1000 } }, 0);
      assert.equal(await store.take([a], 1, 0), 0);
      assert.equal(await store.take([a], 1, 10), 0);
      assert.equal(await store.peek([a], 1, 20), 980, 'the budget is spent: wait for its end');
      assert.equal(await store.take([a], 1, 20), 980);
      assert.equal(await store.take([a], 1, 1000), 0, 'its end frees the level');
      assert.equal(await store.take([a], 5, 1000), 0);
    });

    it('a budget of one does not grant a take of two', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 100, 10);
      await store.adjust(a, { budget: { count: 1, until: 400 } }, 0);
      assert.equal(await store.take([a], 2, 0), 400);
      assert.equal(await store.take([a], 1, 0), 0);
    });

    it('a budget counts takes over several levels, and a longer token wait wins over it', async () => {
      const store: RateStore = kind.make();
      const account = level('acct', 1, 1);
      const payer = level('p', 100, 10);
      await store.adjust(payer, { budget: { count: 5, until: 300 } }, 0);
      assert.equal(await store.take([account, payer], 1, 0), 0);
      assert.equal(
        await store.take([account, payer], 1, 0),
        1000,
        "the account's token is further than the budget's end",
      );
      await store.adjust(payer, { budget: { count: 1, until: 2000 } }, 0);
      assert.equal(await store.take([payer], 1, 0), 0);
      assert.equal(await store.take([payer], 1, 0), 2000);
    });

    it("a spent budget that ends before the level's own next token: the token's wait", async () => {
      const store: RateStore = kind.make();
      const a = level('a', 1, 1);
      assert.equal(await store.take([a], 1, 0), 0);
      await store.adjust(a, { budget: { count: 0, until: 300 } }, 0);
      assert.equal(await store.take([a], 1, 0), 1000, 'the token is further than the end of the budget');
      assert.equal(await store.peek([a], 1, 100), 900);
    });

    it('a budget whose end has passed limits nothing', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 100, 10);
      await store.adjust(a, { budget: { count: 0, until: 100 } }, 0);
      assert.equal(await store.take([a], 1, 50), 50);
      assert.equal(await store.take([a], 1, 100), 0);
      assert.equal(await store.take([a], 1, 5000), 0);
    });
  });

  describe(`${kind.name} store: takes over several levels keep what one level would`, () => {
    it('a budget counts the takes made together with the account', async () => {
      const store: RateStore = kind.make();
      const account = level('acct', 100, 50);
      const payer = level('p', 100, 10);
      await store.adjust(payer, { budget: { count: 2, until: 1000 } }, 0);
      assert.equal(await store.take([account, payer], 1, 0), 0);
      assert.equal(await store.take([account, payer], 1, 0), 0);
      assert.equal(
        await store.take([account, payer], 1, 100),
        900,
        'the payer’s budget is spent until its end',
      );
      assert.equal(await store.take([account], 1, 100), 0, 'the account alone has no budget');
    });

    it('a reset after takes made together gives back what the configured rate allows', async () => {
      const store: RateStore = kind.make();
      const account = level('acct', 100, 50);
      const payer = level('p', 10, 10);
      await store.take([account, payer], 10, 0);
      await store.adjust(payer, { capTokens: 0 }, 0);
      await store.adjust(payer, { fill: true }, 500);
      near((await store.snapshot(payer, 500)).tokens, 5, 'half a second at 10/s');
      await store.take([account, payer], 1, 10_000);
      await store.adjust(payer, { capTokens: 0 }, 10_000);
      await store.adjust(payer, { fill: true }, 10_050);
      near((await store.snapshot(payer, 10_050)).tokens, 9.5, 'the take at 10 s, half paid back 50 ms later');
    });

    it('a reset counts the configured debt from the last take, not from an earlier idle moment', async () => {
      const store: RateStore = kind.make();
      const a = level('a', 1, 3);
      await store.take([a], 3, 0);
      await store.take([a], 1, 10_000);
      await store.adjust(a, { capTokens: 0 }, 10_000);
      await store.adjust(a, { fill: true }, 10_500);
      near((await store.snapshot(a, 10_500)).tokens, 2.5, 'the take at 10 s is half paid back at 10.5 s');
    });
  });
}

describe('MemoryStore: evictIdle', () => {
  it('drops levels equal to fresh ones and counts them; keeps the others', async () => {
    const store = new MemoryStore();
    const idle = level('idle', 10, 10);
    const owing = level('owing', 1, 1);
    const paused = level('paused', 10, 10);
    const budgeted = level('budgeted', 10, 10);
    const adapted = level('adapted', 10, 10);
    await store.take([idle], 1, 0);
    await store.take([owing], 1, 0);
    await store.adjust(paused, { pauseUntil: 5000 }, 0);
    await store.adjust(budgeted, { budget: { count: 3, until: 5000 } }, 0);
    await store.adjust(adapted, { ratePerSecond: 5 }, 0);
    assert.equal(store.size, 5);
    assert.equal(await store.evictIdle(100), 1, 'only the refilled level');
    assert.equal(store.size, 4);
    assert.equal(await store.evictIdle(1000), 1, "the 1/s level's token came back");
    assert.equal(store.size, 3);
    assert.equal(await store.evictIdle(5000), 2, 'the pause and the budget are over');
    assert.equal(store.size, 1);
    assert.equal(
      (await store.snapshot(adapted, 5000)).ratePerSecond,
      5,
      'an adapted rate is information: kept',
    );
    await store.adjust(adapted, { ratePerSecond: 10 }, 5000);
    assert.equal(await store.evictIdle(5000), 1, 'back at its configured rate it is a fresh level');
    assert.equal(store.size, 0);
    assert.equal(await store.evictIdle(5000), 0);
  });

  it('a level just at its refill time is idle; a moment before, it is not', async () => {
    const store = new MemoryStore();
    const a = level('a', 4, 2);
    await store.take([a], 1, 0);
    assert.equal(await store.evictIdle(249), 0);
    assert.equal(await store.evictIdle(250), 1);
  });

  it('an evicted level comes back fresh through the same spec object, and is counted again', async () => {
    const store = new MemoryStore();
    const a = level('a', 1, 2);
    await store.take([a], 2, 0);
    assert.equal(await store.evictIdle(2000), 1);
    assert.equal(await store.take([a], 2, 2000), 0, 'a full burst again');
    assert.equal(store.size, 1);
    assert.equal(await store.take([a], 1, 2000), 1000, 'and the state is kept in the store');
    assert.equal(await store.peek([a], 1, 2000), 1000);
    near((await store.snapshot(a, 2000)).tokens, 0, 'snapshot sees the same level');
  });
});
