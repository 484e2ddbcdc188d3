import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLimiter } from '@rxgate/ratelimit';
import { type RedisServer, redisAvailable, startRedis } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import { parseClaim } from '../claim.js';
import { idempotencyKey } from '../idempotency.js';
import { createRouter } from '../router.js';
import { rawClaim, SECRET } from '../test-support/fixtures.js';
import { lifecyclePayer } from '../test-support/lifecycle-vendor.js';
import { type LoopbackServer, serve } from '../test-support/msw-server.js';
import { PAID, type TestVendor, testVendor } from '../test-support/vendor.js';
import { RedisLedger, RedisNegativeCache } from './redis-stores.js';

const available = redisAvailable();
let server: RedisServer;
let http: LoopbackServer;
let vendor: TestVendor;
const closers: Array<() => unknown> = [];

async function routerProcess() {
  const redis = new Redis(server.url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: () => 100,
  });
  redis.on('error', () => {});
  if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
  const ledger = new RedisLedger({ redis, leaseMs: 600 });
  closers.push(
    () => ledger.close(),
    () => redis.disconnect(),
  );
  return createRouter({
    nodes: [{ name: 'primary', url: http.url }],
    idempotencySecret: SECRET,
    ledger,
    negativeCache: new RedisNegativeCache(redis),
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
    lanes: { pos: { default: 3000 }, batch: { default: 10_000 } },
  });
}

