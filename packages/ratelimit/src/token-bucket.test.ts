import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import {
  isAcquireAbortedError,
  isDeadlineExceededError,
  isInvalidOptionError,
  isLimiterClosedError,
} from './errors.js';
import type { LimiterEvent } from './events.js';
import { TokenBucket } from './token-bucket.js';

function setup(
  capacity = 50,
  refillPerSecond = 10,
  extra: Partial<ConstructorParameters<typeof TokenBucket>[0]> = {},
) {
  const clock = new VirtualClock();
  const events: LimiterEvent[] = [];
  const bucket = new TokenBucket({
    capacity,
    refillPerSecond,
    clock,
    onEvent: (e) => events.push(e),
    ...extra,
  });
  return { clock, bucket, events };
}

describe('TokenBucket', () => {
  it('admits a burst of capacity at once and the 150th of 150 at exactly 10.0 s', async () => {
    const { clock, bucket } = setup(50, 10);
    const admitted: Array<{ i: number; at: number }> = [];
    const all = Array.from({ length: 150 }, (_, i) =>
      bucket.acquire().then(() => admitted.push({ i, at: clock.now() })),
    );
    await clock.advance(0);
    assert.equal(admitted.length, 50);
    assert.ok(admitted.every((a) => a.at === 0));
    await clock.runAll();
    await Promise.all(all);
    assert.equal(admitted.length, 150);
    assert.deepEqual(
      admitted.map((a) => a.i),
      Array.from({ length: 150 }, (_, i) => i),
      'FIFO order',
    );
    assert.equal(admitted[50]!.at, 100);
    assert.equal(admitted[149]!.at, 10_000);
    for (let k = 50; k < 150; k++) assert.equal(admitted[k]!.at, (k - 49) * 100);
  });

  it('arms exactly one timer however many wait', async () => {
    const { clock, bucket } = setup(1, 1);
    for (let i = 0; i < 100; i++) void bucket.acquire();
    await clock.advance(0);
    assert.equal(clock.pending, 1);
  });

  it('tryAcquire never waits and refills fractionally', async () => {
    const { clock, bucket } = setup(2, 0.5);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(bucket.tryAcquire(), false);
    await clock.advance(1999);
    assert.equal(bucket.tryAcquire(), false);
    await clock.advance(1);
    assert.equal(bucket.tryAcquire(), true);
    assert.equal(clock.pending, 0);
  });

  it('takes a weighted cost and wakes when that many tokens exist', async () => {
    const { clock, bucket } = setup(10, 4);
    assert.equal(bucket.tryAcquire(10), true);
    let at = -1;
    void bucket.acquire({ cost: 6 }).then(() => {
      at = clock.now();
    });
    await clock.runAll();
    assert.equal(at, 1500);
    assert.ok(Math.abs(bucket.tokens) < 1e-9);
  });

  it('an abort removes the waiter, spends nothing and lets the next one go on time', async () => {
    const { clock, bucket, events } = setup(1, 10);
    assert.equal(bucket.tryAcquire(), true);
    const ac = new AbortController();
    const first = bucket.acquire({ signal: ac.signal });
    let secondAt = -1;
    const second = bucket.acquire().then(() => {
      secondAt = clock.now();
    });
    await clock.advance(50);
    ac.abort(new Error('patient left'));
    await assert.rejects(first, (e) => isAcquireAbortedError(e) && (e as Error).cause instanceof Error);
    await clock.runAll();
    await second;
    assert.equal(secondAt, 100, 'the aborted waiter spent no token');
    assert.ok(events.some((e) => e.type === 'rejected' && e.reason === 'aborted'));
  });

  it('an already aborted signal rejects at once', async () => {
    const { bucket } = setup();
    await assert.rejects(bucket.acquire({ signal: AbortSignal.abort() }), isAcquireAbortedError);
  });

  it('fails fast when the predicted wait, the queue ahead included, misses the deadline', async () => {
    const { clock, bucket, events } = setup(5, 10);
    for (let i = 0; i < 5; i++) assert.ok(bucket.tryAcquire());
    const queued = Array.from({ length: 3 }, () => bucket.acquire());
    // Three ahead: the next one would be admitted at 400 ms.
    assert.equal(bucket.predictWait(), 400);
    await assert.rejects(bucket.acquire({ deadline: 399 }), (e) => {
      assert.ok(isDeadlineExceededError(e));
      assert.equal(e.predictedWaitMs, 400);
      return true;
    });
    const ok = bucket.acquire({ deadline: 400 });
    await clock.runAll();
    await Promise.all([...queued, ok]);
    assert.equal(clock.now(), 400);
    assert.ok(
      events.some((e) => e.type === 'rejected' && e.reason === 'deadline' && e.predictedWaitMs === 400),
    );
  });

  it('rejects a queued waiter at its deadline when the bucket slowed after it queued', async () => {
    const { clock, bucket } = setup(1, 10);
    assert.ok(bucket.tryAcquire());
    const p = bucket.acquire({ deadline: 500 });
    bucket.observe({ retryAfterMs: 2000, throttled: true });
    await assert.rejects(p, isDeadlineExceededError);
    assert.equal(clock.now(), 0, 'rejected as soon as the pause made the deadline unreachable');
  });

  it('serves pos before batch, and keeps a minimum share for batch', async () => {
    const { clock, bucket } = setup(1, 10, { batchShare: 0.25 });
    assert.ok(bucket.tryAcquire());
    const order: string[] = [];
    const all: Promise<void>[] = [];
    for (let i = 0; i < 4; i++)
      all.push(bucket.acquire({ lane: 'batch' }).then(() => void order.push(`b${i}`)));
    for (let i = 0; i < 8; i++)
      all.push(bucket.acquire({ lane: 'pos' }).then(() => void order.push(`p${i}`)));
    await clock.runAll();
    await Promise.all(all);
    // share 0.25: three pos, then one batch, while both wait.
    assert.deepEqual(order, ['p0', 'p1', 'p2', 'b0', 'p3', 'p4', 'p5', 'b1', 'p6', 'p7', 'b2', 'b3']);
  });

  it('tryAcquire in batch yields to queued pos and batch; pos yields only to pos', async () => {
    const { clock, bucket } = setup(2, 1);
    assert.ok(bucket.tryAcquire(2));
    void bucket.acquire({ lane: 'batch' });
    await clock.advance(1000);
    // One token exists, but... the batch waiter took it at 1000 ms.
    assert.equal(bucket.tryAcquire(1, 'batch'), false);
    await clock.advance(1000);
    assert.equal(bucket.tryAcquire(1, 'pos'), true);
  });

  it('validates options and arguments with errors that name them', () => {
    const clock = new VirtualClock();
    const cases: Array<[unknown, string]> = [
      [{ capacity: 0, refillPerSecond: 1 }, 'capacity'],
      [{ capacity: Number.NaN, refillPerSecond: 1 }, 'capacity'],
      [{ capacity: 1, refillPerSecond: -1 }, 'refillPerSecond'],
      [{ capacity: 1, refillPerSecond: Number.POSITIVE_INFINITY }, 'refillPerSecond'],
      [{ capacity: 1, refillPerSecond: 1, batchShare: 1 }, 'batchShare'],
      [{ capacity: 1, refillPerSecond: 1, adaptive: { beta: 1.5 } }, 'adaptive.beta'],
    ];
    for (const [options, option] of cases) {
      assert.throws(
        () => new TokenBucket({ clock, ...(options as { capacity: number; refillPerSecond: number }) }),
        (e) => isInvalidOptionError(e) && e.option === option,
        option,
      );
    }
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 1, clock });
    assert.throws(
      () => bucket.tryAcquire(6),
      (e) => isInvalidOptionError(e) && e.option === 'cost',
    );
    assert.throws(
      () => bucket.tryAcquire(Number.NaN),
      (e) => isInvalidOptionError(e) && e.option === 'cost',
    );
  });

  it('rejects an impossible cost and a NaN deadline without queueing', async () => {
    const { clock, bucket } = setup(5, 1);
    await assert.rejects(bucket.acquire({ cost: 6 }), (e) => isInvalidOptionError(e) && e.option === 'cost');
    assert.throws(
      () => bucket.acquire({ deadline: Number.NaN }),
      (e) => isInvalidOptionError(e) && e.option === 'deadline',
    );
    assert.equal(bucket.waiting, 0);
    assert.equal(clock.pending, 0);
  });

  it('close rejects every waiter and later acquires', async () => {
    const { clock, bucket } = setup(1, 1);
    assert.ok(bucket.tryAcquire());
    const waiting = [bucket.acquire(), bucket.acquire({ lane: 'batch' })];
    bucket.close();
    for (const p of waiting) await assert.rejects(p, isLimiterClosedError);
    await assert.rejects(bucket.acquire(), isLimiterClosedError);
    assert.equal(clock.pending, 0);
  });
});

