// A worker process for the multi-process Redis test: acquires as fast as the shared limit
// admits, for a while, and prints how many it got.
import { Redis } from 'ioredis';
import { createRedisLimiter } from './redis-limiter.js';

const [url, name, durationMs, concurrency] = process.argv.slice(2) as [string, string, string, string];
const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
await new Promise((r) => redis.once('ready', r));
const limiter = createRedisLimiter({ redis, name, account: { ratePerSecond: 20, burst: 10 } });
// Start together: the parent sends "go" once every worker is ready.
process.send?.('ready');
await new Promise((r) => process.once('message', r));
const end = Date.now() + Number(durationMs);
let admitted = 0;
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (Date.now() < end) {
      try {
        await limiter.acquire({ key: 'payer', lane: 'batch', deadline: end });
        if (Date.now() <= end) admitted++;
      } catch {
        break;
      }
    }
  }),
);
limiter.close();
process.send?.({ admitted, roundTrips: limiter.roundTrips });
redis.disconnect();
