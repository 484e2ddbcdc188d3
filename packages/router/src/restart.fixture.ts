// A router process on a durable file ledger that submits claims and is killed (kill -9) by the
// test while some are in flight. argv: ledger path, primary URL, secondary URL, claim count.
import { createLimiter } from '@rxgate/ratelimit';
import { openFileLedger } from './journal-ledger.js';
import { createRouter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { undiciTransport } from './transport.js';

const [path, primary, secondary, count] = process.argv.slice(2) as [string, string, string, string];
const router = createRouter({
  nodes: [
    { name: 'primary', url: primary },
    { name: 'secondary', url: secondary },
  ],
  idempotencySecret: SECRET,
  ledger: await openFileLedger(path),
  transport: undiciTransport({ connectTimeoutMs: 300, readTimeoutMs: 60_000 }),
  limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
  retry: { transientRetries: 0, baseMs: 5 },
  lanes: { pos: { default: 60_000 }, batch: { default: 60_000 } },
});
for (let i = 0; i < Number(count); i++)
  void router
    .submit(rawClaim({ '402-D2': String(5000 + i) }), { lane: 'batch' })
    .then((o) => process.send?.(o.kind));
