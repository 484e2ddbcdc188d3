// The memory stores answer the router at once (no await where the value is already there),
// but only the classes themselves: a subclass may answer otherwise, and is asked through its
// Promise-typed methods like any other store.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { type AuditRecord, MemoryAuditLog } from './audit.js';
import { MemoryDeadLetterQueue } from './dead-letters.js';
import { ledgerAtOnce, MemoryLedger } from './memory-ledger.js';
import { MemoryNegativeCache, negativeHasAtOnce } from './negative-cache.js';
import type { LogSafe } from './phi.js';
import { createRouter, type RouterOptions } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { PAID } from './test-support/vendor.js';
import { functionTransport } from './transport.js';

function setup(extra: Partial<RouterOptions>) {
  let sent = 0;
  const router = createRouter({
    nodes: [{ name: 'primary', url: 'http://primary.test' }],
    idempotencySecret: SECRET,
    transport: functionTransport(() => {
      sent++;
      return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(PAID) };
    }),
    limiter: createLimiter({ account: { ratePerSecond: 1e9, burst: 1e9 } }),
    deadLetters: new MemoryDeadLetterQueue(),
    ledger: new MemoryLedger(),
    telemetry: false,
    ...extra,
  });
  return { router, sent: () => sent };
}

describe('stores answered at once', () => {
  it('only the memory classes themselves', () => {
    const clock = { now: () => 0, setTimer: () => ({ cancel() {} }) };
    assert.notEqual(ledgerAtOnce(new MemoryLedger()), undefined);
    assert.equal(ledgerAtOnce(new (class extends MemoryLedger {})()), undefined);
    assert.notEqual(negativeHasAtOnce(new MemoryNegativeCache(clock)), undefined);
    assert.equal(negativeHasAtOnce(new (class extends MemoryNegativeCache {})(clock)), undefined);
  });

  it('a Proxy of a memory class, or an instance with a method replaced (a spy), is asked through its methods', async () => {
    const clock = { now: () => 0, setTimer: () => ({ cancel() {} }) };
    assert.equal(ledgerAtOnce(new Proxy(new MemoryLedger(), {})), undefined);
    assert.equal(negativeHasAtOnce(new Proxy(new MemoryNegativeCache(clock), {})), undefined);
    const spied = new MemoryLedger();
    const finished: string[] = [];
    const finish = spied.finish.bind(spied);
    spied.finish = (identity, outcome) => {
      finished.push(outcome.kind);
      return finish(identity, outcome);
    };
    assert.equal(ledgerAtOnce(spied), undefined);
    const { router } = setup({ ledger: spied });
    assert.equal((await router.submit(rawClaim())).kind, 'paid');
    assert.deepEqual(finished, ['paid']);
    await router.close();
    // A Proxy of a class with private fields cannot run its methods (the fields are the
    // target's): the router is still made, and the claim is not sent, as with any failing ledger.
    const proxied = setup({ ledger: new Proxy(new MemoryLedger(), {}) });
    const o = await proxied.router.submit(rawClaim());
    assert.deepEqual(
      [o.kind, o.kind === 'dead-lettered' && o.reason, proxied.sent()],
      ['dead-lettered', 'ledger-unavailable', 0],
    );
    await proxied.router.close();
  });

  it("a MemoryLedger subclass whose pin fails: nothing is sent (its pin is asked, not the table's)", async () => {
    class NoPin extends MemoryLedger {
      override pin(): Promise<void> {
        return Promise.reject(new Error('disk gone'));
      }
    }
    const { router, sent } = setup({ ledger: new NoPin() });
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'dead-lettered');
    assert.equal(sent(), 0);
    await router.close();
  });

  it('a MemoryNegativeCache subclass that knows the product: the claim is answered locally', async () => {
    const clock = { now: () => 0, setTimer: () => ({ cancel() {} }) };
    class KnowsAll extends MemoryNegativeCache {
      override has(): Promise<boolean> {
        return Promise.resolve(true);
      }
    }
    const { router, sent } = setup({ negativeCache: new KnowsAll(clock) });
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'rejected');
    assert.equal(sent(), 0);
    await router.close();
  });

  it('a MemoryAuditLog subclass that fails: the outcome says auditDegraded', async () => {
    class Failing extends MemoryAuditLog {
      override append(_record: LogSafe<AuditRecord>): Promise<void> {
        return Promise.reject(Object.assign(new Error('full'), { code: 'ENOSPC' }));
      }
    }
    const { router } = setup({ audit: new Failing() });
    const o = await router.submit(rawClaim());
    assert.equal(o.kind, 'paid');
    assert.equal(o.auditDegraded, true);
    await router.close();
  });
});