describe('router on Redis: one ledger and one negative cache for every process', {
  skip: !available && 'redis-server not installed',
}, () => {
  before(async () => {
    server = await startRedis();
    http = await serve();
  });
  after(async () => {
    for (const c of closers) await c();
    await http?.close();
    await server?.close();
  });

  it('a reject moves the identity to its next generation in Redis: another process sends the resubmission under a fresh key; a reversal reopens a payment', async () => {
    const payer = lifecyclePayer(http.url);
    http.reset(...payer.handlers);
    payer.script.push({ reject: ['76'] });
    const [a, b] = [await routerProcess(), await routerProcess()];
    const rejected = await a.submit(rawClaim({ '402-D2': '7301' }));
    assert.equal(rejected.kind, 'rejected');
    const paid = await b.submit(rawClaim({ '402-D2': '7301', '442-E7': '20.000' }));
    assert.equal(paid.kind, 'paid');
    assert.equal(paid.generation, 1);
    assert.equal(payer.requests[1]!.key, `${payer.requests[0]!.key}.g1`);
    assert.equal(payer.requests[1]!.replayed, false);
    assert.equal((await a.submit(rawClaim({ '402-D2': '7301' }))).kind, 'paid');
    assert.equal(payer.requests.length, 2);
  });

  it('two processes submitting one claim at once: sent once, one outcome for both', async () => {
    vendor = testVendor(http.url);
    http.reset(...vendor.handlers);
    vendor.script.push({ status: 200, body: PAID, delayMs: 100 });
    const [a, b] = [await routerProcess(), await routerProcess()];
    const [oa, ob] = await Promise.all([
      a.submit(rawClaim({ '402-D2': '7001' })),
      b.submit(rawClaim({ '402-D2': '7001' })),
    ]);
    assert.equal(oa.kind, 'paid');
    assert.equal(ob.kind, 'paid');
    assert.equal(vendor.requests.length, 1, 'sent once');
    assert.equal(
      oa.kind === 'paid' && ob.kind === 'paid' && ob.amounts.totalPaid?.toFixed(2),
      '7.34',
      'amounts survive the trip through Redis as Decimal',
    );
    const again = await b.submit(rawClaim({ '402-D2': '7001' }));
    assert.equal(again.correlationId, oa.correlationId, 'the stored outcome');
  });

  it('a claim owned by a process that dies is finished exactly once by another', async () => {
    vendor = testVendor(http.url);
    http.reset(...vendor.handlers);
    const raw = rawClaim({ '402-D2': '7002' });
    const key = idempotencyKey(parseClaim(raw), SECRET);
    const child = fork(fileURLToPath(new URL('./owner.fixture.ts', import.meta.url)), [server.url, key], {
      execArgv: ['--import', 'tsx'],
    });
    assert.equal(await new Promise((r) => child.once('message', r)), 'owner');
    child.kill('SIGKILL');
    const [a, b] = [await routerProcess(), await routerProcess()];
    // Both wait on the dead owner; when its lease expires one takes over, the other joins it.
    const [oa, ob] = await Promise.all([a.submit(raw), b.submit(raw)]);
    assert.equal(oa.kind, 'paid');
    assert.equal(ob.kind, 'paid');
    assert.equal(vendor.requests.length, 1, 'finished exactly once');
    // Counted by claim content, not by our key.
    assert.deepEqual([...vendor.paidByContent.values()], [1]);
  });

  it("a takeover respects the dead owner's pin: a claim it failed over is finished on the fallback, never paid on the primary", async () => {
    const paid = new Map<string, number>();
    const fallbackHttp = await serve();
    closers.push(() => fallbackHttp.close());
    const fallback = testVendor(fallbackHttp.url);
    fallback.paidByContent = paid;
    fallbackHttp.reset(...fallback.handlers);
    fallback.script.push({ status: 200, body: PAID, commitThen: 'hang' });
    // Resolves at the fallback's first request: the moment the dead owner reached it.
    const reachedFallback = new Promise<void>((resolve) => {
      const push = fallback.requests.push.bind(fallback.requests);
      fallback.requests.push = (...items) => {
        const n = push(...items);
        resolve();
        return n;
      };
    });
    vendor = testVendor(http.url);
    vendor.paidByContent = paid;
    http.reset(...vendor.handlers);
    const refused = await serve();
    await refused.close();
    const child = fork(
      fileURLToPath(new URL('./takeover.fixture.ts', import.meta.url)),
      [server.url, refused.url, fallbackHttp.url],
      { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] },
    );
    // The dead owner reached the fallback (which paid): now it dies.
    await reachedFallback;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    // Another process, with the primary back, gets the same claim.
    const redis = new Redis(server.url);
    redis.on('error', () => {});
    const ledger = new RedisLedger({ redis, leaseMs: 600 });
    closers.push(
      () => ledger.close(),
      () => redis.disconnect(),
    );
    const b = createRouter({
      nodes: [
        { name: 'primary', url: http.url },
        { name: 'secondary', url: fallbackHttp.url },
      ],
      idempotencySecret: SECRET,
      ledger,
      limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
      lanes: { pos: { default: 3000 }, batch: { default: 10_000 } },
    });
    const o = await b.submit(rawClaim({ '402-D2': '7010' }), { lane: 'batch' });
    assert.deepEqual([o.kind, o.kind === 'paid' && o.node], ['paid', 'secondary']);
    assert.equal(vendor.requests.length, 0, 'nothing went to the primary');
    assert.equal(
      fallback.requests.at(-1)?.key,
      fallback.requests[0]?.key,
      'the same key: the fallback replayed',
    );
    assert.deepEqual([...paid.values()], [1]);
  });

  it('a 404 seen by one process is a local reject in every other', async () => {
    vendor = testVendor(http.url);
    http.reset(...vendor.handlers);
    vendor.script.push({ status: 404, body: { error: 'unknown_route', field: '104-A4' } });
    const [a, b] = [await routerProcess(), await routerProcess()];
    const first = await a.submit(rawClaim({ '402-D2': '7003', '104-A4': 'GONE' }));
    assert.deepEqual(first.kind === 'rejected' && [first.codes, first.local], [['04'], false]);
    const second = await b.submit(rawClaim({ '402-D2': '7004', '104-A4': 'GONE' }));
    assert.deepEqual(second.kind === 'rejected' && [second.codes, second.local], [['04'], true]);
    assert.equal(vendor.requests.length, 1);
  });

  it('leaves no key without a TTL, and a dead-lettered claim is not final', async () => {
    const redis = new Redis(server.url);
    redis.on('error', () => {});
    closers.push(() => redis.disconnect());
    const keys = await redis.keys('rxgate:*');
    assert.ok(keys.length >= 3);
    for (const k of keys) assert.ok((await redis.pttl(k)) > 0, `${k} has no TTL`);
    vendor = testVendor(http.url);
    http.reset(...vendor.handlers);
    vendor.script.push({ status: 400, body: { error: 'invalid', field: '442-E7' } });
    const a = await routerProcess();
    assert.equal((await a.submit(rawClaim({ '402-D2': '7005' }))).kind, 'dead-lettered');
    assert.equal(
      (await a.submit(rawClaim({ '402-D2': '7005' }))).kind,
      'paid',
      'resubmitted from the dead-letter queue, it runs again',
    );
  });

  it('Redis down: the claim is dead-lettered, nothing is sent', async () => {
    vendor = testVendor(http.url);
    http.reset(...vendor.handlers);
    const a = await routerProcess();
    await server.stop(true);
    const o = await a.submit(rawClaim({ '402-D2': '7006' }));
    assert.deepEqual(o.kind === 'dead-lettered' && o.reason, 'ledger-unavailable');
    assert.equal(vendor.requests.length, 0);
    await server.start();
  });
});
