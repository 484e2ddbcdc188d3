// Hostile: real-vendor quirks around one claim — a Retry-After date on a skewed processor clock,
// 503 maintenance, a 200 with numeric amounts, a 200 HTML page after commit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { assertNoPhi, isPaidKind, makeRouter, within } from './harness.fixture.js';
import { type Fault, makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

describe('hostile: vendor quirks', () => {
  for (const skewSeconds of [3600, -3600]) {
    it(`429 with a Retry-After HTTP date on a processor clock ${skewSeconds > 0 ? 'ahead' : 'behind'} by an hour: the batch claim is paid once, not dead-lettered`, async () => {
      const v = await twoNodes({
        primary: (r) =>
          r.n === 1 ? { kind: 'throttle', form: 'date', seconds: 1, skewSeconds } : { kind: 'ok' },
      });
      const h = makeRouter([v.primary, v.fallback]);
      const c = makeClaim(7000 + (skewSeconds > 0 ? 0 : 1), 0, seeded(70));
      try {
        const o = await within(h.router.submit(c.raw, { lane: 'batch' }), 10_000, 'batch');
        assert.ok(isPaidKind(o), `${o.kind} ${'reason' in o ? o.reason : ''}`);
        assert.equal(v.book.paidCount(c.content), 1);
        assertNoPhi(h.capture, [o], h.audit, c.phi);
      } finally {
        await within(h.router.close(), 10_000, 'close');
        await v.close();
      }
    });
  }

  const committed: Array<[string, Fault]> = [
    ['a 200 whose amounts are JSON numbers', { kind: 'paid-with-number-amounts' }],
    ['a 200 HTML page after the commit', { kind: 'garbled-200-after-commit' }],
    ['a 408 after the commit', { kind: 'gateway-after-commit', status: 408 }],
  ];
  for (const [name, fault] of committed) {
    it(`${name}: not taken as paid, never sent to the fallback, paid once when resubmitted`, async () => {
      const v = await twoNodes({ mode: 'naive', primary: () => fault });
      const h = makeRouter([v.primary, v.fallback]);
      const c = makeClaim(7100 + committed.findIndex(([n]) => n === name), 0, seeded(71));
      try {
        const o = await within(h.router.submit(c.raw, { lane: 'pos' }), 10_000, 'pos');
        assert.notEqual(o.kind, 'paid');
        assert.equal(v.fallback.seen.length, 0, `sent to the fallback after ${name}`);
        v.primary.fault = () => ({ kind: 'ok' });
        const again = await within(h.router.submit(c.raw, { lane: 'batch' }), 10_000, 'again');
        assert.ok(isPaidKind(again), again.kind);
        assert.equal(v.book.paidCount(c.content), 1);
        assertNoPhi(h.capture, [o, again], h.audit, c.phi);
      } finally {
        await within(h.router.close(), 10_000, 'close');
        await v.close();
      }
    });
  }

  it('503 maintenance with Retry-After on the primary: the claim goes around it to the fallback, paid once', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'maintenance', seconds: 30 }) });
    const h = makeRouter([v.primary, v.fallback]);
    const c = makeClaim(7200, 0, seeded(72));
    try {
      const o = await within(h.router.submit(c.raw, { lane: 'pos' }), 10_000, 'pos');
      assert.ok(isPaidKind(o), o.kind);
      if (o.kind === 'paid') assert.equal(o.node, 'secondary');
      assert.equal(v.book.paidCount(c.content), 1);
    } finally {
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });
});
