// The router's verdict branches in virtual time: the vendor of test-support/vendor.ts answers
// in process (virtual-vendor.ts), every wait (Retry-After, backoff, read timeout, token fetch)
// is a timer on one VirtualClock, and randomness is seeded. No socket, no real second.
// router.test.ts keeps a few of the same over real HTTP.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter } from '@rxgate/ratelimit';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import { MemoryAuditLog } from './audit.js';
import { clientCredentials } from './credentials.js';
import { crosswalkSnapshot } from './crosswalk.js';
import { MemoryDeadLetterQueue } from './dead-letters.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter, type RouterOptions } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { PAID } from './test-support/vendor.js';
import { REFUSED_URL, settle, virtualVendors } from './test-support/virtual-vendor.js';

const T0 = Date.parse('2026-11-30T12:00:00Z');

function setup(
  extra: Partial<RouterOptions> = {},
  withSecondary = false,
  {
    readTimeoutMs = 2000,
    clock = new VirtualClock(T0),
  }: { readTimeoutMs?: number; clock?: VirtualClock } = {},
) {
  const vendors = virtualVendors(clock, { readTimeoutMs });
  const primary = vendors.vendor();
  const secondary = withSecondary ? vendors.vendor() : undefined;
  const audit = new MemoryAuditLog();
  const deadLetters = new MemoryDeadLetterQueue();
  const router = createRouter({
    clock,
    random: seededRandom(16),
    ledger: new MemoryLedger(),
    nodes: [
      { name: 'primary', url: primary.url },
      ...(secondary ? [{ name: 'secondary', url: secondary.url }] : []),
    ],
    idempotencySecret: SECRET,
    audit,
    deadLetters,
    transport: vendors.transport,
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 }, clock }),
    lanes: { pos: { default: 1500 }, batch: { default: 8000 } },
    retry: { baseMs: 10, capMs: { pos: 50, batch: 100 } },
    ...extra,
  });
  const submit = (raw: Record<string, unknown>, options?: Parameters<typeof router.submit>[1]) =>
    settle(clock, router.submit(raw, options));
  return { router, submit, clock, vendors, primary, secondary, audit, deadLetters };
}

