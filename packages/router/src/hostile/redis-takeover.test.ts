// Hostile: two router processes share a RedisLedger; the owner (a child process) is killed with
// SIGKILL while its claims may be committed on one node; the survivor takes them over after the
// lease and must send them only where the dead owner may have been paid.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { redisAvailable, startRedis, VirtualClock } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import { RedisLedger } from '../redis/index.js';
import { startChild } from './child.fixture.js';
import { assertNoPhi, isPaidKind, makeRouter, SECRET, settleBy, within } from './harness.fixture.js';
import { makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

const skip = !redisAvailable();

// The survivor (or the joiner) in this process runs on a VirtualClock: its deadlines, retries,
// breakers and ledger timers. The owner is a real child process over real Redis and HTTP; its
// lease runs out when the test expires it (below), not after real seconds.
const T0 = 1_700_000_000_000;

async function takeover(where: 'primary' | 'secondary') {
  const redisServer = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'hostile-takeover-'));
  const rand = seeded(where === 'primary' ? 61 : 62);
  const claims = Array.from({ length: 4 }, (_, i) =>
    makeClaim(6000 + (where === 'primary' ? 0 : 1), i, rand),
  );
  const v = await twoNodes({
    primary: () => ({ kind: 'hold-after-commit' }),
    fallback: () => ({ kind: 'hold-after-commit' }),
  });
  const committedOn = where === 'primary' ? v.primary : v.fallback;
  const other = where === 'primary' ? v.fallback : v.primary;
  const claimsFile = join(dir, 'claims.json');
  await writeFile(claimsFile, JSON.stringify(claims.map((c) => c.raw)));
  const redis = new Redis(redisServer.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise<void>((r) => redis.once('ready', () => r()));
  const clock = new VirtualClock(T0);
  const survivor = makeRouter([v.primary, v.fallback], {
    ledger: new RedisLedger({ redis, leaseMs: 1500, clock }),
    clock,
    readTimeoutMs: 300,
    lanes: { pos: { default: 800, retail: 800 }, batch: { default: 8000 } },
  });
  try {
    if (where === 'secondary') await v.primary.down(); // the owner fails over first
    const owner = startChild({
      primary: v.primary.url,
      secondary: v.fallback.url,
      ledgerPath: join(dir, 'unused.jsonl'),
      claimsFile,
      lane: 'batch',
      secret: SECRET,
      redisUrl: redisServer.url,
      leaseMs: 1500,
    });
    await within(committedOn.waitForCommits(claims.length), 60_000, `commits on ${where}`);
    owner.child.kill('SIGKILL');
    await within(owner.exit, 10_000, 'owner exit');
    // The dead owner's leases run out: expired now, as Redis would expire them 1.5 s on (the
    // owner is dead, nothing renews them). Its pins stay: they are what the takeover must obey.
    const leases = await redis.keys('rxgate:ledger:lease:*');
    assert.equal(leases.length, claims.length, 'the dead owner held a lease on every claim');
    await redis.del(...leases);
    // The node the claims may be paid on now refuses connections; the other one is healthy.
    await committedOn.down();
    other.fault = () => ({ kind: 'ok' });
    if (where === 'secondary') await v.primary.up();
    const seenBefore = other.seen.length;
    // The node they may be paid on refuses: the survivor retries it (on its clock) until the
    // batch deadline, and must never try the other node.
    const { value: outcomes } = await settleBy(
      clock,
      Promise.all(claims.map((c) => survivor.router.submit(c.raw, { lane: 'batch' }))),
      clock.now() + 8000,
      'takeover submissions (8000 ms batch budget)',
    );
    const leaked = other.seen.slice(seenBefore).filter((r) => claims.some((c) => c.content === r.content));
    assert.equal(
      leaked.length,
      0,
      `${leaked.length} claim(s) committed on ${where} were sent to ${other.name} after the takeover`,
    );
    assert.deepEqual(v.book.paidTwice(), []);
    for (const o of outcomes) assert.ok(!isPaidKind(o) || o.kind === 'paid', o.kind);
    // The node comes back: the same claims are answered from its idempotency store, paid once.
    committedOn.fault = () => ({ kind: 'ok' });
    await committedOn.up();
    const back = await within(
      Promise.all(claims.map((c) => survivor.router.submit(c.raw, { lane: 'batch' }))),
      30_000,
      'after the node is back',
    );
    for (const o of back) assert.ok(isPaidKind(o), `after the node is back: ${o.kind}`);
    for (const c of claims) assert.equal(v.book.paidCount(c.content), 1, c.content);
    assertNoPhi(
      survivor.capture,
      [...outcomes, ...back],
      survivor.audit,
      claims.flatMap((c) => c.phi),
    );
  } finally {
    await within(survivor.router.close(), 10_000, 'close');
    redis.disconnect();
    await v.close();
    await redisServer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function crossProcessJoiner() {
  const redisServer = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'hostile-join-'));
  const c = makeClaim(6100, 0, seeded(63));
  const v = await twoNodes({ primary: () => ({ kind: 'hold-then-commit' }) });
  const claimsFile = join(dir, 'claims.json');
  await writeFile(claimsFile, JSON.stringify([c.raw]));
  const redis = new Redis(redisServer.url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  await new Promise<void>((r) => redis.once('ready', () => r()));
  const clock = new VirtualClock(T0);
  const other = makeRouter([v.primary, v.fallback], {
    ledger: new RedisLedger({ redis, leaseMs: 1500, clock }),
    clock,
  });
  try {
    const owner = startChild({
      primary: v.primary.url,
      secondary: v.fallback.url,
      ledgerPath: join(dir, 'unused.jsonl'),
      claimsFile,
      lane: 'batch',
      secret: SECRET,
      redisUrl: redisServer.url,
      leaseMs: 1500,
    });
    await within(
      v.primary.waitForRequest((r) => r.content === c.content),
      60_000,
      'owner request',
    );
    const t0 = clock.now();
    const { value: pos } = await settleBy(
      clock,
      other.router.submit(c.raw, { lane: 'pos', deadline: t0 + 300 }),
      t0 + 300,
      'the pos joiner in another process (300 ms budget)',
    );
    assert.equal(pos.kind, 'in-flight-elsewhere');
    assert.equal(v.primary.requests, 1, 'the joiner sent nothing');
    v.primary.fault = () => ({ kind: 'ok' });
    v.primary.releaseHeld();
    await within(
      owner.next((l) => l.done === true),
      30_000,
      'owner done',
    );
    const after = await within(other.router.submit(c.raw, { lane: 'pos' }), 5000, 'after');
    assert.ok(isPaidKind(after), after.kind);
    assert.equal(v.book.paidCount(c.content), 1);
    assertNoPhi(other.capture, [pos, after], other.audit, c.phi);
  } finally {
    await within(other.router.close(), 10_000, 'close');
    redis.disconnect();
    await v.close();
    await redisServer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

describe('hostile: Redis takeover after the owner is killed', { skip }, () => {
  it('a pos submission joining a claim owned by another process settles by its own deadline; paid once', async () => {
    await crossProcessJoiner();
  });
  it('owner killed with 4 claims committed on the primary (answers held): the survivor never sends them to the fallback', async () => {
    await takeover('primary');
  });
  it('owner killed after failing 4 claims over to the fallback (answers held): the survivor never sends them to the primary', async () => {
    await takeover('secondary');
  });
});
