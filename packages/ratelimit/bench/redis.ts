// npm run bench -w @rxgate/ratelimit (Redis part): one local redis-server, side by side.
import { fmt, redisAvailable, startRedis, table } from '@rxgate/testkit';
import Bottleneck from 'bottleneck';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { createRedisLimiter } from '../src/redis/index.js';

if (!redisAvailable()) process.exit(0);
const server = await startRedis();
const redis = new Redis(server.url, { enableOfflineQueue: false });
await new Promise((r) => redis.once('ready', r));
const HUGE = 1e9;
const CALLERS = 16;
const N = 20_000;

const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))![1]);
// Round trips as the client sends them: each command, a MULTI…EXEC block counting once.
let sent = 0;
let inMulti = false;
const send = redis.sendCommand.bind(redis);
redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
  const name = command.name.toLowerCase();
  if (name === 'multi') inMulti = true;
  else if (name === 'exec') {
    inMulti = false;
    sent++;
  } else if (!inMulti) sent++;
  return (send as (...a: unknown[]) => unknown)(command, ...rest);
}) as typeof redis.sendCommand;
async function measure(
  name: string,
  acquire: () => Promise<unknown>,
  ownClient = false,
): Promise<[string, string, string, string]> {
  for (let i = 0; i < 500; i++) await acquire();
  const c0 = await commands();
  const s0 = sent;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next++ < N) await acquire();
    }),
  );
  const s = (performance.now() - t0) / 1000;
  const trips = sent - s0;
  const c1 = await commands();
  // The INFO call itself is one command.
  return [
    name,
    ownClient ? 'n/a (its own clients)' : fmt(trips / N, 2),
    fmt((c1 - c0 - 1) / N, 2),
    Math.round(N / s).toLocaleString('en'),
  ];
}

const rx = createRedisLimiter({
  redis,
  name: 'bench',
  account: { ratePerSecond: HUGE, burst: HUGE },
  perKey: { default: { ratePerSecond: HUGE, burst: HUGE } },
});
const rlf = new RateLimiterRedis({ storeClient: redis, points: HUGE, duration: 1, keyPrefix: 'rlf' });
const bottleneck = new Bottleneck({
  id: 'bench',
  datastore: 'ioredis',
  clearDatastore: true,
  clientOptions: { host: '127.0.0.1', port: server.port },
});
await bottleneck.ready();
const task = async () => {};

const rows = [
  await measure('rxgate createRedisLimiter, account + key in one script', () =>
    rx.acquire({ key: '610014/ADV' }),
  ),
  await measure('rate-limiter-flexible RateLimiterRedis.consume', () => rlf.consume('610014/ADV')),
  await measure('bottleneck, ioredis datastore', () => bottleneck.schedule(task), true),
];
console.log(
  `\n## Redis (${CALLERS} concurrent callers, ${N.toLocaleString('en')} acquires, one local redis-server)\n`,
);
console.log(
  table(
    ['subject', 'round trips per acquire', 'Redis commands per acquire (scripts included)', 'acquires/s'],
    rows,
  ),
);
rx.close();
await bottleneck.disconnect();
redis.disconnect();
await server.close();
process.exit(0);
