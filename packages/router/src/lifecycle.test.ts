// The claim's life as pharmacies live it, over real HTTP (msw served on loopback node:http),
// against a payer that adjudicates by claim content (test-support/lifecycle-vendor.ts):
// corrected resubmissions, reversals and rebills, reconciliation, payer-scoped negative cache.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { VirtualClock } from '@rxgate/testkit';
import { openFileLedger } from './journal-ledger.js';
import type { Ledger } from './ledger.js';
import { MemoryLedger } from './memory-ledger.js';
import { MemoryNegativeCache } from './negative-cache.js';
import { createRouter, type RouterOptions } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { type LifecyclePayer, lifecyclePayer } from './test-support/lifecycle-vendor.js';
import { type LoopbackServer, serve } from './test-support/msw-server.js';
import { undiciTransport } from './transport.js';

const servers: LoopbackServer[] = [];
const dirs: string[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

export async function payerNode(): Promise<{ url: string; payer: LifecyclePayer }> {
  const server = await serve();
  servers.push(server);
  const payer = lifecyclePayer(server.url);
  server.use(...payer.handlers);
  return { url: server.url, payer };
}

function options(extra: Partial<RouterOptions> & Pick<RouterOptions, 'nodes'>): RouterOptions {
  return {
    idempotencySecret: SECRET,
    ledger: new MemoryLedger(),
    transport: undiciTransport({ connectTimeoutMs: 300, readTimeoutMs: 2000 }),
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
    retry: { baseMs: 5, capMs: { pos: 20, batch: 20 } },
    lanes: { pos: { default: 1500 }, batch: { default: 5000 } },
    ...extra,
  };
}

/** Rejects 76 (plan limits exceeded) above 30 units. */
const planLimit = (body: Record<string, unknown>) =>
  Number(body['442-E7']) > 30
    ? { reject: ['76'], messages: ['QTY LIMIT 30 PER 30 DAYS'] }
    : { pay: true as const };

describe('identity and attempts: a rejected claim is sent again under a fresh key (real HTTP)', () => {
  it('rejected 76, corrected quantity, resubmitted: sent under the next generation key and paid; the outcome says generation 1', async () => {
    const { url, payer } = await payerNode();
    payer.rule = planLimit;
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const first = await router.submit(rawClaim({ '442-E7': '60.000' }));
    assert.equal(first.kind, 'rejected');
    assert.deepEqual(first.kind === 'rejected' && first.codes, ['76']);
    assert.equal(first.generation, undefined);
    const corrected = await router.submit(rawClaim({ '442-E7': '30.000' }));
    assert.equal(corrected.kind, 'paid');
    assert.equal(corrected.generation, 1);
    assert.equal(payer.requests.length, 2);
    const [k0, k1] = payer.requests.map((r) => r.key);
    assert.notEqual(k0, k1);
    assert.equal(k1, `${k0}.g1`);
    assert.equal(payer.requests[1]!.replayed, false);
    // Paid: a resubmission gets the stored outcome, never a send.
    const again = await router.submit(rawClaim({ '442-E7': '30.000' }));
    assert.equal(again.kind, 'paid');
    assert.equal(payer.requests.length, 2);
    assert.deepEqual([...payer.payments.values()], [1]);
    await router.close();
  });

  it('rejected, resubmitted unchanged: sent again (the payer fixed eligibility behind the counter)', async () => {
    const { url, payer } = await payerNode();
    payer.script.push({ reject: ['65'] }); // patient not covered, fixed by a phone call
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    assert.equal((await router.submit(rawClaim())).kind, 'rejected');
    const again = await router.submit(rawClaim());
    assert.equal(again.kind, 'paid');
    assert.equal(payer.requests.length, 2);
    assert.equal(payer.requests[1]!.replayed, false);
    await router.close();
  });

  it('concurrent duplicates of a claim still join: one send, one answer for both', async () => {
    const { url, payer } = await payerNode();
    payer.script.push({ reject: ['76'] });
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const [a, b] = await Promise.all([router.submit(rawClaim()), router.submit(rawClaim())]);
    assert.deepEqual([a.kind, b.kind], ['rejected', 'rejected']);
    assert.equal(payer.requests.length, 1);
    await router.close();
  });

  it('after a restart (the journal ledger over a file), the corrected claim goes under the next generation key: the old reject is not replayed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-life-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.jsonl');
    const { url, payer } = await payerNode();
    payer.rule = planLimit;
    const run = async (ledger: Ledger, raw: Record<string, unknown>) => {
      const router = createRouter(options({ nodes: [{ name: 'primary', url }], ledger }));
      const o = await router.submit(raw);
      await router.close();
      return o;
    };
    assert.equal((await run(await openFileLedger(path), rawClaim({ '442-E7': '60.000' }))).kind, 'rejected');
    const after = await run(await openFileLedger(path), rawClaim({ '442-E7': '30.000' }));
    assert.equal(after.kind, 'paid');
    assert.equal(after.generation, 1);
    assert.equal(payer.requests[1]!.replayed, false);
    assert.equal(payer.requests[1]!.key, `${payer.requests[0]!.key}.g1`);
  });
});

describe('payer-scoped negative cache (real HTTP)', () => {
  it("one payer's unknown product is local for that payer only; another payer with the same NDC is sent and paid", async () => {
    const { url, payer } = await payerNode();
    // BIN/PCN ADV does not list the NDC; OTHER pays it.
    payer.rule = (body) => (body['104-A4'] === 'ADV' ? { notFound: 'unknown_product' } : { pay: true });
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const first = await router.submit(rawClaim({ '402-D2': '1001' }));
    assert.deepEqual(first.kind === 'rejected' && [first.codes, first.local], [['70'], false]);
    const samePayer = await router.submit(rawClaim({ '402-D2': '1002' }));
    assert.deepEqual(samePayer.kind === 'rejected' && [samePayer.codes, samePayer.local], [['70'], true]);
    const otherPayer = await router.submit(rawClaim({ '402-D2': '1003', '104-A4': 'OTHER' }));
    assert.equal(otherPayer.kind, 'paid');
    assert.equal(payer.requests.length, 2);
    await router.close();
  });

  it("a local reject is never stored as the claim's outcome: once the cache forgets, the same claim is sent", async () => {
    const { url, payer } = await payerNode();
    let listed = false;
    payer.rule = () => (listed ? { pay: true } : { notFound: 'unknown_product' });
    const cacheClock = new VirtualClock(0);
    const router = createRouter(
      options({ nodes: [{ name: 'primary', url }], negativeCache: new MemoryNegativeCache(cacheClock) }),
    );
    assert.equal((await router.submit(rawClaim({ '402-D2': '2001' }))).kind, 'rejected');
    const local = await router.submit(rawClaim({ '402-D2': '2002' }));
    assert.equal(local.kind === 'rejected' && local.local, true);
    listed = true; // the payer's directory now lists it
    await cacheClock.advance(600_001); // the cache's TTL (10 minutes) passes
    const sent = await router.submit(rawClaim({ '402-D2': '2002' }));
    assert.equal(sent.kind, 'paid');
    assert.equal(payer.requests.length, 2);
    await router.close();
  });
});
