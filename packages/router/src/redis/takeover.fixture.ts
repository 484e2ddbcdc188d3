// A router process on the shared Redis ledger whose primary refuses connections: its claim
// fails over to the secondary, which pays it and never answers; the test kills us (kill -9).
// argv: redis URL, primary URL, secondary URL.
import { createLimiter } from '@rxgate/ratelimit';
import { Redis } from 'ioredis';
import { createRouter } from '../router.js';
import { rawClaim, SECRET } from '../test-support/fixtures.js';
import { undiciTransport } from '../transport.js';
import { RedisLedger } from './redis-stores.js';

const [url, primary, secondary] = process.argv.slice(2) as [string, string, string];
const redis = new Redis(url);
const router = createRouter({
  nodes: [
    { name: 'primary', url: primary },
    { name: 'secondary', url: secondary },
  ],
  idempotencySecret: SECRET,
  ledger: new RedisLedger({ redis, leaseMs: 600 }),
  transport: undiciTransport({ connectTimeoutMs: 300, readTimeoutMs: 60_000 }),
  limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
  retry: { transientRetries: 0, baseMs: 5 },
  lanes: { pos: { default: 60_000 }, batch: { default: 60_000 } },
});
void router.submit(rawClaim({ '402-D2': '7010' }), { lane: 'batch' });
