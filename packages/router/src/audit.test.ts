import assert from 'node:assert/strict';
import { appendFile, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import { JsonlAuditLog, replayAudit } from './audit.js';
import { clientCredentials } from './credentials.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter } from './router.js';
import { fakeVendor } from './test-support/fake-vendor.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport } from './transport.js';

describe('audit log', () => {
  it('appends JSON lines, and replayAudit rebuilds every outcome from the file', async () => {
    const file = join(tmpdir(), `rxgate-audit-${process.pid}-${Date.now()}.jsonl`);
    const clock = new VirtualClock();
    const vendor = fakeVendor({
      clock,
      random: seededRandom(3),
      faults: [
        ['ok', 3],
        ['500', 1],
        ['reject-70', 1],
      ],
      sharedIdempotency: false,
    });
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: 'http://p.test' }],
      idempotencySecret: SECRET,
      transport: functionTransport(vendor.handle),
      limiter: createLimiter({ account: { ratePerSecond: 100, burst: 100 }, clock }),
      audit: new JsonlAuditLog(file),
      clock,
      random: seededRandom(4),
    });
    const ps = Array.from({ length: 20 }, (_, i) =>
      router.submit(rawClaim({ '402-D2': String(i) }), { lane: 'batch' }),
    );
    await clock.runAll();
    const outcomes = await Promise.all(ps);
    await router.close();
    const text = await readFile(file, 'utf8');
    assert.ok(!text.includes('ZX9900112') && !text.includes('"ANA"'), 'no PHI in the audit file');
    await appendFile(file, '{"torn line\n');
    const { claims, corruptLines } = await replayAudit(file);
    assert.equal(corruptLines, 1);
    assert.equal(claims.size, 20);
    for (const o of outcomes) {
      const replayed = claims.get(o.claimKey);
      assert.equal(replayed?.outcome?.kind, o.kind);
      assert.equal(replayed?.attempts, o.attempts);
    }
    await rm(file);
  });
});

describe('client credentials', () => {
  it('caches, refreshes min(60 s, a tenth of the lifetime) before expiry in the background, once however many ask', async () => {
    const clock = new VirtualClock();
    let fetches = 0;
    const transport = functionTransport(async () => {
      fetches++;
      await new Promise<void>((r) => clock.setTimer(10, r));
      return {
        status: 200,
        headers: {},
        body: JSON.stringify({ access_token: `t${fetches}`, token_type: 'Bearer', expires_in: 300 }),
      };
    });
    const creds = clientCredentials({
      clients: { p: { clientId: 'id', clientSecret: 'secret' } },
      transport,
      clock,
    });
    const node = { name: 'p', url: 'http://p.test' };
    const signal = new AbortController().signal;
    const first = Promise.all(Array.from({ length: 10 }, () => creds.token(node, signal)));
    await clock.runAll();
    assert.deepEqual(new Set(await first), new Set(['t1']));
    await clock.advance(269_000);
    assert.equal(await creds.token(node, signal), 't1');
    await clock.advance(1_000);
    // 30 s before the 300 s expiry: the token in force is served, one refresh goes out.
    assert.equal(await creds.token(node, signal), 't1');
    await clock.runAll();
    assert.equal(await creds.token(node, signal), 't2', 'refreshed 30 s before the 300 s expiry');
    creds.invalidate(node, 't1');
    assert.equal(await creds.token(node, signal), 't2', 'invalidating an old token keeps the new one');
    creds.invalidate(node, 't2');
    const forced = creds.token(node, signal);
    await clock.runAll();
    assert.equal(await forced, 't3');
    assert.equal(fetches, 3);
  });
});

describe('the ledger is what stops a resubmission from being paid twice', () => {
  async function run(ledger: InstanceType<typeof import('./memory-ledger.js').MemoryLedger>) {
    const { createBreakers } = await import('@rxgate/breaker');
    const clock = new VirtualClock();
    const vendor = fakeVendor({
      clock,
      random: seededRandom(1),
      faults: [['ok', 1]],
      sharedIdempotency: false,
    });
    const breakers = createBreakers({ clock });
    const router = createRouter({
      nodes: [
        { name: 'primary', url: 'http://p.test' },
        { name: 'secondary', url: 'http://s.test' },
      ],
      idempotencySecret: SECRET,
      transport: functionTransport(vendor.handle),
      limiter: createLimiter({ account: { ratePerSecond: 100, burst: 100 }, clock }),
      breakers,
      ledger,
      clock,
      random: seededRandom(2),
    });
    const submit = async (raw: Record<string, unknown>) => {
      const p = router.submit(raw, { lane: 'batch' });
      await clock.runAll();
      return p;
    };
    assert.equal((await submit(rawClaim({ '402-D2': '1' }))).kind, 'paid');
    assert.equal((await submit(rawClaim({ '402-D2': '2' }))).kind, 'paid');
    // The primary goes down; the first claim is submitted again.
    breakers.get('primary:retail').isolate();
    const again = await submit(rawClaim({ '402-D2': '1' }));
    await router.close();
    return { again, paidTwice: [...vendor.payments.values()].some((n) => n > 1) };
  }

  it('by default every finished claim is remembered: the resubmission is answered, not sent', async () => {
    const { MemoryLedger } = await import('./memory-ledger.js');
    const r = await run(new MemoryLedger());
    assert.equal(r.again.attempts, 1, 'the stored outcome of the first submission');
    assert.equal(r.paidTwice, false);
  });
});
