// FAILING (kept out of the default glob): close() rejects when the JsonlAuditLog's directory is
// missing and stays missing. The README: "At close() held records get one last try; those still
// unwritten are reported as dropped" — close() is the shutdown path and should resolve.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { JsonlAuditLog } from '../../index.js';
import { isPaidKind, makeRouter, within } from '../harness.fixture.js';
import { makeClaim, seeded, twoNodes } from '../independent-vendor.fixture.js';

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
    assert.ok(
      h.capture.events.some((e) => (e as { type?: string; state?: string }).state === 'dropped'),
      'a dropped alarm at close',
    );
  } finally {
    await v.close();
    await rm(root, { recursive: true, force: true });
  }
});
