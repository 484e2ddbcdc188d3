import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { createRouter, functionTransport, type WireResponse } from '../dist/index.js';
import { MemoryLedger } from '../dist/stores.js';
import { rawClaim } from '../src/test-support/fixtures.js';

const paid: WireResponse = {
  status: 200,
  headers: {
    'content-type': 'application/json',
    'x-ratelimit-remaining': '99999',
    'x-ratelimit-limit': '100000',
    'x-ratelimit-reset': '1',
  },
  body: JSON.stringify({
    '112-AN': 'P',
    '505-F5': '5.00',
    '506-F6': '10.34',
    '509-F9': '7.34',
    '503-F3': 'AUTH',
  }),
};
const n = Number(process.argv[2] ?? 200000);
const router = createRouter({
  nodes: [{ name: 'primary', url: 'http://in-process.test' }],
  idempotencySecret: 'bench-secret-0123456789',
  transport: functionTransport(() => paid),
  limiter: createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12 } }),
  breakers: createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } }),
  ledger: new MemoryLedger(),
  audit: { append() {} },
});
const claims = Array.from({ length: n }, (_, i) => rawClaim({ '402-D2': String(i) }));
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i += 64) await Promise.all(claims.slice(i, i + 64).map((c) => router.submit(c)));
console.log((Number(process.hrtime.bigint() - t0) / n / 1000).toFixed(2), 'us/claim');
