// Takeovers on the shared Redis ledger over random schedules (fast-check): process A runs
// claims against a vendor with random faults and dies at a random moment (kill -9: nothing it
// started leaves it, its leases are no longer renewed); process B, with the same claims,
// waits out A's leases and takes the claims over. Payments are counted by claim content.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLimiter, systemClock } from '@rxgate/ratelimit';
import { type RedisServer, redisAvailable, seededRandom, startRedis } from '@rxgate/testkit';
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { TransportError } from '../errors.js';
import type { Ledger } from '../ledger.js';
import type { Outcome } from '../outcome.js';
import { createRouter } from '../router.js';
import { type Fault, fakeVendor } from '../test-support/fake-vendor.js';
import { rawClaim, SECRET } from '../test-support/fixtures.js';
import { functionTransport } from '../transport.js';
import { RedisLedger } from './redis-stores.js';

const available = redisAvailable();
let server: RedisServer;
const NEVER = new Promise<never>(() => {});
const FAULTS: Fault[] = [
  'ok',
  'reset-before',
  'commit-then-reset',
  'commit-then-504',
  '502',
  '503-maintenance',
  '429',
];

describe('takeovers on the Redis ledger (property)', {
  skip: !available && 'redis-server not installed',
}, () => {
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    await server?.close();
  });

  it('a claim is never paid twice when its owner dies and another process takes it over', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer(),
          faults: fc.array(fc.tuple(fc.constantFrom(...FAULTS), fc.integer({ min: 1, max: 6 })), {
            minLength: 1,
            maxLength: 5,
          }),
          claims: fc.integer({ min: 1, max: 5 }),
          // A dies when its k-th request comes back, whatever the vendor did with it (or later,
          // at crashAfterMs, if it sends fewer).
          crashAtAnswer: fc.integer({ min: 1, max: 12 }),
          crashAfterMs: fc.integer({ min: 0, max: 300 }),
          // The primary refuses this share of connections: claims fail over to the secondary.
          primaryRefuses: fc.integer({ min: 0, max: 10 }).map((n) => n / 10),
          sharedIdempotency: fc.boolean(),
        }),
        async (s) => {
          const prefix = `rxgate:takeover:${++run}`;
          const vendor = fakeVendor({
            clock: systemClock,
            random: seededRandom(s.seed),
            faults: [['ok', 2], ...s.faults],
            sharedIdempotency: s.sharedIdempotency,
            latencyMs: [10, 60],
          });
          const closers: Array<() => unknown> = [];
          const refuse = seededRandom(s.seed + 2);
          let answers = 0;
          const process_ = (dead: { v: boolean }, crashAt?: number) => {
            const redis = new Redis(server.url);
            redis.on('error', () => {});
            const ledger = new RedisLedger({ redis, leaseMs: 300, prefix });
            const guard = <T>(p: Promise<T>): Promise<T> =>
              p.then(
                (v) => (dead.v ? NEVER : v),
                (e) => (dead.v ? NEVER : Promise.reject(e)),
              );
            const dying: Ledger = {
              begin: (k) => (dead.v ? NEVER : guard(ledger.begin(k))),
              pin: (k, n) => (dead.v ? NEVER : guard(ledger.pin(k, n))),
              unpin: (k) => (dead.v ? NEVER : guard(ledger.unpin(k))),
              finish: (k, o) => (dead.v ? NEVER : guard(ledger.finish(k, o))),
              reopen: (k) => (dead.v ? NEVER : guard(ledger.reopen(k))),
              lookup: (k) => (dead.v ? NEVER : guard(ledger.lookup(k))),
              close: () => Promise.resolve(),
            };
            closers.push(
              () => ledger.close(),
              () => redis.disconnect(),
            );
            const router = createRouter({
              nodes: [
                { name: 'primary', url: 'http://primary.test' },
                { name: 'secondary', url: 'http://secondary.test' },
              ],
              sharedIdempotency: s.sharedIdempotency,
              idempotencySecret: SECRET,
              ledger: dying,
              transport: functionTransport((n, r, sig) => {
                if (dead.v) return NEVER;
                if (n.name === 'primary' && refuse() < s.primaryRefuses)
                  return Promise.reject(new TransportError('not-sent', 'ECONNREFUSED'));
                const answered = vendor.handle(n, r, sig);
                if (crashAt === undefined) return guard(answered);
                const die = () => {
                  if (++answers === crashAt) dead.v = true;
                };
                return guard(
                  answered.then(
                    (v) => {
                      die();
                      return v;
                    },
                    (e) => {
                      die();
                      throw e;
                    },
                  ),
                );
              }),
              limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
              retry: { baseMs: 5, capMs: { pos: 20, batch: 20 } },
              lanes: { pos: { default: 800 }, batch: { default: 4000 } },
              random: seededRandom(s.seed + 1),
            });
            return { router, ledger };
          };
          try {
            const deadA = { v: false };
            const a = process_(deadA, s.crashAtAnswer);
            const raws = Array.from({ length: s.claims }, (_, i) => rawClaim({ '402-D2': String(8000 + i) }));
            for (const raw of raws) void a.router.submit(raw, { lane: 'batch' });
            await new Promise((r) => setTimeout(r, s.crashAfterMs));
            deadA.v = true; // killed now, if its k-th answer did not kill it first
            await a.ledger.close(); // its leases are no longer renewed
            const b = process_({ v: false });
            const outcomes: Outcome[] = await Promise.all(
              raws.map((raw) => b.router.submit(raw, { lane: 'batch' })),
            );
            if (process.env.RX_DEBUG)
              console.log(
                JSON.stringify(s),
                outcomes.map((o) => `${o.kind}:${o.path.join('>')}`).join(' '),
                [...vendor.payments.values()].join(','),
              );
            for (const o of outcomes) assert.ok(o.kind !== 'invalid', o.kind);
            for (const [identity, n] of vendor.payments)
              assert.equal(n, 1, `claim ${identity} paid ${n} times`);
          } finally {
            for (const c of closers) await c();
          }
        },
      ),
      { numRuns: Number(process.env.RX_TAKEOVER_RUNS ?? 12) },
    );
  });
});
