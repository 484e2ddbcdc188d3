// Instructions per claim of the router in process, for callgrind (stable where wall time on a
// shared VM is not):
//   for n in 2000 22000; do valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//     node --single-threaded --hash-seed=1 --random-seed=1 bench/instructions.mjs . $n; done
// then (I(22000) - I(2000)) / 20000. The first argument is the repository root to load.
const [root = '../..', nStr = '2000'] = process.argv.slice(2);
const n = Number(nStr);
const at = (p) => new URL(`${root}/packages/${p}/dist/index.js`, `file://${process.cwd()}/`).href;
const { createRouter, functionTransport, MemoryLedger } = await import(at('router'));
const { createLimiter } = await import(at('ratelimit'));
const { createBreakers } = await import(at('breaker'));
const paid = {
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
const { raw } = await import('./claim.mjs');
const router = createRouter({
  nodes: [{ name: 'primary', url: 'http://x.test' }],
  idempotencySecret: 'bench-secret-0123456789-abcdefghijklmnop',
  transport: functionTransport(() => paid),
  limiter: createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12 } }),
  breakers: createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } }),
  ledger: new MemoryLedger(),
});
for (let i = 0; i < n; i += 64)
  await Promise.all(Array.from({ length: 64 }, (_, k) => router.submit(raw(i + k))));
await router.close();
