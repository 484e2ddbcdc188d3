// npm run bench -w @rxgate/ratelimit — rxgate's limiter side by side with the anchors, in one process.
import { fmt, nsPerAsync, nsPerSync, retainedBytes, table } from '@rxgate/testkit';
import Bottleneck from 'bottleneck';
import { bulkhead } from 'cockatiel';
import { TokenBucket as LimiterTokenBucket, RateLimiter } from 'limiter';
import pLimit from 'p-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { ConcurrencyLimit, createLimiter, TokenBucket } from '../src/index.js';

const HUGE = 1e12;
const quick = process.argv.includes('--quick');
const task = async (): Promise<void> => {};

console.log(`# @rxgate/ratelimit benchmark (node ${process.version}, ${quick ? 'quick' : 'full'})\n`);

// (a) hot path
// Two baselines, so each subject is charged only for what it adds: a direct call of the task,
// and the same call inside the async wrapper that an `await acquire(); await task()` needs.
const bare = await nsPerAsync(task);
const bareWrapped = await nsPerAsync(async () => {
  await task();
});
const rx = new TokenBucket({ capacity: HUGE, refillPerSecond: HUGE });
const rxLimiter = createLimiter({
  account: { ratePerSecond: HUGE, burst: HUGE },
  perKey: { default: { ratePerSecond: HUGE, burst: HUGE } },
});
const lim = new RateLimiter({ tokensPerInterval: HUGE, interval: 'second' });
const rlf = new RateLimiterMemory({ points: HUGE, duration: 1 });
const pl = pLimit(16);
const bh = bulkhead(16, HUGE);
const cl = new ConcurrencyLimit(16);

// [name, ns/op, baseline]: wrapped subjects pay for their own extra await, not for the wrapper.
const asyncRows: Array<[string, number, number]> = [
  ['rxgate TokenBucket.run(task)', await nsPerAsync(() => rx.run(task)), bare],
  [
    'rxgate limiter.run(key, task), account + key',
    await nsPerAsync(() => rxLimiter.run('610014/ADV', task)),
    bare,
  ],
  [
    'rxgate await TokenBucket.acquire(); task()',
    await nsPerAsync(async () => {
      await rx.acquire();
      await task();
    }),
    bareWrapped,
  ],
  [
    'rxgate await limiter.acquire(key); task()',
    await nsPerAsync(async () => {
      (await rxLimiter.acquire({ key: '610014/ADV' })).release();
      await task();
    }),
    bareWrapped,
  ],
  [
    'limiter await removeTokens(1); task()',
    await nsPerAsync(async () => {
      await lim.removeTokens(1);
      await task();
    }),
    bareWrapped,
  ],
  [
    'rate-limiter-flexible await consume(key); task()',
    await nsPerAsync(async () => {
      await rlf.consume('610014/ADV');
      await task();
    }),
    bareWrapped,
  ],
  [
    'rxgate await limiter.tryAcquire(key), account + key',
    await nsPerAsync(async () => {
      await rxLimiter.tryAcquire({ key: '610014/ADV' });
    }),
    bareWrapped,
  ],
  ['rxgate ConcurrencyLimit(16).run(task)', await nsPerAsync(() => cl.run(task)), bare],
  ['p-limit(16)(task)', await nsPerAsync(() => pl(task)), bare],
  ['cockatiel bulkhead(16).execute(task)', await nsPerAsync(() => bh.execute(task)), bare],
];
const syncBare = nsPerSync(() => true);
const syncRows: Array<[string, number]> = [
  ['rxgate TokenBucket.tryAcquire', nsPerSync(() => rx.tryAcquire())],
  ['limiter RateLimiter.tryRemoveTokens', nsPerSync(() => lim.tryRemoveTokens(1))],
];
const fastestAnchor = Math.min(
  ...asyncRows.filter(([name]) => !name.startsWith('rxgate')).map(([, ns, base]) => ns - base),
);
console.log(
  `## (a) hot path, 16 concurrent callers; overhead over a bare awaited call (${fmt(bare)} ns direct, ${fmt(bareWrapped)} ns in an async wrapper)\n`,
);
console.log(
  table(
    ['subject', 'ns/op', 'overhead ns', 'vs fastest async anchor'],
    [
      ...asyncRows.map(([name, ns, base]) => [
        name,
        fmt(ns),
        fmt(ns - base),
        `${fmt((ns - base) / fastestAnchor, 2)}x`,
      ]),
      ...syncRows.map(([name, ns]) => [`${name} (sync)`, fmt(ns), fmt(ns - syncBare), '']),
    ],
  ),
);

