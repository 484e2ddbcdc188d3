// close() is the shutdown path: with the JsonlAuditLog's directory missing for good it resolves,
// and the records it could not write are reported dropped (an alarm), never thrown or lost silently.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { JsonlAuditLog, type MemoryAuditLog } from '../index.js';
import { isPaidKind, makeRouter, within } from './harness.fixture.js';
import { makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

it('close() resolves (and reports the held records dropped) when the audit directory stays missing', async () => {
  const root = await mkdtemp(join(tmpdir(), 'hostile-audit-'));
  const v = await twoNodes();
  const h = makeRouter([v.primary, v.fallback], {
    audit: new JsonlAuditLog(join(root, 'nope', 'audit.jsonl')),
    auditOptions: { retryBaseMs: 20 },
  });
  const c = makeClaim(5400, 0, seeded(12));
  try {
    const o = await within(h.router.submit(c.raw, { lane: 'pos' }), 10_000, 'submit');
    assert.ok(isPaidKind(o), o.kind);
    assert.equal(o.auditDegraded, true);
    let closeError: unknown;
    await within(h.router.close(), 10_000, 'close').catch((e: unknown) => {
      closeError = e;
    });
    assert.equal(closeError, undefined, `close() rejected: ${String(closeError)}`);
    // Every record of the claim (its attempts, decisions and outcome: as many as a router with
    // a working memory log writes for the same claim) is counted out: the outcome held by the
    // router, the others the file log had buffered.
    const dropped = h.capture.events
      .filter((e) => (e as { type?: string; state?: string }).state === 'dropped')
      .reduce((n: number, e) => n + (e as { records: number }).records, 0);
    const reference = makeRouter([v.primary, v.fallback]);
    await within(reference.router.submit(makeClaim(5401, 0, seeded(13)).raw, { lane: 'pos' }), 10_000, 'ref');
    await reference.router.close();
    const written = (reference.audit as MemoryAuditLog).records.length;
    assert.ok(written >= 2, `a paid claim writes its attempt and its outcome (${written})`);
    assert.equal(dropped, written, 'records reported dropped at close');
  } finally {
    await v.close();
    await rm(root, { recursive: true, force: true });
  }
});