describe('TokenBucket adaptation', () => {
  it('pauses every caller until a Retry-After ends', async () => {
    const { clock, bucket, events } = setup(10, 10);
    bucket.observe({ retryAfterMs: 1500, throttled: true });
    assert.equal(bucket.tryAcquire(), false);
    let at = -1;
    void bucket.acquire().then(() => {
      at = clock.now();
    });
    await clock.runAll();
    assert.equal(at, 1500);
    assert.ok(events.some((e) => e.type === 'paused' && e.until === 1500));
  });

  it('adopts the rate the vendor advertises: its limit over the longest reset it reported', async () => {
    const { clock, bucket, events } = setup(2, 10);
    // 100 per 3 s, read a little under (99 %): 33/s, above the configured 10/s.
    bucket.observe({ limit: 100, remaining: 80, resetSeconds: 3 });
    assert.ok(Math.abs(bucket.ratePerSecond - 33) < 1e-9);
    assert.ok(
      events.some(
        (e) => e.type === 'adapted' && e.reason === 'quota' && e.toPerSecond === bucket.ratePerSecond,
      ),
    );
    // A shorter reset later (the window ran on) does not shorten the window.
    await clock.advance(1000);
    bucket.observe({ limit: 100, remaining: 50, resetSeconds: 2 });
    assert.ok(Math.abs(bucket.ratePerSecond - 33) < 1e-9);
    // A reset read a little short (measured a trip ago) rounds up to the window vendors configure.
    const b2 = setup(20, 5).bucket;
    b2.observe({ limit: 20, remaining: 19, resetSeconds: 0.94 });
    assert.ok(Math.abs(b2.ratePerSecond - 19.8) < 1e-9);
  });

  it('maxRatePerSecond caps what the vendor advertises', () => {
    const { bucket } = setup(20, 10, { adaptive: { maxRatePerSecond: 12 } });
    bucket.observe({ limit: 100, remaining: 90, resetSeconds: 5 });
    assert.equal(bucket.ratePerSecond, 12);
    assert.equal(bucket.tokens, 20);
  });

  it('holds no more than the vendor will take: Remaining caps the tokens, then the pace is the vendor rate', async () => {
    const { clock, bucket } = setup(20, 10);
    bucket.observe({ limit: 20, remaining: 6, resetSeconds: 1 });
    assert.ok(Math.abs(bucket.tokens - 6) < 1e-9);
    const times: number[] = [];
    for (let i = 0; i < 8; i++) void bucket.acquire().then(() => times.push(Math.round(clock.now())));
    await clock.runAll();
    assert.deepEqual(times, [0, 0, 0, 0, 0, 0, 51, 101]);
  });

  it('a remaining quota of 0 on a throttle pauses until the reset, and gives back one request, not a burst', async () => {
    const { clock, bucket } = setup(20, 10);
    bucket.observe({ remaining: 0, resetSeconds: 4, throttled: true });
    const times: number[] = [];
    for (let i = 0; i < 3; i++) void bucket.acquire().then(() => times.push(Math.round(clock.now())));
    await clock.runAll();
    assert.deepEqual(times, [4000, 4100, 4200]);
  });

  it('a bare throttle cuts the rate by beta and CUBIC probes back, never above the configured rate', async () => {
    const { clock, bucket } = setup(10, 10, { adaptive: { mode: 'cubic' } });
    bucket.observe({ throttled: true });
    assert.ok(Math.abs(bucket.ratePerSecond - 7) < 1e-9);
    const rates: number[] = [];
    for (let t = 0; t < 40; t++) {
      await clock.advance(250);
      bucket.tryAcquire();
      rates.push(bucket.ratePerSecond);
    }
    for (let i = 1; i < rates.length; i++) assert.ok(rates[i]! >= rates[i - 1]! - 1e-9, 'monotone recovery');
    assert.ok(rates.every((r) => r <= 10));
    assert.equal(rates.at(-1), 10);
    // CUBIC: W_max 10, K = cbrt(10 * 0.3 / 0.4) ≈ 1.957 s; at 1 s, 0.4(1-K)^3 + 10 ≈ 9.65.
    const k = Math.cbrt(7.5);
    assert.ok(Math.abs(rates[3]! - (0.4 * (1 - k) ** 3 + 10)) < 1e-9);
  });

  it('hold (the default): a bare throttle cuts by 0.9, climbs back to just under the throttled rate, holds, then probes', async () => {
    const { clock, bucket } = setup(10, 10);
    bucket.observe({ throttled: true });
    assert.ok(Math.abs(bucket.ratePerSecond - 9) < 1e-9);
    const at = async (ms: number) => {
      await clock.advanceTo(ms);
      bucket.tryAcquire();
      return bucket.ratePerSecond;
    };
    assert.ok(Math.abs((await at(1500)) - (9 + 0.9 * 0.5)) < 1e-9, 'half way back at 1.5 s');
    assert.ok(Math.abs((await at(3000)) - 9.9) < 1e-9);
    assert.ok(Math.abs((await at(30_000)) - 9.9) < 1e-9, 'held');
    // Probing: 1 % a second after the 30 s hold, up to the configured rate (nothing says more).
    assert.ok(Math.abs((await at(33_500)) - 9.9 * 1.005) < 1e-9);
    assert.equal(await at(43_000), 10);
    // A second throttle within 1 s of a cut is the same event.
    bucket.observe({ throttled: true });
    bucket.observe({ throttled: true });
    assert.ok(Math.abs(bucket.ratePerSecond - 9) < 1e-9);
  });

  it('AIMD recovers linearly', async () => {
    const { clock, bucket } = setup(10, 10, { adaptive: { mode: 'aimd', beta: 0.5, increasePerSecond: 1 } });
    bucket.observe({ throttled: true });
    assert.equal(bucket.ratePerSecond, 5);
    await clock.advance(2000);
    bucket.tryAcquire();
    assert.equal(bucket.ratePerSecond, 7);
    await clock.advance(10_000);
    bucket.tryAcquire();
    assert.equal(bucket.ratePerSecond, 10);
  });
});
