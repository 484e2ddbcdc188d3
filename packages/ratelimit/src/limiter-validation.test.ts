import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { isDeadlineExceededError, isInvalidOptionError } from './errors.js';
import type { Lane } from './events.js';
import { createLimiter } from './limiter.js';
import { TokenBucket } from './token-bucket.js';

const setup = () => {
  const clock = new VirtualClock(10_000);
  const limiter = createLimiter({
    account: { ratePerSecond: 10, burst: 10 },
    perKey: { default: { ratePerSecond: 5, burst: 5 } },
    clock,
  });
  return { clock, limiter };
};

describe('issue #14 item 5: account revalidation, past deadlines, lanes', () => {
  it('an account-wide pause rejects a waiter at once when its deadline became unreachable, not at the deadline', async () => {
    const { clock, limiter } = setup();
    // Empty the key so the next claim waits (200 ms for its token), with 2 s of budget.
    for (let i = 0; i < 5; i++) assert.ok(await limiter.tryAcquire({ key: 'a' }));
    let rejectedAt = -1;
    const p = limiter.acquire({ key: 'a', deadline: clock.now() + 2000 }).then(
      () => assert.fail('admitted during a 30 s pause'),
      (e: unknown) => {
        assert.ok(isDeadlineExceededError(e));
        rejectedAt = clock.now();
      },
    );
    await clock.advance(10);
    limiter.observe({ retryAfterMs: 30_000, throttled: true });
    await clock.advance(0);
    assert.equal(rejectedAt, 10_010, 'rejected when the pause made the deadline unreachable');
    await clock.runAll();
    await p;
  });

  it('property: after an account pause, a waiter is rejected at once exactly when the pause outlasts its deadline', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 300, max: 60_000 }),
        async (pauseMs, budgetMs) => {
          const { clock, limiter } = setup();
          for (let i = 0; i < 5; i++) await limiter.tryAcquire({ key: 'a' });
          const start = clock.now();
          let outcome: { at: number; ok: boolean } | undefined;
          const p = limiter.acquire({ key: 'a', deadline: start + budgetMs }).then(
            () => {
              outcome = { at: clock.now(), ok: true };
            },
            () => {
              outcome = { at: clock.now(), ok: false };
            },
          );
          limiter.observe({ retryAfterMs: pauseMs, throttled: true });
          await clock.runAll();
          await p;
          // The key's token comes at 200 ms; the pause holds it to max(200, pauseMs).
          const admissible = Math.max(200, pauseMs) <= budgetMs;
          assert.equal(outcome?.ok, admissible);
          if (!admissible) assert.equal(outcome?.at, start, 'rejected when the pause began');
        },
      ),
    );
  });

  it('an account pause that ends before the deadline keeps the waiter', async () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 5; i++) assert.ok(await limiter.tryAcquire({ key: 'a' }));
    const p = limiter.acquire({ key: 'a', deadline: clock.now() + 2000 });
    limiter.observe({ retryAfterMs: 1000, throttled: true });
    await clock.runAll();
    await p;
    assert.equal(clock.now(), 11_000);
  });

  it('an acquire whose deadline has already passed is refused with a typed error, even with tokens at hand', async () => {
    const { clock, limiter } = setup();
    await assert.rejects(limiter.acquire({ key: 'a', deadline: clock.now() - 1 }), (e) => {
      assert.ok(isDeadlineExceededError(e));
      assert.equal(e.when, 'already-past');
      return true;
    });
    await assert.rejects(
      limiter.run('a', () => 1, { deadline: clock.now() - 1 }),
      isDeadlineExceededError,
    );
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 5, clock });
    await assert.rejects(bucket.acquire({ deadline: clock.now() - 0.5 }), isDeadlineExceededError);
    // Nothing was spent; a deadline of now itself is on time.
    assert.equal((await limiter.snapshot('a')).tokens, 5);
    await limiter.acquire({ key: 'a', deadline: clock.now() });
  });

  it('property: an acquire is admitted if and only if its deadline is not past and tokens exist', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -5000, max: 5000 }), async (offset) => {
        const { clock, limiter } = setup();
        const deadline = clock.now() + offset;
        const r = await limiter.acquire({ key: 'a', deadline }).then(
          () => 'admitted',
          (e: unknown) => (isDeadlineExceededError(e) ? 'refused' : 'other'),
        );
        assert.equal(r, offset >= 0 ? 'admitted' : 'refused');
      }),
    );
  });

  it('an unknown lane is a typed error naming the field, on every entry point', async () => {
    const { limiter } = setup();
    const lane = 'urgent' as Lane;
    const isLane = (e: unknown) => isInvalidOptionError(e) && e.option === 'lane';
    await assert.rejects(limiter.acquire({ key: 'a', lane }), isLane);
    await assert.rejects(limiter.tryAcquire({ key: 'a', lane }), isLane);
    await assert.rejects(limiter.predictWait({ key: 'a', lane }), isLane);
    await assert.rejects(
      limiter.run('a', () => 1, { lane }),
      isLane,
    );
    const bucket = new TokenBucket({ capacity: 5, refillPerSecond: 5, clock: new VirtualClock() });
    assert.throws(() => bucket.tryAcquire(1, lane), isLane);
    await assert.rejects(bucket.acquire({ lane }), isLane);
    // Nothing was spent by the refused calls.
    assert.equal((await limiter.snapshot('a')).tokens, 5);
  });
});
