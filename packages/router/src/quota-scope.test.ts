// A quota the vendor keeps per payer adapts that payer only: a payer's 429 must not pause every payer.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { VirtualClock } from '@rxgate/testkit';
import { MemoryAuditLog } from './audit.js';
import { RouterConfigError } from './errors.js';
import { MemoryLedger } from './memory-ledger.js';
import { resolveQuotaScope } from './quota-scope.js';
import { createRouter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport, type WireResponse } from './transport.js';

describe('quota scope', () => {
  it("which signals are a payer's, as a table", () => {
    const rows: [Parameters<typeof resolveQuotaScope>[0], string | undefined, string | undefined][] = [
      [undefined, 'per-payer', undefined],
      [undefined, undefined, undefined],
      [{ payerPolicies: ['per-payer'] }, 'per-payer', 'P'],
      [{ payerPolicies: ['per-payer'] }, 'default', undefined],
      [{ payerPolicies: ['per-payer'] }, undefined, undefined],
      [{ default: 'payer' }, undefined, 'P'],
      [{ default: 'payer' }, 'default', 'P'],
      [{ payerPolicies: ['per-payer'], default: 'payer' }, 'account-wide', undefined],
      [{ payerPolicies: ['per-payer'], default: 'payer' }, undefined, 'P'],
    ];
    for (const [options, policy, expected] of rows) {
      const scope = resolveQuotaScope(options);
      const signal = policy === undefined ? { throttled: true } : { throttled: true, policy };
      assert.equal(scope(signal, 'P'), expected, JSON.stringify({ options, policy }));
    }
  });

  it('bad options name the field', () => {
    assert.throws(
      () => resolveQuotaScope({ default: 'tenant' as 'payer' }),
      (e: unknown) => e instanceof RouterConfigError && /quotaScope\.default/.test(String(e)),
    );
    assert.throws(
      () => resolveQuotaScope({ payerPolicies: [''] }),
      (e: unknown) => e instanceof RouterConfigError && /quotaScope\.payerPolicies/.test(String(e)),
    );
  });

  it("a payer's 429 on its own sub-quota pauses that payer, not every payer", async () => {
    const clock = new VirtualClock();
    // The vendor keeps 20/s for the account and 2/s for payer 610014/ADV ("per-payer").
    let throttles = 0;
    const transport = functionTransport(async (_node, req) => {
      const body = JSON.parse(String(req.body)) as Record<string, unknown>;
      await new Promise<void>((r) => clock.setTimer(20, r));
      if (body['104-A4'] === 'ADV' && throttles++ === 0)
        return {
          status: 429,
          headers: {
            'ratelimit-policy': '"per-payer";q=2;w=1',
            ratelimit: '"per-payer";r=0;t=5',
            'retry-after': '5',
          },
          body: '',
        } satisfies WireResponse;
      return {
        status: 200,
        headers: { 'ratelimit-policy': '"default";q=20;w=1', ratelimit: '"default";r=15;t=1' },
        body: JSON.stringify({ '112-AN': 'P', '509-F9': '7.34' }),
      } satisfies WireResponse;
    });
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: 'http://p.test' }],
      idempotencySecret: SECRET,
      clock,
      limiter: createLimiter({ account: { ratePerSecond: 20, burst: 20 }, clock }),
      quotaScope: { payerPolicies: ['per-payer'] },
      transport,
      audit: new MemoryAuditLog(),
    });
    const throttled = router.submit(rawClaim({ '104-A4': 'ADV' }), { lane: 'batch' });
    await clock.advance(100);
    // After the 429 (at 20 ms), a claim for another payer goes at once.
    let paidAt: number | undefined;
    const other = router.submit(rawClaim({ '104-A4': 'MED', '402-D2': '2' }), { lane: 'pos' }).then((o) => {
      paidAt = clock.now();
      return o;
    });
    await clock.advance(500);
    assert.equal(paidAt !== undefined && paidAt < clock.now(), true, 'the other payer is not paused');
    const o = await other;
    assert.equal(o.kind, 'paid', JSON.stringify(o));
    // The throttled payer waited its Retry-After on its own level, then went through.
    await clock.advance(10_000);
    assert.equal((await throttled).kind, 'paid');
    await router.close();
  });
});