// (b) pacing accuracy on real timers
console.log('\n## (b) pacing on real timers: capacity 50, refill 10/s, 150 tasks at once (ideal 10.000 s)\n');
const pace = async (
  name: string,
  run: (n: number) => Promise<unknown>[],
): Promise<[string, string, string]> => {
  const t0 = performance.now();
  await Promise.all(run(150));
  const s = (performance.now() - t0) / 1000;
  return [name, fmt(s, 3), `${fmt(((s - 10) / 10) * 100, 2)}%`];
};
const paceRows = quick
  ? []
  : [
      await pace('rxgate TokenBucket', (n) => {
        const b = new TokenBucket({ capacity: 50, refillPerSecond: 10 });
        return Array.from({ length: n }, () => b.acquire());
      }),
      await pace('limiter TokenBucket (bucketSize 50, starts full)', (n) => {
        const b = new LimiterTokenBucket({ bucketSize: 50, tokensPerInterval: 10, interval: 'second' });
        b.content = 50;
        return Array.from({ length: n }, () => b.removeTokens(1));
      }),
      await pace('bottleneck reservoir 50, +1 per 100 ms (defaults)', (n) => {
        const b = new Bottleneck({
          reservoir: 50,
          reservoirIncreaseAmount: 1,
          reservoirIncreaseInterval: 100,
          reservoirIncreaseMaximum: 50,
        });
        return Array.from({ length: n }, () => b.schedule(task));
      }),
    ];
if (paceRows.length) console.log(table(['subject', 'finish s', 'vs ideal'], paceRows));
else console.log('(skipped with --quick)');

// (c) memory of 10,000 idle keys
console.log('\n## (c) heap retained by 10,000 keys that were each used once and went idle\n');
const KEYS = 10_000;
const memRows: Array<[string, string]> = [];
const kb = (b: number) => `${fmt(b / 1024, 0)} KiB (${fmt(b / KEYS, 0)} B/key)`;
// Everything measured stays alive to the end, so one measurement never frees another's objects.
const keep: unknown[] = [];
memRows.push([
  'rxgate createLimiter, before eviction',
  kb(
    await retainedBytes(() => {
      const l = createLimiter({
        account: { ratePerSecond: HUGE, burst: HUGE },
        perKey: { default: { ratePerSecond: 10, burst: 20 } },
      });
      for (let i = 0; i < KEYS; i++) l.tryAcquire({ key: `payer-${i}` });
      keep.push(l);
      return l;
    }),
  ),
]);
memRows.push([
  'rxgate createLimiter, after idle eviction',
  kb(
    await retainedBytes(async () => {
      const l = createLimiter({
        account: { ratePerSecond: HUGE, burst: HUGE },
        perKey: { default: { ratePerSecond: 1000, burst: 1 } },
      });
      for (let i = 0; i < KEYS; i++) l.tryAcquire({ key: `payer-${i}` });
      await new Promise((r) => setTimeout(r, 5));
      l.sweep();
      keep.push(l);
      return l;
    }),
  ),
]);
memRows.push([
  'rate-limiter-flexible RateLimiterMemory',
  kb(
    await retainedBytes(async () => {
      const l = new RateLimiterMemory({ points: 20, duration: 2 });
      for (let i = 0; i < KEYS; i++) await l.consume(`payer-${i}`);
      keep.push(l);
      return l;
    }),
  ),
]);
memRows.push([
  'limiter: one RateLimiter per key in a Map',
  kb(
    await retainedBytes(() => {
      const m = new Map<string, RateLimiter>();
      for (let i = 0; i < KEYS; i++) {
        const l = new RateLimiter({ tokensPerInterval: 20, interval: 'second' });
        l.tryRemoveTokens(1);
        m.set(`payer-${i}`, l);
      }
      keep.push(m);
      return m;
    }),
  ),
]);
memRows.push([
  'bottleneck Group (one limiter per key)',
  kb(
    await retainedBytes(async () => {
      const g = new Bottleneck.Group({ maxConcurrent: 16, minTime: 0 });
      for (let i = 0; i < KEYS; i++) g.key(`payer-${i}`);
      keep.push(g);
      return g;
    }),
  ),
]);
console.log(table(['subject', 'retained'], memRows));
void keep;
process.exit(0);
