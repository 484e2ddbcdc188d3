import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { isDeadlineExceededError } from './errors.js';
import { NOOP_LEASE } from './lease.js';
import { createLimiter } from './limiter.js';
import { limiterPolicy } from './policy.js';
import { TokenBucket } from './token-bucket.js';

describe('limiterPolicy', () => {
  it('paces under the context key and refuses what cannot be admitted by the deadline', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({
      account: { ratePerSecond: 100, burst: 100 },
      perKey: { default: { ratePerSecond: 1, burst: 1 } },
      clock,
    });
    const policy = limiterPolicy(limiter);
    assert.equal(await policy.execute(async (c) => c.key, { key: 'A' }), 'A');
    await assert.rejects(
      policy.execute(async () => 1, { key: 'A', deadline: clock.now() + 10 }),
      (e: unknown) => isDeadlineExceededError(e),
    );
    assert.equal(
      await policy.execute(async () => 'other key', { key: 'B', deadline: clock.now() + 10 }),
      'other key',
    );
    limiter.close();
  });

  it('follows the quota signal found in each result (quotaOf)', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 100, burst: 100 }, clock });
    const policy = limiterPolicy(limiter, { quotaOf: (r) => (r === 429 ? { throttled: true } : undefined) });
    const before = (await limiter.snapshot()).ratePerSecond;
    await policy.execute(async () => 429);
    assert.ok((await limiter.snapshot()).ratePerSecond < before);
    limiter.close();
  });

  it('a TokenBucket and a ConcurrencyLimit are policies too', async () => {
    const clock = new VirtualClock();
    const bucket = limiterPolicy(new TokenBucket({ capacity: 1, refillPerSecond: 1, clock }));
    const cap = new ConcurrencyLimit(1, { clock });
    const slots = limiterPolicy(cap);
    assert.equal(await bucket.execute(async () => 1), 1);
    assert.equal(await slots.execute(async () => cap.active), 1);
    assert.equal(cap.active, 0);
  });

  it('a lease that holds no slot says released (it was: always false)', async () => {
    assert.equal(NOOP_LEASE.released, true);
    const limiter = createLimiter({ account: { ratePerSecond: 10, burst: 10 } });
    assert.equal((await limiter.tryAcquire({ key: '' }))?.released, true);
    const capped = createLimiter({ account: { ratePerSecond: 10, burst: 10, concurrency: 1 } });
    const lease = (await capped.tryAcquire({ key: '' }))!;
    assert.equal(lease.released, false);
    lease.release();
    assert.equal(lease.released, true);
    limiter.close();
    capped.close();
  });
});
