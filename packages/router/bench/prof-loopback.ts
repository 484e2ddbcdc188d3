// Profiling aid: the router alone against the loopback vendor (node --cpu-prof --import tsx bench/prof-loopback.ts [raw]).
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createLimiter } from '@rxgate/ratelimit';
import { Pool } from 'undici';
import { createRouter } from '../dist/index.js';
import { rawClaim } from '../src/test-support/fixtures.js';

const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
const url = `http://127.0.0.1:${port}`;
const raw = process.argv[2] === 'raw';
const router = createRouter({
  nodes: [{ name: 'primary', url }],
  idempotencySecret: 'bench-secret-0123456789',
  limiter: createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12 } }),
  audit: { append() {} },
});
const pool = new Pool(url, { connections: 32 });
const body = JSON.stringify(rawClaim());
const claims = Array.from({ length: 100_000 }, (_, i) => rawClaim({ '402-D2': String(i) }));
let next = 0;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < claims.length) {
      const i = next++;
      if (raw)
        await pool
          .request({
            method: 'POST',
            path: '/adjudicate',
            headers: {
              'content-type': 'application/json',
              'idempotency-key': `k${i}`,
              'x-ncpdp-version': 'D.0',
            },
            body,
          })
          .then((r) => r.body.json());
      else await router.submit(claims[i]);
    }
  }),
);
const s = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(
  `${raw ? 'raw' : 'router'}: ${Math.round(claims.length / s)} req/s, client CPU ${((cpu.user + cpu.system) / claims.length).toFixed(1)} µs/request`,
);
await router.close();
await pool.close();
child.disconnect();
