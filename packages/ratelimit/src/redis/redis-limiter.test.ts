import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RedisServer, redisAvailable, startRedis, VirtualClock } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import { isDeadlineExceededError } from '../errors.js';
import { createLimiter } from '../limiter.js';
import { createRedisLimiter } from './redis-limiter.js';
import { isStoreUnavailableError } from './redis-store.js';

const available = redisAvailable();
let server: RedisServer;
const clients: Redis[] = [];

async function client(): Promise<Redis> {
  const r = new Redis(server.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    retryStrategy: () => 50,
  });
  r.on('error', () => {});
  clients.push(r);
  if (r.status !== 'ready') await new Promise((res) => r.once('ready', res));
  return r;
}
const waitReady = (r: Redis) =>
  r.status === 'ready' ? Promise.resolve() : new Promise((res) => r.once('ready', res));
let n = 0;
const fresh = () => `t${process.pid}-${++n}`;

describe('Redis store', { skip: !available && 'redis-server not installed' }, () => {
  before(async () => {
    server = await startRedis();
  });
  after(async () => {
    for (const c of clients) c.disconnect();
    await server?.close();
  });

  it('one acquire is one round trip; a burst, then pacing at the shared rate', async () => {
    const limiter = createRedisLimiter({
      redis: await client(),
      name: fresh(),
      account: { ratePerSecond: 20, burst: 10 },
    });
    await limiter.acquire({ key: 'p' }); // loads the script (NOSCRIPT, then EVAL) on a fresh server
    const warm = limiter.roundTrips;
    const t0 = Date.now();
    for (let i = 0; i < 9; i++) await limiter.acquire({ key: 'p' });
    assert.equal(limiter.roundTrips - warm, 9, 'one EVALSHA per uncontended acquire');
    assert.ok(Date.now() - t0 < 1000);
    const times: number[] = [];
    await Promise.all(
      Array.from({ length: 10 }, () =>
        limiter.acquire({ key: 'p', lane: 'batch' }).then(() => times.push(Date.now() - t0)),
      ),
    );
    // 10 more at 20/s: the last about 500 ms in.
    assert.ok(Math.max(...times) >= 400, `paced: ${Math.max(...times)} ms`);
    limiter.close();
  });

  it('fails fast with the predicted wait when the deadline cannot be met', async () => {
    const limiter = createRedisLimiter({
      redis: await client(),
      name: fresh(),
      account: { ratePerSecond: 1, burst: 1 },
    });
    await limiter.acquire({ key: 'p' });
    const t0 = Date.now();
    await assert.rejects(
      limiter.acquire({ key: 'p', deadline: Date.now() + 300 }),
      (e) => isDeadlineExceededError(e) && e.predictedWaitMs > 300,
    );
    assert.ok(Date.now() - t0 < 200, 'rejected at once, not at the deadline');
    limiter.close();
  });

  it('account and key are taken together: a claim waiting on its key spends no account token', async () => {
    const name = fresh();
    const make = async () =>
      createRedisLimiter({
        redis: await client(),
        name,
        account: { ratePerSecond: 10, burst: 10 },
        perKey: { overrides: { slow: { ratePerSecond: 2, burst: 2 } } },
      });
    const [a, b] = [await make(), await make()];
    const until = Date.now() + 3000;
    let slow = 0;
    let fast = 0;
    const loop = async (l: typeof a, key: string, inc: () => void) => {
      for (;;) {
        try {
          await l.acquire({ key, lane: 'batch', deadline: until });
          if (Date.now() <= until) inc();
        } catch {
          return;
        }
      }
    };
    await Promise.all([
      ...Array.from({ length: 4 }, () => loop(a, 'slow', () => slow++)),
      ...Array.from({ length: 4 }, () => loop(b, 'slow', () => slow++)),
      ...Array.from({ length: 4 }, () => loop(a, 'fast', () => fast++)),
      ...Array.from({ length: 4 }, () => loop(b, 'fast', () => fast++)),
    ]);
    // In 3 s: the slow key at most 2 + 2·3 = 8; the account 10 + 10·3 = 40 in all.
    assert.ok(slow <= 8, `slow key admitted ${slow}`);
    assert.ok(slow + fast <= 40, `account admitted ${slow + fast}`);
    assert.ok(
      fast >= 40 - slow - 3,
      `the fast key got what the slow one did not use: ${fast} (slow ${slow})`,
    );
    a.close();
    b.close();
  });

  it('four worker processes sharing 20/s, burst 10, for 10 s admit at most 210 and at least 95 % of it', async () => {
    const name = fresh();
    const workerFile = fileURLToPath(new URL('./worker.fixture.ts', import.meta.url));
    const workers = Array.from({ length: 4 }, () =>
      fork(workerFile, [server.url, name, '10000', '4'], { execArgv: ['--import', 'tsx'] }),
    );
    await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
    const results = workers.map(
      (w) =>
        new Promise<{ admitted: number; roundTrips: number }>((r) => w.once('message', (m) => r(m as never))),
    );
    for (const w of workers) w.send('go');
    const counts = await Promise.all(results);
    const total = counts.reduce((s, c) => s + c.admitted, 0);
    assert.ok(total <= 210, `admitted ${total} > 210`);
    assert.ok(total >= 0.95 * 210, `admitted ${total} < 95 % of 210`);
  });

  it('a quota signal seen by one process reaches every process', async () => {
    const name = fresh();
    const a = createRedisLimiter({ redis: await client(), name, account: { ratePerSecond: 50, burst: 50 } });
    const b = createRedisLimiter({ redis: await client(), name, account: { ratePerSecond: 50, burst: 50 } });
    await a.observe({ retryAfterMs: 1500, throttled: true });
    await assert.rejects(b.acquire({ key: 'p', deadline: Date.now() + 500 }), isDeadlineExceededError);
    const snap = await b.snapshot();
    assert.ok(snap.pausedUntil - Date.now() > 1000, `paused until ${snap.pausedUntil}`);
    const before = Date.now();
    await a.observe({ limit: 100, remaining: 5, resetSeconds: 10 }, {});
    const capped = await b.snapshot();
    // Real time passes between the two on a busy machine: the level refills meanwhile.
    const refilled = (capped.ratePerSecond * (Date.now() - before)) / 1000;
    assert.ok(
      capped.tokens <= 5.01 + refilled,
      `the cap reached the other process: ${JSON.stringify(capped)}, ${refilled} refilled`,
    );
    a.close();
    b.close();
  });

  it("a vendor window's reset gives back what the configured rate allows, not a whole burst", async () => {
    // In the caller's virtual time (Redis does the arithmetic, our clock says when): a busy
    // machine's slow round trips cannot change what is measured.
    const clock = new VirtualClock(1_000_000);
    const limiter = createRedisLimiter({
      redis: await client(),
      name: fresh(),
      time: 'caller',
      clock,
      account: { ratePerSecond: 10, burst: 50 },
    });
    // The whole burst at once (the configured bucket is then 5 s of refill short), then: 1 left
    // of the vendor's window, which resets in 300 ms.
    // The same on the memory store, side by side in the same virtual time.
    const memory = createLimiter({ clock, account: { ratePerSecond: 10, burst: 50 } });
    for (const l of [limiter, memory]) {
      for (let i = 0; i < 50; i++) await l.acquire({ key: 'p' });
      await l.observe({ remaining: 1, resetSeconds: 0.3, limit: 10 });
    }
    await clock.advance(400);
    // The old reset gave back all 50. Now what the vendor's window allows: 10 per 0.3 s
    // adopted as the rate (33/s), 13.2 tokens 400 ms after the burst, as in memory.
    const { tokens } = await limiter.snapshot();
    const inMemory = (await memory.snapshot()).tokens;
    assert.ok(tokens < 20, `tokens after the reset: ${tokens}`);
    assert.ok(Math.abs(tokens - inMemory) < 0.01, `redis ${tokens}, memory ${inMemory}`);
    limiter.close();
  });

  it('reloads its script after SCRIPT FLUSH (NOSCRIPT)', async () => {
    const r = await client();
    const limiter = createRedisLimiter({
      redis: r,
      name: fresh(),
      account: { ratePerSecond: 100, burst: 100 },
    });
    await limiter.acquire({ key: 'p' });
    await r.script('FLUSH');
    await limiter.acquire({ key: 'p' });
    assert.equal(limiter.roundTrips, 3, 'one, then NOSCRIPT and EVAL');
    limiter.close();
  });

  it('leaves no key without a TTL', async () => {
    const r = await client();
    const limiter = createRedisLimiter({
      redis: r,
      name: fresh(),
      account: { ratePerSecond: 100, burst: 100 },
      perKey: { default: { ratePerSecond: 10, burst: 10 } },
    });
    for (let i = 0; i < 20; i++) await limiter.acquire({ key: `payer-${i % 5}` });
    await limiter.observe({ retryAfterMs: 100 });
    await limiter.observe({ throttled: true }, { key: 'payer-1' });
    const keys = await r.keys('rxgate:*');
    assert.ok(keys.length >= 6);
    for (const k of keys) assert.ok((await r.pttl(k)) > 0, `${k} has no TTL`);
    limiter.close();
  });

  it('Redis down: fail closed with a typed error, never past the deadline; or fall back to a local limit and come back', async () => {
    const closedR = await client();
    const localR = await client();
    const closedL = createRedisLimiter({
      redis: closedR,
      name: fresh(),
      account: { ratePerSecond: 100, burst: 100 },
    });
    const localL = createRedisLimiter({
      redis: localR,
      name: fresh(),
      account: { ratePerSecond: 100, burst: 100 },
      onUnavailable: { fallback: 'local', processes: 4 },
    });
    await localL.acquire({ key: 'p' });
    const before = localL.roundTrips;
    await server.stop(true);
    await new Promise((res) => setTimeout(res, 100));
    const t0 = Date.now();
    await assert.rejects(
      closedL.acquire({ key: 'p', deadline: Date.now() + 800 }),
      (e) => isStoreUnavailableError(e) || isDeadlineExceededError(e),
    );
    assert.ok(Date.now() - t0 <= 900, 'nothing hangs past the deadline');
    // The local fallback admits at a quarter of the shared rate.
    for (let i = 0; i < 5; i++) await localL.acquire({ key: 'p', deadline: Date.now() + 2000 });
    assert.equal(localL.roundTrips, before, 'no round trip while Redis is down');
    assert.equal(localL.shared, false);
    await server.start();
    await waitReady(localR);
    await localL.acquire({ key: 'p' });
    assert.ok(localL.roundTrips > before, 'back on Redis once it answers');
    closedL.close();
    localL.close();
  });
});
