// A router process for the kill -9 scenario, set up as the README's default: no `ledger` given,
// the durable file ledger at `ledgerPath`. Reads its claims from a JSON file, submits them all at
// once, prints one JSON line per outcome on stdout ("ready" first). argv: config JSON.

import { readFile } from 'node:fs/promises';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { createRouter, MemoryAuditLog, MemoryLedger, undiciTransport } from '../index.js';

interface Config {
  primary: string;
  secondary: string;
  ledgerPath: string;
  claimsFile: string;
  lane: 'pos' | 'batch';
  secret: string;
  /** The control: the memory ledger, which the README says does not survive a restart. */
  memory?: boolean;
  /** A shared Redis ledger instead of the file (the takeover scenario). */
  redisUrl?: string;
  /** Submitted after the parent writes `go` on stdin (after the first batch ended). */
  claimsFile2?: string;
  leaseMs?: number;
}

const config = JSON.parse(process.argv[2] ?? '{}') as Config;
const claims = JSON.parse(await readFile(config.claimsFile, 'utf8')) as unknown[];
let ledgerOption: Record<string, unknown> = config.memory
  ? { ledger: new MemoryLedger() }
  : { ledgerPath: config.ledgerPath };
if (config.redisUrl) {
  const { Redis } = await import('ioredis');
  const { RedisLedger } = await import('../redis/index.js');
  const redis = new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise<void>((resolve) => redis.once('ready', () => resolve()));
  ledgerOption = { ledger: new RedisLedger({ redis, leaseMs: config.leaseMs ?? 1500 }) };
}
const router = createRouter({
  nodes: [
    { name: 'primary', url: config.primary },
    { name: 'secondary', url: config.secondary },
  ],
  sharedIdempotency: false,
  ...ledgerOption,
  audit: new MemoryAuditLog(),
  limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 1000, concurrency: 64 } }),
  breakers: createBreakers({
    defaults: {
      policy: { kind: 'time-window', windowMs: 30_000, minimumCalls: 10, failureRate: 0.5 },
      openDuration: { initialMs: 150, maxMs: 600 },
      maxProbes: 2,
      successesToClose: 3,
    },
  }),
  lanes: { pos: { default: 800, retail: 800 }, batch: { default: 8000 } },
  retry: { baseMs: 5, capMs: { pos: 40, batch: 80 } },
  transport: undiciTransport({ connectTimeoutMs: 300, readTimeoutMs: 2000 }),
  idempotencySecret: config.secret,
});
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
await Promise.all(
  claims.map(async (raw, i) => {
    const o = await router.submit(raw, { lane: config.lane });
    const node = 'node' in o ? o.node : undefined;
    process.stdout.write(`${JSON.stringify({ i, kind: o.kind, node, path: o.path })}\n`);
  }),
);
if (config.claimsFile2) {
  const more = JSON.parse(await readFile(config.claimsFile2, 'utf8')) as unknown[];
  process.stdout.write(`${JSON.stringify({ batch1: true })}\n`);
  await new Promise<void>((resolve) => {
    process.stdin.on('data', (b: Buffer) => {
      if (b.toString().includes('go')) resolve();
    });
  });
  await Promise.all(
    more.map(async (raw, j) => {
      const o = await router.submit(raw, { lane: config.lane });
      const node = 'node' in o ? o.node : undefined;
      const reason = 'reason' in o ? o.reason : undefined;
      process.stdout.write(`${JSON.stringify({ i: claims.length + j, kind: o.kind, node, reason })}\n`);
    }),
  );
}
await router.close();
process.stdout.write(`${JSON.stringify({ done: true })}\n`, () => process.exit(0));
