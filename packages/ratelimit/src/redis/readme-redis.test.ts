import assert from 'node:assert/strict';
import { createRedisLimiter } from '@rxgate/ratelimit/redis';
import { Redis } from 'ioredis';
import { claim, REDIS_URL, send, stopRedis } from './readme-support.fixture.js'; // not in the README

const redis = new Redis(REDIS_URL, {
  enableOfflineQueue: false,
  commandTimeout: 200,
  maxRetriesPerRequest: 0,
});
await new Promise((ready) => redis.once('ready', ready)); // not in the README
const limiter = createRedisLimiter({
  redis,
  name: 'switch-a', // every process with this name shares the quota
  account: { ratePerSecond: 10, burst: 20 },
  perKey: { default: { ratePerSecond: 5, burst: 5 } },
  lanes: { batchShare: 0.1 }, // the same scheduler as createLimiter's
  onUnavailable: { fallback: 'local', processes: 4 }, // or 'fail-closed'
});
const answer = await limiter.run('610014/ADV', () => send(claim), {
  lane: 'pos',
  deadline: Date.now() + 800,
});
assert.equal(answer.status, 200);
const observed = performance.now(); // not in the README
await limiter.observe({ limit: 20, remaining: 6, resetSeconds: 0.8 }); // every process paces by it
const { tokens } = await limiter.snapshot(); // about 6: the vendor's remaining, refilled at its pace
// The 6 left, plus the fraction of a token held (the cap keeps it), plus at most the vendor's 20/s for the time that passed: under 7 + 20/s (a fixed `< 7` failed on a loaded machine; `<= 6 + 20/s` forgot the fraction, 1 run in 11) // not in the README
const elapsed = (performance.now() - observed) / 1000; // not in the README
assert.ok(tokens < Math.min(20, 7 + 20 * elapsed), `${tokens} after ${elapsed} s`); // not in the README
assert.ok((await limiter.predictWait({ key: '610014/ADV', lane: 'batch' })) >= 0);
limiter.close();
redis.disconnect();
await stopRedis(); // not in the README
