import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { isDeadlineExceededError, isInvalidOptionError } from './errors.js';
import type { LimiterEvent } from './events.js';
import { createLimiter, type LimiterOptions } from './limiter.js';
import { MemoryStore } from './store.js';

function setup(extra: Partial<LimiterOptions> = {}) {
  const clock = new VirtualClock();
  const events: LimiterEvent[] = [];
  const store = new MemoryStore();
  const limiter = createLimiter({
    account: { ratePerSecond: 10, burst: 10 },
    perKey: { default: { ratePerSecond: 2, burst: 2 }, overrides: { slow: { ratePerSecond: 1, burst: 1 } } },
    clock,
    store,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { clock, limiter, events, store };
}

describe('createLimiter', () => {
  it('takes the account and the key together: a claim waiting on its key spends no account token', async () => {
    const { clock, limiter } = setup();
    await limiter.acquire({ key: 'slow' });
    const waitingOnKey = limiter.acquire({ key: 'slow' });
    await clock.advance(500);
    // The account still holds 9 tokens: nothing was taken for the waiting claim.
    assert.equal((await limiter.snapshot()).tokens, 10);
    await clock.advance(500);
    await waitingOnKey;
    assert.equal((await limiter.snapshot()).tokens, 9);
  });

  it('one key waiting never holds up another key', async () => {
    const { clock, limiter } = setup();
    await limiter.acquire({ key: 'slow' });
    const order: string[] = [];
    const a = limiter.acquire({ key: 'slow' }).then(() => order.push(`slow@${clock.now()}`));
    const b = limiter.acquire({ key: 'fast' }).then(() => order.push(`fast@${clock.now()}`));
    await clock.runAll();
    await Promise.all([a, b]);
    assert.deepEqual(order, ['fast@0', 'slow@1000']);
  });

  it('the account bounds the sum of keys', async () => {
    const { clock, limiter } = setup({ perKey: { default: { ratePerSecond: 100, burst: 100 } } });
    const times: number[] = [];
    const all = Array.from({ length: 30 }, (_, i) =>
      limiter.acquire({ key: `k${i % 5}` }).then(() => times.push(clock.now())),
    );
    await clock.runAll();
    await Promise.all(all);
    assert.equal(times.filter((t) => t === 0).length, 10);
    assert.equal(times.at(-1), 2000);
  });

  it('a per-key override applies to that key only', async () => {
    const { limiter } = setup();
    assert.ok(await limiter.tryAcquire({ key: 'slow' }));
    assert.equal(await limiter.tryAcquire({ key: 'slow' }), undefined);
    assert.ok(await limiter.tryAcquire({ key: 'other' }));
    assert.ok(await limiter.tryAcquire({ key: 'other' }));
    assert.equal(await limiter.tryAcquire({ key: 'other' }), undefined);
  });

  it('caps concurrency at the account and the key, and run releases', async () => {
    const { clock, limiter } = setup({
      account: { ratePerSecond: 1000, burst: 1000, concurrency: 2 },
      perKey: { default: { ratePerSecond: 1000, burst: 1000, concurrency: 1 } },
    });
    const a = await limiter.acquire({ key: 'x' });
    assert.equal(await limiter.tryAcquire({ key: 'x' }), undefined, 'key cap');
    const b = await limiter.acquire({ key: 'y' });
    assert.equal(await limiter.tryAcquire({ key: 'z' }), undefined, 'account cap');
    let ran = false;
    const c = limiter.run('z', async () => {
      ran = true;
      return 7;
    });
    await clock.advance(0);
    assert.equal(ran, false);
    a.release();
    assert.equal(await c, 7);
    b.release();
    assert.equal((await limiter.snapshot()).inFlight, 0);
  });

  it('fails fast on the predicted wait of either level', async () => {
    const { clock, limiter } = setup();
    await limiter.acquire({ key: 'slow' });
    await assert.rejects(limiter.acquire({ key: 'slow', deadline: clock.now() + 999 }), (e) => {
      assert.ok(isDeadlineExceededError(e));
      assert.equal(e.predictedWaitMs, 1000);
      return true;
    });
    for (let i = 0; i < 9; i++) assert.ok(await limiter.tryAcquire({ key: `k${i}` }));
    // Account empty: the next token comes in 100 ms.
    assert.equal(await limiter.predictWait({ key: 'fresh' }), 100);
  });

  it('a Retry-After on the account pauses every key', async () => {
    const { clock, limiter, events } = setup();
    limiter.observe({ retryAfterMs: 3000, throttled: true });
    const times: number[] = [];
    const all = ['a', 'b', 'c'].map((key) => limiter.acquire({ key }).then(() => times.push(clock.now())));
    await clock.runAll();
    await Promise.all(all);
    // One request probes when the pause ends; the rest follow at the account's pace, which the
    // throttle cut to 9/s on its way back to 9.9/s (just under the rate that was throttled).
    assert.deepEqual(times.map(Math.round), [3000, 3101, 3202]);
    assert.ok(events.some((e) => e.type === 'paused' && e.level === 'rx:acct'));
  });

  it('observe with a key adapts only that key', async () => {
    const { limiter } = setup();
    limiter.observe({ throttled: true }, { key: 'a' });
    assert.ok(Math.abs((await limiter.snapshot('a')).ratePerSecond - 1.8) < 1e-9);
    assert.equal((await limiter.snapshot('b')).ratePerSecond, 2);
    assert.equal((await limiter.snapshot()).ratePerSecond, 10);
  });

  it('evicts idle keys: a full level holds no state', async () => {
    const { clock, limiter, store } = setup();
    for (let i = 0; i < 100; i++) await limiter.tryAcquire({ key: `payer-${i}` });
    assert.ok(store.size > 1);
    await clock.advance(10_000);
    assert.equal(limiter.sweep(), 0);
    assert.equal(store.size, 0);
    // The evicted keys behave as fresh ones.
    assert.ok(await limiter.tryAcquire({ key: 'payer-1' }));
  });

  it('validates options naming the bad one', async () => {
    const bad: Array<[Partial<LimiterOptions>, string]> = [
      [{ account: { ratePerSecond: 0, burst: 1 } }, 'account.ratePerSecond'],
      [{ account: { ratePerSecond: 1, burst: 1, concurrency: 0 } }, 'account.concurrency'],
      [{ perKey: { default: { ratePerSecond: 1, burst: -2 } } }, 'perKey.default.burst'],
      [
        { perKey: { overrides: { p: { ratePerSecond: Number.NaN, burst: 1 } } } },
        'perKey.overrides.p.ratePerSecond',
      ],
      [{ lanes: { batchShare: 0 } }, 'lanes.batchShare'],
    ];
    for (const [o, option] of bad) {
      assert.throws(
        () => createLimiter({ account: { ratePerSecond: 1, burst: 1 }, ...o } as LimiterOptions),
        (e) => isInvalidOptionError(e) && e.option === option,
        option,
      );
    }
  });
});
