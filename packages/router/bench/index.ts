// npm run bench -w @rxgate/router — the router's cost per claim, in process and on loopback.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { fmt, table } from '@rxgate/testkit';
import { Pool } from 'undici';
import { createRouter, functionTransport, MemoryLedger, type WireResponse } from '../dist/index.js';
import { rawClaim } from '../src/test-support/fixtures.js';

const SECRET = 'bench-secret-0123456789-abcdefghijklmnop';
const HUGE = 1e12;
console.log(`# @rxgate/router benchmark (node ${process.version})\n`);

// (1) In process: parse, HMAC key, ledger, limiter, breaker, codec, classify, decide, audit.
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
const RESOLVED = Promise.resolve();
const noopAudit = { append: () => RESOLVED };
const inProcess = async (n: number, withAudit: boolean) => {
  const router = createRouter({
    nodes: [{ name: 'primary', url: 'http://in-process.test' }],
    idempotencySecret: SECRET,
    transport: functionTransport(() => paid),
    limiter: createLimiter({ account: { ratePerSecond: HUGE, burst: HUGE } }),
    breakers: createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } }),
    ledger: new MemoryLedger(),
    ...(withAudit ? {} : { audit: noopAudit }),
  });
  const claims = Array.from({ length: n }, (_, i) => rawClaim({ '402-D2': String(i) }));
  const t0 = process.hrtime.bigint();
  const batch = 64;
  for (let i = 0; i < n; i += batch)
    await Promise.all(claims.slice(i, i + batch).map((c) => router.submit(c)));
  const ns = Number(process.hrtime.bigint() - t0) / n;
  await router.close();
  return ns;
};
await inProcess(20_000, false);
const inRows: Array<[string, number]> = [];
for (const withAudit of [false, true]) {
  const runs = [
    await inProcess(50_000, withAudit),
    await inProcess(50_000, withAudit),
    await inProcess(50_000, withAudit),
  ].sort((a, b) => a - b);
  inRows.push([
    withAudit ? 'full pipeline, in-memory audit log' : 'full pipeline, audit to a no-op sink',
    runs[1]!,
  ]);
}
console.log('## In process (no network), per claim, parsing included\n');
console.log(
  table(
    ['pipeline', 'µs/claim', 'claims/s'],
    inRows.map(([n, ns]) => [n, fmt(ns / 1000, 2), Math.round(1e9 / ns).toLocaleString('en')]),
  ),
);

// (2) Loopback HTTP: the router against raw undici to the same server (its own process).
const child = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), { execArgv: ['--import', 'tsx'] });
const port = await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m))));
const url = `http://127.0.0.1:${port}`;
const CONCURRENCY = 32;
const body = JSON.stringify(rawClaim());
const loop = async (n: number, one: (i: number) => Promise<unknown>) => {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await one(next++);
    }),
  );
  return n / ((performance.now() - t0) / 1000);
};
const pool = new Pool(url, { connections: CONCURRENCY });
const raw = (i: number) =>
  pool
    .request({
      method: 'POST',
      path: '/adjudicate',
      headers: { 'content-type': 'application/json', 'idempotency-key': `k${i}`, 'x-ncpdp-version': 'D.0' },
      body,
    })
    .then((r) => r.body.json());
const router = createRouter({
  nodes: [{ name: 'primary', url }],
  idempotencySecret: SECRET,
  ledger: new MemoryLedger(),
  limiter: createLimiter({ account: { ratePerSecond: HUGE, burst: HUGE } }),
  audit: noopAudit,
});
let offset = 1_000_000;
const viaRouter = (i: number) => router.submit(rawClaim({ '402-D2': String(offset + i) }));
const N = 20_000;
await loop(2000, raw);
await loop(2000, viaRouter);
offset = 2_000_000;
const rows: Array<[string, number]> = [];
for (let round = 0; round < 3; round++) {
  rows.push(['raw undici Pool.request', await loop(N, raw)]);
  offset += N;
  rows.push(['rxgate router.submit', await loop(N, viaRouter)]);
  offset += N;
}
const median = (name: string) =>
  rows
    .filter(([n]) => n === name)
    .map(([, r]) => r)
    .sort((a, b) => a - b)[1]!;
const rawRate = median('raw undici Pool.request');
const routerRate = median('rxgate router.submit');
console.log(
  `\n## Loopback HTTP, ${CONCURRENCY} concurrent, the vendor in its own process (median of 3 × ${N.toLocaleString('en')})\n`,
);
console.log(
  table(
    ['client', 'requests/s', 'vs raw undici'],
    [
      ['raw undici Pool.request', Math.round(rawRate).toLocaleString('en'), '1.00x'],
      [
        'rxgate router.submit',
        Math.round(routerRate).toLocaleString('en'),
        `${fmt(routerRate / rawRate, 2)}x (costs ${fmt((1 - routerRate / rawRate) * 100, 1)}%)`,
      ],
    ],
  ),
);
await router.close();
await pool.close();
child.disconnect();
process.exit(0);