describe('router verdict branches, in virtual time', () => {
  it('pays a claim, with amounts as Decimal, and keeps the idempotency key stable', async () => {
    const { router, primary, submit } = setup();
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.kind === 'paid' && o.amounts.totalPaid?.toFixed(2), '7.34');
    assert.equal(o.attempts, 1);
    assert.equal(primary.requests[0]?.body['442-E7'], '30.000');
    assert.equal(primary.requests[0]?.body['409-D9'], '12.34');
    assert.match(primary.requests[0]!.key, /^rx1_/);
    assert.ok(!primary.requests[0]!.key.includes('ZX9900112'));
    // Submitted again: the ledger answers, nothing is sent.
    const again = await submit(rawClaim());
    assert.equal(again.kind, 'paid');
    assert.equal(primary.requests.length, 1);
    await router.close();
  });

  it('an invalid claim names its fields and sends nothing', async () => {
    const { router, primary, submit } = setup();
    const o = await submit(rawClaim({ '407-D7': '123', '442-E7': 30, '101-A1': undefined }));
    assert.equal(o.kind, 'invalid');
    assert.deepEqual(o.kind === 'invalid' && o.issues.map((i) => i.field).sort(), [
      '101-A1',
      '407-D7',
      '442-E7',
    ]);
    assert.equal(primary.requests.length, 0);
    await router.close();
  });

  it('429 with Retry-After in seconds: waits, then pays', async () => {
    const { router, primary, submit, clock } = setup();
    primary.script.push({ status: 429, headers: { 'retry-after': '1' } });
    const o = await submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind, 'paid');
    assert.equal(o.attempts, 2);
    assert.ok(clock.now() - T0 >= 1000, `answered after ${clock.now() - T0} ms, Retry-After 1 s`);
    await router.close();
  });

  it('429 with an HTTP-date: waits until then', async () => {
    const { router, primary, submit, clock } = setup();
    primary.script.push({
      status: 429,
      headers: { 'retry-after': new Date(T0 + 1000).toUTCString() },
    });
    const o = await submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind, 'paid');
    assert.equal(o.attempts, 2);
    assert.ok(clock.now() - T0 >= 1000, `answered after ${clock.now() - T0} ms`);
    await router.close();
  });

  it('a 429 whose wait misses a pos deadline hands the claim to the batch lane', async () => {
    const { router, primary, deadLetters, submit, clock } = setup();
    primary.script.push({ status: 429, headers: { 'retry-after': '30' } });
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'dead-lettered');
    assert.equal(o.kind === 'dead-lettered' && o.lane, 'batch');
    assert.equal(deadLetters.size, 1);
    assert.ok(clock.now() - T0 <= 1500, 'failed fast, within the pos budget');
    await router.close();
  });

  it('503 throttle (Retry-After, remaining 0) waits and does not trip the breaker', async () => {
    const clock = new VirtualClock(T0);
    const breakers = createBreakers({ clock, defaults: { policy: { kind: 'consecutive', threshold: 1 } } });
    const { router, primary, submit } = setup({ breakers }, false, { clock });
    primary.script.push({
      status: 503,
      headers: { 'retry-after': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '10' },
    });
    const o = await submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind, 'paid');
    assert.ok(clock.now() - T0 >= 1000, 'waited out the Retry-After');
    assert.equal(breakers.get('primary:retail').state, 'closed');
    await router.close();
  });

  it('503 maintenance counts against the breaker and fails over', async () => {
    const clock = new VirtualClock(T0);
    const breakers = createBreakers({ clock, defaults: { policy: { kind: 'consecutive', threshold: 2 } } });
    const { router, primary, secondary, submit } = setup(
      { breakers, retry: { transientRetries: 1, baseMs: 5 } },
      true,
      { clock },
    );
    primary.fallback = { status: 503, headers: { 'retry-after': '0' } };
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.deepEqual(
      o.path.filter((p) => !p.startsWith('wait')),
      ['primary', 'primary', 'failover:transient', 'secondary'],
    );
    assert.equal(breakers.get('primary:retail').state, 'open');
    assert.equal(secondary!.paidByContent.size, 1);
    // The next claim goes to the fallback at once: the primary's breaker is open.
    const next = await submit(rawClaim({ '402-D2': '000999' }));
    assert.equal(next.kind === 'paid' && next.node, 'secondary');
    assert.equal(next.path[0], 'failover:breaker-open');
    await router.close();
  });

  it('a refused connection counts against the breaker and fails over', async () => {
    const clock = new VirtualClock(T0);
    const breakers = createBreakers({ clock, defaults: { policy: { kind: 'consecutive', threshold: 2 } } });
    const { router, secondary, submit } = setup(
      {
        nodes: [
          { name: 'primary', url: REFUSED_URL },
          { name: 'secondary', url: 'http://vendor-2.test' },
        ],
        breakers,
        retry: { transientRetries: 1, baseMs: 5 },
      },
      true,
      { clock },
    );
    const o = await submit(rawClaim());
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(secondary!.requests.length, 1);
    assert.equal(
      breakers.get('primary:retail').state,
      'open',
      'ECONNREFUSED is the vendor failing, not a local refusal',
    );
    await router.close();
  });

  it('503 (nothing processed) then failover, under one key', async () => {
    const { router, primary, secondary, submit } = setup({ retry: { transientRetries: 2, baseMs: 5 } }, true);
    primary.fallback = { status: 503 };
    const o = await submit(rawClaim());
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(primary.requests.length, 3);
    assert.equal(secondary!.requests[0]?.key, primary.requests[0]?.key, 'one key across failover');
    await router.close();
  });

  it('502 (a gateway: maybe committed) is retried on the same node and never failed over', async () => {
    const { router, primary, secondary, submit } = setup({ retry: { ambiguousRetries: 2, baseMs: 5 } }, true);
    primary.fallback = { status: 502 };
    const o = await submit(rawClaim());
    assert.deepEqual(
      [o.kind, o.kind === 'needs-reconciliation' && o.node],
      ['needs-reconciliation', 'primary'],
    );
    assert.equal(primary.requests.length, 3);
    assert.equal(secondary!.requests.length, 0);
    await router.close();
  });

  it('502 with nodes that share one idempotency store: failover is safe, under the same key', async () => {
    const { router, primary, secondary, submit } = setup(
      { retry: { ambiguousRetries: 1, baseMs: 5 }, sharedIdempotency: true },
      true,
    );
    primary.fallback = { status: 502 };
    const o = await submit(rawClaim());
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(secondary!.requests[0]?.key, primary.requests[0]?.key);
    await router.close();
  });

  it('no failover when the parity callback says the fallback is behind', async () => {
    const { router, primary, secondary, submit } = setup(
      { retry: { transientRetries: 0 }, parity: () => false },
      true,
    );
    primary.fallback = { status: 503 };
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'dead-lettered');
    assert.equal(secondary!.requests.length, 0);
    await router.close();
  });

  it('404 unknown route: rejected 04, negative-cached, the next claim spends no quota', async () => {
    const { router, primary, submit } = setup();
    primary.script.push({ status: 404, body: { error: 'unknown_route', field: '104-A4' } });
    const o = await submit(rawClaim());
    assert.deepEqual(o.kind === 'rejected' && [o.codes, o.local], [['04'], false]);
    const next = await submit(rawClaim({ '402-D2': '000777' }));
    assert.deepEqual(next.kind === 'rejected' && [next.codes, next.local], [['04'], true]);
    assert.equal(primary.requests.length, 1);
    await router.close();
  });

  it('404 unknown product: rejected 70 and negative-cached by payer (BIN/PCN) and NDC, never for another payer', async () => {
    const { router, primary, submit } = setup();
    primary.script.push({ status: 404, body: { error: 'unknown_product', field: '407-D7' } });
    const o = await submit(rawClaim());
    assert.deepEqual(o.kind === 'rejected' && o.codes, ['70']);
    // The same payer: answered locally, and it says so.
    const samePayer = await submit(rawClaim({ '402-D2': '000779' }));
    assert.deepEqual(samePayer.kind === 'rejected' && [samePayer.codes, samePayer.local], [['70'], true]);
    // Another payer (PCN) for the same NDC: sent, and paid.
    const otherPayer = await submit(rawClaim({ '402-D2': '000778', '104-A4': 'OTHER' }));
    assert.equal(otherPayer.kind, 'paid');
    assert.equal(primary.requests.length, 2);
    await router.close();
  });

  it('401 mid-batch with many concurrent claims: exactly one token refresh, every claim replayed once', async () => {
    const clock = new VirtualClock(T0);
    const vendors = virtualVendors(clock);
    const primary = vendors.vendor();
    const credentials = clientCredentials({
      clients: { primary: { clientId: 'pharmacy', clientSecret: 's3cret' } },
      transport: vendors.transport,
      clock,
    });
    const router = createRouter({
      clock,
      random: seededRandom(16),
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: primary.url }],
      idempotencySecret: SECRET,
      transport: vendors.transport,
      credentials,
      limiter: createLimiter({ account: { ratePerSecond: 10_000, burst: 1000 }, clock }),
      lanes: { pos: { default: 3000 }, batch: { default: 8000 } },
    });
    // Warm up: one token.
    assert.equal((await settle(clock, router.submit(rawClaim({ '402-D2': '1' })))).kind, 'paid');
    assert.equal(primary.tokensIssued, 1);
    // The vendor expires tok-1: every request carrying it gets 401.
    primary.intercept = (request) =>
      request.headers.authorization === 'Bearer tok-1' ? { status: 401, headers: {}, body: '' } : undefined;
    const outcomes = await settle(
      clock,
      Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          router.submit(rawClaim({ '402-D2': String(100 + i) }), { lane: 'batch' }),
        ),
      ),
    );
    assert.ok(outcomes.every((o) => o.kind === 'paid'));
    assert.equal(primary.tokensIssued, 2, 'one refresh for 40 claims that saw the 401');
    assert.ok(outcomes.every((o) => o.attempts === 2 && o.path.includes('refresh')));
    await router.close();
  });

  it('a second 401 dead-letters', async () => {
    const { router, primary, submit } = setup();
    primary.fallback = { status: 401 };
    const o = await submit(rawClaim());
    assert.deepEqual(o.kind === 'dead-lettered' && o.reason, 'auth-failed');
    assert.equal(o.attempts, 2);
    await router.close();
  });

  it('a timeout after the vendor committed: same node, same key, paid once, never failed over', async () => {
    const { router, primary, secondary, submit, clock } = setup({}, true, { readTimeoutMs: 300 });
    primary.script.push({ status: 200, body: PAID, commitThen: 'hang' });
    const o = await submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind, 'paid');
    assert.ok(clock.now() - T0 >= 300, 'the first answer was waited for until the read timeout');
    assert.equal(o.kind === 'paid' && o.node, 'primary');
    assert.equal(primary.requests.length, 2);
    assert.equal(primary.requests[0]!.key, primary.requests[1]!.key);
    assert.deepEqual([...primary.paidByContent.values()], [1], 'paid once (counted by claim content)');
    assert.equal(secondary!.requests.length, 0, 'no failover without shared idempotency');
    await router.close();
  });

  it('answers lost every time: parked for reconciliation, not failed over', async () => {
    const { router, primary, secondary, submit } = setup(
      { retry: { ambiguousRetries: 1, baseMs: 5 } },
      true,
      { readTimeoutMs: 150 },
    );
    primary.fallback = { status: 200, body: PAID, commitThen: 'hang' };
    const o = await submit(rawClaim(), { lane: 'batch' });
    // The second attempt is answered from the vendor's store: the replay is what saves the claim.
    assert.equal(o.kind, 'paid');
    primary.fallback = { status: 500, commitThen: 'hang' };
    const lost = await submit(rawClaim({ '402-D2': '55' }), { lane: 'batch' });
    assert.equal(lost.kind, 'needs-reconciliation');
    assert.equal(secondary!.requests.length, 0);
    await router.close();
  });

  it('with shared idempotency an ambiguous claim may fail over under the same key', async () => {
    const { router, primary, secondary, submit } = setup(
      {
        sharedIdempotency: true,
        retry: { ambiguousRetries: 0, baseMs: 5 },
      },
      true,
      { readTimeoutMs: 150 },
    );
    primary.fallback = { status: 500, commitThen: 'hang' };
    const o = await submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(secondary!.requests[0]?.key, primary.requests[0]?.key);
    await router.close();
  });

  it('repairs a 21 through the crosswalk and records the snapshot version', async () => {
    const crosswalk = crosswalkSnapshot('gpi-2026-11', {
      '00002143380': { gpi: '27250050000320', ndc: '00002143381' },
    });
    const { router, primary, audit, submit } = setup({ crosswalk });
    primary.script.push({ status: 200, body: { '112-AN': 'R', '511-FB': ['21'] } });
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.snapshotVersion, 'gpi-2026-11');
    assert.equal(primary.requests[1]?.body['407-D7'], '00002143381');
    assert.notEqual(primary.requests[1]?.key, primary.requests[0]?.key, 'a repaired body has its own key');
    assert.ok(audit.records.some((r) => r.decision === 'repair' && r.snapshotVersion === 'gpi-2026-11'));
    await router.close();
  });

  it('an NDC missing from the crosswalk is rejected as ndc_not_in_taxonomy', async () => {
    const { router, primary, submit } = setup({ crosswalk: crosswalkSnapshot('v1', {}) });
    primary.script.push({ status: 200, body: { '112-AN': 'R', '511-FB': ['21'] } });
    const o = await submit(rawClaim());
    assert.equal(o.kind === 'rejected' && o.group, 'ndc_not_in_taxonomy');
    await router.close();
  });

  for (const code of ['70', '75', '76', '79']) {
    it(`terminal ${code} passes through unchanged`, async () => {
      const { router, primary, submit } = setup();
      primary.script.push({ status: 200, body: { '112-AN': 'R', '511-FB': [code] } });
      const o = await submit(rawClaim());
      assert.equal(o.kind, 'rejected');
      assert.deepEqual(o.kind === 'rejected' && o.codes, [code]);
      assert.equal(o.kind === 'rejected' && o.priorAuthRequired, code === '75');
      assert.equal(o.attempts, 1);
      await router.close();
    });
  }

  it('duplicate answers are done, never resubmitted', async () => {
    const { router, primary, submit } = setup();
    primary.script.push({ status: 200, body: { '112-AN': 'D', '509-F9': '7.34' } });
    const o = await submit(rawClaim());
    assert.equal(o.kind, 'duplicate');
    assert.equal(primary.requests.length, 1);
    await router.close();
  });

  it('concurrent submissions of one claim are joined, sent once', async () => {
    const { router, primary, clock } = setup();
    primary.script.push({ status: 200, body: PAID, delayMs: 50 });
    const [a, b] = await settle(clock, Promise.all([router.submit(rawClaim()), router.submit(rawClaim())]));
    assert.equal(a.kind, 'paid');
    assert.equal(b, a);
    assert.equal(primary.requests.length, 1);
    await router.close();
  });
});
