// Hostile: vendors echo PHI back (the patient segment of an NCPDP answer, a 400 naming the bad
// value, a gateway page dumping the request) and callers send bad PHI fields. No PHI value may
// appear, by plain substring search, in anything the router logs, emits, audits or returns.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryAuditLog } from '../index.js';
import { assertNoPhi, makeRouter, within } from './harness.fixture.js';
import { Capture, type Fault, makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

describe('hostile: PHI echoed by vendors and in bad input', () => {
  const faults: Array<[string, Fault[]]> = [
    ['a paid answer carrying the patient segment', [{ kind: 'paid-echoing-patient' }]],
    ['a reject 70 carrying the patient segment', [{ kind: 'reject-echoing-patient' }]],
    ['a 400 echoing the cardholder and the names', [{ kind: 'invalid-echoing-value', field: '302-C2' }]],
    [
      'a 502 page dumping the forwarded request (after commit), then the answer echoing the patient',
      [{ kind: 'gateway-dump-after-commit' }, { kind: 'paid-echoing-patient' }],
    ],
  ];
  for (const [i, [name, seq]] of faults.entries()) {
    it(`${name}: no PHI anywhere`, async () => {
      const v = await twoNodes({ primary: (r) => seq[r.n - 1] ?? { kind: 'paid-echoing-patient' } });
      const h = makeRouter([v.primary, v.fallback]);
      const c = makeClaim(8000 + i, 0, seeded(80 + i));
      try {
        const o = await within(h.router.submit(c.raw, { lane: 'batch' }), 15_000, 'submit');
        assertNoPhi(h.capture, [o], h.audit, c.phi);
        assert.ok(v.book.paidCount(c.content) <= 1);
      } finally {
        await within(h.router.close(), 10_000, 'close');
        await v.close();
      }
    });
  }

  it('the scan is not blind: the router captured events and audit records, and a claim put in the capture is found', async () => {
    const v = await twoNodes();
    const h = makeRouter([v.primary, v.fallback]);
    const c = makeClaim(8200, 0, seeded(82));
    try {
      const o = await within(h.router.submit(c.raw, { lane: 'pos' }), 5000, 'submit');
      assertNoPhi(h.capture, [o], h.audit, c.phi);
      assert.ok(h.capture.events.length >= 2, 'events were captured');
      assert.ok(
        (h.audit as unknown as { records: unknown[] }).records.length >= 1,
        'audit records were captured',
      );
      h.capture.add({ nested: { claim: c.raw } });
      assert.equal(h.capture.findPhi(c.phi).length, c.phi.length);
      // The audit trail itself is searched: a record carrying the cardholder id and the last
      // name is found (on a fresh capture, so only the audit can hold them).
      const [cardholder, , last] = c.phi;
      const audit = new MemoryAuditLog();
      await audit.append({
        at: 0,
        correlationId: 'planted',
        claimKey: 'planted',
        type: 'outcome',
        outcome: { kind: 'paid', note: `${cardholder} ${last}` },
      } as Parameters<MemoryAuditLog['append']>[0]);
      assert.throws(() => assertNoPhi(new Capture(), [], audit, c.phi), /PHI found/);
      // And in the router's own log: a planted record there is found too.
      await h.audit.append({
        at: 0,
        correlationId: 'planted',
        claimKey: 'planted',
        type: 'decision',
        decision: `retry ${last}`,
      } as Parameters<MemoryAuditLog['append']>[0]);
      assert.throws(() => assertNoPhi(new Capture(), [], h.audit, c.phi), /PHI found/);
      // A log the scan cannot read is an error, never an empty trail.
      assert.throws(() => assertNoPhi(new Capture(), [], {} as MemoryAuditLog, c.phi), /cannot read/);
    } finally {
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });

  const bad: Array<[string, Record<string, unknown>]> = [
    ['a cardholder id too long', { '302-C2': 'QZPHILEAK123456789012345' }],
    ['a date of birth that is no date', { '304-C4': '19801341' }],
    ['a first name too long', { '310-CA': `FNLEAK${'X'.repeat(40)}` }],
    ['a last name as a number', { '311-CB': 12345678901 }],
  ];
  for (const [name, patch] of bad) {
    it(`invalid input, ${name}: the outcome names the field, never the value; nothing sent`, async () => {
      const v = await twoNodes();
      const h = makeRouter([v.primary, v.fallback]);
      const c = makeClaim(8100, 0, seeded(81));
      const raw = { ...c.raw, ...patch };
      const value = String(Object.values(patch)[0]);
      try {
        const o = await within(h.router.submit(raw, { lane: 'pos' }), 5000, 'submit');
        assert.equal(o.kind, 'invalid');
        if (o.kind === 'invalid') assert.ok(o.issues.length > 0);
        assert.equal(v.primary.requests + v.fallback.requests, 0);
        assertNoPhi(h.capture, [o], h.audit, [...c.phi, value]);
      } finally {
        await within(h.router.close(), 10_000, 'close');
        await v.close();
      }
    });
  }
});
