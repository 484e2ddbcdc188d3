// The router against a real HTTP vendor on loopback: msw handlers served over node:http.
// A few smoke tests of what only real sockets show (a refused port, a read timeout, concurrent
// requests sharing one token refresh); every verdict branch runs in virtual time in
// router-verdicts.test.ts. Real timers, short budgets; nothing asserts on speed.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { createBreakers } from '@rxgate/breaker';
import { createLimiter, systemClock } from '@rxgate/ratelimit';
import { http } from 'msw';
import { MemoryAuditLog } from './audit.js';
import { clientCredentials } from './credentials.js';
import { MemoryDeadLetterQueue } from './dead-letters.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter, type RouterOptions } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { type LoopbackServer, serve } from './test-support/msw-server.js';
import { PAID, type TestVendor, testVendor } from './test-support/vendor.js';
import { undiciTransport } from './transport.js';

const servers: LoopbackServer[] = [];
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function vendorNode(): Promise<{ server: LoopbackServer; vendor: TestVendor }> {
  const server = await serve();
  servers.push(server);
  const vendor = testVendor(server.url);
  server.use(...vendor.handlers);
  return { server, vendor };
}

async function setup(extra: Partial<RouterOptions> = {}, withSecondary = false) {
  const p = await vendorNode();
  const s = withSecondary ? await vendorNode() : undefined;
  const audit = new MemoryAuditLog();
  const deadLetters = new MemoryDeadLetterQueue();
  const transport = undiciTransport({ readTimeoutMs: 2000, connectTimeoutMs: 500 });
  const router = createRouter({
    ledger: new MemoryLedger(),
    nodes: [{ name: 'primary', url: p.server.url }, ...(s ? [{ name: 'secondary', url: s.server.url }] : [])],
    idempotencySecret: SECRET,
    audit,
    deadLetters,
    transport,
    limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
    lanes: { pos: { default: 1500 }, batch: { default: 8000 } },
    retry: { baseMs: 10, capMs: { pos: 50, batch: 100 } },
    ...extra,
  });
  return { router, primary: p.vendor, secondary: s?.vendor, audit, deadLetters };
}

describe('router over HTTP: smoke tests', () => {
  it('pays a claim, with amounts as Decimal, and keeps the idempotency key stable', async () => {
    const { router, primary } = await setup();
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.kind === 'paid' && o.amounts.totalPaid?.toFixed(2), '7.34');
    assert.equal(o.attempts, 1);
    assert.equal(primary.requests[0]?.body['442-E7'], '30.000');
    assert.equal(primary.requests[0]?.body['409-D9'], '12.34');
    assert.match(primary.requests[0]!.key, /^rx1_/);
    assert.ok(!primary.requests[0]!.key.includes('ZX9900112'));
    // Submitted again: the ledger answers, nothing is sent.
    const again = await router.submit(rawClaim());
    assert.equal(again.kind, 'paid');
    assert.equal(primary.requests.length, 1);
    await router.close();
  });

  it('a refused connection counts against the breaker and fails over', async () => {
    const s = await vendorNode();
    const breakers = createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 2 } } });
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [
        { name: 'primary', url: 'http://127.0.0.1:1' },
        { name: 'secondary', url: s.server.url },
      ],
      idempotencySecret: SECRET,
      breakers,
      limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 } }),
      retry: { transientRetries: 1, baseMs: 5 },
    });
    const o = await router.submit(rawClaim());
    assert.equal(o.kind === 'paid' && o.node, 'secondary');
    assert.equal(
      breakers.get('primary:retail').state,
      'open',
      'ECONNREFUSED is the vendor failing, not a local refusal',
    );
    await router.close();
  });

  it('401 mid-batch with many concurrent claims: exactly one token refresh, every claim replayed once', async () => {
    const p = await vendorNode();
    const transport = undiciTransport();
    const credentials = clientCredentials({
      clients: { primary: { clientId: 'pharmacy', clientSecret: 's3cret' } },
      transport,
      clock: systemClock,
    });
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: p.server.url }],
      idempotencySecret: SECRET,
      transport,
      credentials,
      limiter: createLimiter({ account: { ratePerSecond: 10_000, burst: 1000 } }),
      lanes: { pos: { default: 3000 }, batch: { default: 8000 } },
    });
    // Warm up: one token.
    assert.equal((await router.submit(rawClaim({ '402-D2': '1' }))).kind, 'paid');
    assert.equal(p.vendor.tokensIssued, 1);
    // The vendor expires tok-1: every request carrying it gets 401.
    p.server.use(
      http.post(`${p.server.url}/adjudicate`, ({ request }) =>
        request.headers.get('authorization') === 'Bearer tok-1'
          ? new Response(null, { status: 401 })
          : undefined,
      ),
    );
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        router.submit(rawClaim({ '402-D2': String(100 + i) }), { lane: 'batch' }),
      ),
    );
    assert.ok(outcomes.every((o) => o.kind === 'paid'));
    assert.equal(p.vendor.tokensIssued, 2, 'one refresh for 40 claims that saw the 401');
    assert.ok(outcomes.every((o) => o.attempts === 2 && o.path.includes('refresh')));
    await router.close();
  });

  it('a timeout after the vendor committed: same node, same key, paid once, never failed over', async () => {
    const { router, primary, secondary } = await setup(
      { transport: undiciTransport({ readTimeoutMs: 300 }) },
      true,
    );
    primary.script.push({ status: 200, body: PAID, commitThen: 'hang' });
    const o = await router.submit(rawClaim(), { lane: 'batch' });
    assert.equal(o.kind, 'paid');
    assert.equal(o.kind === 'paid' && o.node, 'primary');
    assert.equal(primary.requests.length, 2);
    assert.equal(primary.requests[0]!.key, primary.requests[1]!.key);
    assert.deepEqual([...primary.paidByContent.values()], [1], 'paid once (counted by claim content)');
    assert.equal(secondary!.requests.length, 0, 'no failover without shared idempotency');
    await router.close();
  });
});
