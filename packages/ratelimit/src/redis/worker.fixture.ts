// A worker process for the multi-process Redis test: acquires as fast as the shared limit
// admits, for a while, and prints how many it got.
import { Redis } from 'ioredis';
import { createRedisLimiter } from './redis-limiter.js';

const [url, name, concurrency] = process.argv.slice(2) as [string, string, string];
const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
await new Promise((r) => redis.once('ready', r));
const limiter = createRedisLimiter({ redis, name, account: { ratePerSecond: 20, burst: 10 } });
// Start together: once every worker is ready the parent sends the window, start and end on the
// wall clock the workers share with Redis (one machine), so no worker's window depends on when
// its message arrived.
process.send?.('ready');
const { start, end } = await new Promise<{ start: number; end: number }>((r) =>
  process.once('message', (m) => r(m as { start: number; end: number })),
);
// A timer may fire a millisecond early by the wall clock: wait again until it reads start.
while (Date.now() < start) await new Promise((r) => setTimeout(r, start - Date.now()));
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
