// Operations on one RedisStore run in the order issued, even on a server that has not seen
// some of its scripts yet: an EVALSHA that meets NOSCRIPT and goes again as EVAL must not run
// after operations issued later. Found by the scheduler conformance property (FC_SEED=1946559377):
// a throttle's pause was written after the peek that revalidated a waiter's deadline, so the
// Redis limiter kept a waiter the memory one had failed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RedisServer, redisAvailable, startRedis } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import type { LevelSpec } from '../store.js';
import { RedisStore } from './redis-store.js';

const available = redisAvailable();

describe('RedisStore: the order issued', { skip: !available && 'redis-server not installed' }, () => {
  let server: RedisServer;
  let redis: Redis;
  before(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
    redis.on('error', () => {});
  });
  after(async () => {
    redis.disconnect();
    await server?.close();
  });

  it('a pause written before a peek is seen by it, on a server that only knows the peek script', async () => {
    for (const [i, known] of [
      [1, 'peek'],
      [2, 'none'],
    ] as const) {
      await redis.script('FLUSH');
      const level: LevelSpec = { id: `{order-${process.pid}-${i}}:account`, ratePerSecond: 10, burst: 10 };
      const now = 1_000_000;
      if (known === 'peek') {
        // Another process (or an earlier store) left only the peek script cached.
        const warm = new RedisStore(redis, { time: 'caller' });
        await warm.peek([level], 1, now);
        await redis.script('FLUSH');
        await warm.peek([level], 1, now); // the peek script alone cached again (NOSCRIPT, then EVAL)
      }
      const store = new RedisStore(redis, { time: 'caller' });
      // Issued back to back, as the limiter does after a throttle: the pause, then the peek.
      const paused = store.adjust(level, { pauseUntil: now + 5000 }, now);
      const wait = store.peek([level], 1, now);
      await paused;
      assert.equal(await wait, 5000, `${known} cached: the peek saw the pause`);
    }
  });

  it('after SCRIPT FLUSH, the one that met NOSCRIPT goes again as EVAL, and the scripts are loaded again before the next ones', async () => {
    const store = new RedisStore(redis, { time: 'caller' });
    const level: LevelSpec = { id: `{order-${process.pid}-flush}:account`, ratePerSecond: 10, burst: 10 };
    const now = 2_000_000;
    await store.peek([level], 1, now);
    await redis.script('FLUSH');
    const before = store.roundTrips;
    assert.equal(await store.peek([level], 1, now), 0);
    assert.equal(store.roundTrips - before, 2, 'NOSCRIPT, then EVAL');
    // The adjust script was never run since the flush: loaded again, it is one EVALSHA.
    const [a, b] = await Promise.all([
      store.adjust(level, { pauseUntil: now + 4000 }, now),
      store.peek([level], 1, now),
    ]);
    assert.equal(a, undefined);
    assert.equal(b, 4000);
    assert.equal(store.roundTrips - before, 4, 'one round trip each: no NOSCRIPT after the reload');
  });
});
