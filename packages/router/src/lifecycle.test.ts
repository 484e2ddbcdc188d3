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
import { MemoryAuditLog } from './audit.js';
import { MemoryDeadLetterQueue } from './dead-letters.js';
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

/** The primary and the fallback, two payer nodes with their own idempotency stores. */
const twoNodes = (p: { url: string }, s: { url: string }) => [
  { name: 'primary', url: p.url },
  { name: 'secondary', url: s.url },
];

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

describe('a paid claim sent again is answered from the ledger, whole (real HTTP)', () => {
  for (const [name, ledger] of [
    ['memory ledger, same process', async () => ({ first: new MemoryLedger() as Ledger, again: undefined })],
    [
      'journal ledger, after a restart',
      async () => {
        const dir = await mkdtemp(join(tmpdir(), 'rxgate-again-'));
        dirs.push(dir);
        const path = join(dir, 'ledger.jsonl');
        return { first: (await openFileLedger(path)) as Ledger, again: () => openFileLedger(path) };
      },
    ],
  ] as const) {
    it(`${name}: the same kind, amounts and explanation, nothing sent`, async () => {
      const { url, payer } = await payerNode();
      const { first, again } = await ledger();
      let router = createRouter(options({ nodes: [{ name: 'primary', url }], ledger: first }));
      const paid = await router.submit(rawClaim());
      if (again !== undefined) {
        await router.close();
        router = createRouter(options({ nodes: [{ name: 'primary', url }], ledger: await again() }));
      }
      const repeat = await router.submit(rawClaim());
      await router.close();
      assert.equal(paid.kind, 'paid');
      assert.equal(payer.requests.length, 1);
      assert.equal(repeat.kind, 'paid');
      if (paid.kind !== 'paid' || repeat.kind !== 'paid') return;
      assert.match(paid.explanation ?? '', /^Paid by primary\./);
      assert.equal(repeat.explanation, paid.explanation);
      assert.deepEqual(
        Object.fromEntries(Object.entries(repeat.amounts).map(([k, d]) => [k, d.toFixed(2)])),
        Object.fromEntries(Object.entries(paid.amounts).map(([k, d]) => [k, d.toFixed(2)])),
      );
    });
  }
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

/** A B2 for the claim `rawClaim(overrides)` bills: its identity and product, no billing fields. */
export function reversalOf(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const b1 = rawClaim(overrides);
  const b2: Record<string, unknown> = { '103-A3': 'B2' };
  for (const f of ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1', '407-D7']) b2[f] = b1[f];
  return b2;
}

describe('reversal and rebill (real HTTP)', () => {
  it('a B2 of a paid claim goes to the node that paid it, with a reversal fields only and its own key; accepted, a B1 rebill is sent and paid', async () => {
    const p = await payerNode();
    const s = await payerNode();
    const router = createRouter(
      options({
        nodes: twoNodes(p, s),
      }),
    );
    // Paid on the secondary (the primary was down for it).
    p.payer.script.push({ down: true }, { down: true }, { down: true });
    const paid = await router.submit(rawClaim());
    assert.equal(paid.kind === 'paid' && paid.node, 'secondary');
    const reversed = await router.submit(reversalOf());
    assert.equal(reversed.kind, 'approved', JSON.stringify(reversed));
    assert.equal(reversed.kind === 'approved' && reversed.node, 'secondary');
    const sent = s.payer.requests.at(-1)!;
    assert.equal(sent.body['103-A3'], 'B2');
    for (const billingOnly of ['442-E7', '405-D5', '409-D9', '302-C2'])
      assert.equal(sent.body[billingOnly], undefined, `${billingOnly} not in a reversal`);
    assert.equal(sent.key, `${s.payer.requests[0]!.key}.b2`);
    assert.equal(s.payer.paid.size, 0, 'the payment is undone, by content');
    // The same reversal again: answered by the ledger, not sent.
    assert.equal((await router.submit(reversalOf())).kind, 'approved');
    assert.equal(s.payer.requests.length, 2);
    // Rebill: sent (not the stale paid), under the next generation's key.
    const rebill = await router.submit(rawClaim({ '442-E7': '28.000' }));
    assert.equal(rebill.kind, 'paid');
    assert.equal(rebill.generation, 1);
    const payerOfRebill = rebill.kind === 'paid' && rebill.node === 'primary' ? p.payer : s.payer;
    assert.equal(payerOfRebill.requests.at(-1)!.replayed, false);
    const standing = [...p.payer.paid.values(), ...s.payer.paid.values()].reduce((a, b) => a + b, 0);
    assert.equal(
      standing,
      1,
      `one payment standing after pay, reverse, rebill: ${JSON.stringify([p.payer.requests.map((r) => [r.key.slice(-8), r.body['103-A3']]), s.payer.requests.map((r) => [r.key.slice(-8), r.body['103-A3']])])}`,
    );
    // And a second reversal of the rebill is its own transaction.
    const second = await router.submit(reversalOf());
    assert.equal(second.kind, 'approved');
    await router.close();
  });

  it('a process stopped between the accepted reversal and the reopen: after the restart the rebill still reaches the payer (not the stale payment)', async () => {
    const p = await payerNode();
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-reopen-'));
    dirs.push(dir);
    const path = join(dir, 'ledger.jsonl');
    const first = await openFileLedger(path);
    // The reopen after the accepted B2 never happens (the process dies right there).
    const dying: Ledger = Object.assign(Object.create(first) as Ledger, {
      reopen: () => Promise.reject(new Error('killed')),
      begin: (k: string) => first.begin(k),
      pin: (k: string, n: string) => first.pin(k, n),
      unpin: (k: string) => first.unpin(k),
      finish: (k: string, o: Parameters<Ledger['finish']>[1]) => first.finish(k, o),
      lookup: (k: string) => first.lookup(k),
      close: () => first.close(),
    });
    const router = createRouter(options({ nodes: [{ name: 'primary', url: p.url }], ledger: dying }));
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    assert.equal((await router.submit(reversalOf())).kind, 'approved');
    await router.close();
    const restarted = createRouter(
      options({ nodes: [{ name: 'primary', url: p.url }], ledger: await openFileLedger(path) }),
    );
    const sentBefore = p.payer.requests.length;
    const rebill = await restarted.submit(rawClaim({ '442-E7': '28.000' }));
    assert.equal(rebill.kind, 'paid');
    assert.equal(p.payer.requests.length, sentBefore + 1, 'the rebill was sent');
    assert.equal(p.payer.requests.at(-1)!.replayed, false, 'under a fresh key, not the reversed one');
    assert.equal(
      [...p.payer.paid.values()].reduce((a, b) => a + b, 0),
      1,
      'one payment standing',
    );
    await restarted.close();
  });

  it('a reversal rejected by the payer is surfaced with its codes, and the claim stays paid', async () => {
    const { url, payer } = await payerNode();
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    payer.script.push({ reject: ['87'], messages: ['REVERSAL NOT PROCESSED'] });
    const r = await router.submit(reversalOf());
    assert.equal(r.kind, 'rejected');
    assert.deepEqual(r.kind === 'rejected' && [r.codes, r.messages], [['87'], ['REVERSAL NOT PROCESSED']]);
    // Still paid: a B1 gets the stored outcome, nothing sent.
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    assert.equal(payer.requests.length, 2);
    await router.close();
  });

  it('a B2 carrying billing fields is invalid, naming them; nothing is sent', async () => {
    const { url, payer } = await payerNode();
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const o = await router.submit({ ...reversalOf(), '442-E7': '30.000', '405-D5': 30 });
    assert.equal(o.kind, 'invalid');
    assert.deepEqual(o.kind === 'invalid' && o.issues.map((i) => i.field).sort(), ['405-D5', '442-E7']);
    assert.equal(payer.requests.length, 0);
    await router.close();
  });
});

describe('reconciliation (real HTTP)', () => {
  it('an answer lost behind a gateway 504 is reconciled on its pinned node, same key: the replayed answer settles it, with a reconciled event and audit', async () => {
    const p = await payerNode();
    const s = await payerNode();
    const events: Array<{ type: string; kind?: string; node?: string; settled?: boolean }> = [];
    const deadLetters = new MemoryDeadLetterQueue();
    const audit = new MemoryAuditLog();
    const router = createRouter(
      options({
        nodes: twoNodes(p, s),
        deadLetters,
        audit,
        retry: { ambiguousRetries: 0, baseMs: 5, capMs: { pos: 20, batch: 20 } },
        onEvent: (e) => events.push(e as never),
      }),
    );
    p.payer.script.push({ payThenGateway504: true });
    const lost = await router.submit(rawClaim());
    assert.equal(lost.kind, 'needs-reconciliation');
    assert.deepEqual(lost.kind === 'needs-reconciliation' && [lost.node, lost.codes], ['primary', ['99']]);
    const report = await router.reconcile();
    assert.deepEqual([report.asked, report.settled, report.stillOpen], [1, 1, 0]);
    assert.equal(report.outcomes[0]!.kind, 'paid');
    assert.equal(p.payer.requests.at(-1)!.replayed, true, 'the same key: the vendor replayed its answer');
    assert.equal(s.payer.requests.length, 0, 'never sent to another node');
    assert.deepEqual([...p.payer.payments.values()], [1]);
    assert.ok(events.some((e) => e.type === 'reconciled' && e.kind === 'paid' && e.settled === true));
    assert.ok(
      audit.records.some((r) => r.type === 'outcome' && (r.outcome as { kind: string }).kind === 'paid'),
    );
    // Settled in the ledger: a resubmission gets it.
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    assert.equal(deadLetters.size, 0);
    await router.close();
  });

  it('a pinned node that stays down keeps the claim pinned: reconcile sends nowhere else and puts it back', async () => {
    const p = await payerNode();
    const s = await payerNode();
    const deadLetters = new MemoryDeadLetterQueue();
    const router = createRouter(
      options({
        nodes: twoNodes(p, s),
        deadLetters,
        retry: { ambiguousRetries: 0, transientRetries: 0, baseMs: 5, capMs: { pos: 20, batch: 20 } },
      }),
    );
    p.payer.script.push({ payThenGateway504: true });
    assert.equal((await router.submit(rawClaim())).kind, 'needs-reconciliation');
    p.payer.script.push({ down: true }, { down: true }, { down: true });
    p.payer.replays = false; // the node is down: it answers nothing, not even a replay
    const report = await router.reconcile();
    assert.deepEqual([report.asked, report.settled, report.stillOpen], [1, 0, 1]);
    assert.equal(s.payer.requests.length, 0);
    assert.equal(deadLetters.peek().length, 1);
    assert.equal(deadLetters.peek()[0]!.pinnedNode, 'primary');
    await router.close();
  });

  it('the background cadence reconciles by itself and stops at close', async () => {
    const { url, payer } = await payerNode();
    const events: Array<{ type: string; settled?: boolean }> = [];
    let reconciled: () => void = () => {};
    const done = new Promise<void>((r) => {
      reconciled = r;
    });
    const router = createRouter(
      options({
        nodes: [{ name: 'primary', url }],
        retry: { ambiguousRetries: 0, baseMs: 5, capMs: { pos: 20, batch: 20 } },
        reconcile: { everyMs: 20 },
        onEvent: (e) => {
          events.push(e as never);
          if (e.type === 'reconciled' && e.settled) reconciled();
        },
      }),
    );
    payer.script.push({ payThenGateway504: true });
    assert.equal((await router.submit(rawClaim())).kind, 'needs-reconciliation');
    await done;
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    await router.close();
    assert.deepEqual([...payer.payments.values()], [1]);
  });
});

describe('every outcome a pharmacist can act on (real HTTP)', () => {
  it('a submitter-fixable reject (07) is rejected with its code and message, not dead-lettered; and explains itself', async () => {
    const { url, payer } = await payerNode();
    payer.script.push({ reject: ['07'], messages: ['CARDHOLDER ID NOT ON FILE'] });
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'rejected');
    assert.deepEqual(o.kind === 'rejected' && [o.codes, o.messages, o.local], [
      ['07'],
      ['CARDHOLDER ID NOT ON FILE'],
      false,
    ]);
    assert.match(o.explanation ?? '', /Rejected by the payer: 07/);
    await router.close();
  });

  it('a transient failure retried to the end carries 99 (host processing error); paid amounts include copay, coinsurance, deductible; messages read', async () => {
    const { url, payer } = await payerNode();
    payer.script.push({ down: true }, { down: true }, { down: true });
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'dead-lettered');
    assert.deepEqual(o.kind === 'dead-lettered' && o.codes, ['99']);
    assert.match(o.explanation ?? '', /99/);
    const paid = await router.submit(rawClaim({ '402-D2': '4242' }));
    assert.equal(paid.kind, 'paid');
    if (paid.kind !== 'paid') return;
    assert.deepEqual(
      [
        paid.amounts.copay?.toFixed(2),
        paid.amounts.coinsurance?.toFixed(2),
        paid.amounts.deductible?.toFixed(2),
      ],
      ['5.00', '0.00', '0.00'],
    );
    assert.deepEqual(paid.messages, ['PAID']);
    assert.match(paid.explanation ?? '', /Collect 5\.00/);
    await router.close();
  });

  it('a local negative-cache reject says it is local', async () => {
    const { url, payer } = await payerNode();
    payer.rule = () => ({ notFound: 'unknown_route' });
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    await router.submit(rawClaim());
    const o = await router.submit(rawClaim({ '402-D2': '5151' }));
    assert.equal(o.kind === 'rejected' && o.local, true);
    assert.match(o.explanation ?? '', /locally, not sent/);
    await router.close();
  });
});

describe('config and input errors stay errors (real HTTP)', () => {
  it('https: to a plain-HTTP port is not sent: the claim fails over and is paid once, never left for reconciliation', async () => {
    const p = await payerNode();
    const s = await payerNode();
    const router = createRouter(
      options({
        nodes: [
          { name: 'primary', url: p.url.replace('http:', 'https:') },
          { name: 'secondary', url: s.url },
        ],
        retry: { transientRetries: 0, baseMs: 5, capMs: { pos: 20, batch: 20 } },
      }),
    );
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(p.payer.requests.length, 0);
    await router.close();
  });

  it('submit validates its options; a getter that throws, a NaN deadline, an unknown lane are invalid outcomes, never a rejected or hung submit', async () => {
    const { url, payer } = await payerNode();
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const nan = await router.submit(rawClaim(), { deadline: Number.NaN });
    assert.deepEqual(nan.kind === 'invalid' && nan.issues.map((i) => i.field), ['options.deadline']);
    const lane = await router.submit(rawClaim(), { lane: 'express' as never });
    assert.deepEqual(lane.kind === 'invalid' && lane.issues.map((i) => i.field), ['options.lane']);
    const throwing = rawClaim();
    Object.defineProperty(throwing, '402-D2', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    const t = await router.submit(throwing);
    assert.equal(t.kind, 'invalid');
    const badOptions = {
      get lane(): never {
        throw new Error('boom');
      },
    };
    const t2 = await router.submit(rawClaim(), badOptions as never);
    assert.deepEqual(t2.kind === 'invalid' && t2.issues.map((i) => i.field), ['options.lane']);
    assert.equal(payer.requests.length, 0);
    await router.close();
  });

  it('lone UTF-16 surrogates are invalid input: two cardholders differing only there never share a key', async () => {
    const { url, payer } = await payerNode();
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const a = await router.submit(rawClaim({ '302-C2': 'ZX99\uD800' }));
    const b = await router.submit(rawClaim({ '302-C2': 'ZX99\uDC00' }));
    assert.deepEqual(
      [
        a.kind === 'invalid' && a.issues.map((i) => i.field),
        b.kind === 'invalid' && b.issues.map((i) => i.field),
      ],
      [['302-C2'], ['302-C2']],
    );
    assert.equal(payer.requests.length, 0);
    await router.close();
  });

  it('an unknown key is a typed error naming it, never dropped; 461-EU/462-EV reach the payer', async () => {
    const { url, payer } = await payerNode();
    const router = createRouter(options({ nodes: [{ name: 'primary', url }] }));
    const o = await router.submit(rawClaim({ '999-ZZ': 'x' }));
    assert.deepEqual(o.kind === 'invalid' && o.issues.map((i) => i.field), ['999-ZZ']);
    const pa = await router.submit(
      rawClaim({ '461-EU': '1', '462-EV': '12345678901', '411-DB': '1982736450' }),
    );
    assert.equal(pa.kind, 'paid');
    assert.deepEqual(
      [
        payer.requests[0]!.body['461-EU'],
        payer.requests[0]!.body['462-EV'],
        payer.requests[0]!.body['411-DB'],
      ],
      ['1', '12345678901', '1982736450'],
    );
    await router.close();
  });
});
