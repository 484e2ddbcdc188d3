// Hostile: a point-of-sale claim cut at its deadline after the vendor paid it; its dead letter
// is stored as text, read back and resubmitted by a batch process with an empty ledger while the
// primary is down.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type DeadLetter, parseDeadLetter, serializeDeadLetter } from '../index.js';
import { assertNoPhi, isPaidKind, makeRouter, within } from './harness.fixture.js';
import { makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

describe('hostile: a dead letter stored as text and resubmitted', () => {
  it('pos claim paid by the primary, answer held past the deadline: needs-reconciliation, its dead letter pinned, resubmitted while the primary is down never reaches the fallback', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'hold-after-commit' }) });
    const rand = seeded(77);
    const claims = Array.from({ length: 5 }, (_, i) => makeClaim(4000, i, rand));
    const phi = claims.flatMap((c) => c.phi);
    // The primary holds every answer; the router's read timeout (60 s) is far past the pos
    // deadline (300 ms): a router that kept its deadline settles in well under the 10 s guard,
    // one that waited for the answer or the read timeout cannot.
    const first = makeRouter([v.primary, v.fallback], { readTimeoutMs: 60_000 });
    let texts: string[] = [];
    try {
      const outcomes = await within(
        Promise.all(
          claims.map((c) => first.router.submit(c.raw, { lane: 'pos', deadline: Date.now() + 300 })),
        ),
        10_000,
        'pos submissions (deadline 300 ms, answers held, read timeout 60 s)',
      );
      for (const o of outcomes) {
        assert.equal(o.kind, 'needs-reconciliation', `pos cut after commit: ${o.kind}`);
        if (o.kind === 'needs-reconciliation') assert.equal(o.node, 'primary');
      }
      assert.equal(v.fallback.seen.length, 0);
      const letters = first.deadLetters.peek();
      assert.equal(letters.length, 5, 'one dead letter per pinned claim');
      for (const l of letters) assert.equal(l.pinnedNode, 'primary');
      texts = letters.map((l) => serializeDeadLetter(l));
      // Storage, not telemetry: the text carries the claim, PHI included, so it can be sent again.
      for (const [i, t] of texts.entries()) {
        assert.ok(!t.includes('[REDACTED]'), `letter ${i} stored its cardholder as [REDACTED]`);
      }
      assertNoPhi(first.capture, outcomes, first.audit, phi);
    } finally {
      await within(first.router.close(), 10_000, 'close 1');
    }

    // A batch process with an empty ledger, the primary refusing connections.
    await v.primary.down();
    v.primary.fault = () => ({ kind: 'ok' });
    const batch = makeRouter([v.primary, v.fallback]);
    try {
      const parsed: DeadLetter[] = texts.map((t) => parseDeadLetter(t));
      for (const l of parsed) assert.equal(l.pinnedNode, 'primary');
      const down = await within(
        Promise.all(parsed.map((l) => batch.router.resubmit(l, { lane: 'batch' }))),
        30_000,
        'resubmissions while the primary is down',
      );
      assert.equal(
        v.fallback.seen.length,
        0,
        `${v.fallback.seen.length} resubmitted letters reached the fallback`,
      );
      assert.deepEqual(v.book.paidTwice(), []);
      for (const o of down) assert.ok(!isPaidKind(o), `paid while its node was down: ${o.kind}`);
      // The primary back: the same letters are answered from the primary's idempotency store.
      await v.primary.up();
      const back = await within(
        Promise.all(parsed.map((l) => batch.router.resubmit(l, { lane: 'batch' }))),
        30_000,
        'resubmissions with the primary back',
      );
      for (const o of back) assert.ok(isPaidKind(o), `with the primary back: ${o.kind}`);
      for (const c of claims) assert.equal(v.book.paidCount(c.content), 1, c.content);
      assertNoPhi(batch.capture, [...down, ...back], batch.audit, phi);
    } finally {
      await within(batch.router.close(), 10_000, 'close 2');
      await v.close();
    }
  });

  it('a letter of a claim nothing committed (both nodes down) round-trips as text and is paid once on the fallback', async () => {
    const v = await twoNodes();
    await v.primary.down();
    await v.fallback.down();
    const rand = seeded(78);
    const claim = makeClaim(4001, 0, rand);
    const h = makeRouter([v.primary, v.fallback]);
    try {
      const o = await within(h.router.submit(claim.raw, { lane: 'pos' }), 10_000, 'pos');
      assert.equal(o.kind, 'dead-lettered');
      const [letter] = h.deadLetters.take();
      assert.ok(letter);
      assert.equal(letter.pinnedNode, undefined);
      const text = serializeDeadLetter(letter);
      const parsed = parseDeadLetter(text);
      await v.fallback.up();
      const again = await within(h.router.resubmit(parsed, { lane: 'batch' }), 30_000, 'resubmit');
      assert.ok(isPaidKind(again), again.kind);
      assert.equal(v.book.paidCount(claim.content), 1);
      // The vendor received the cardholder exactly as submitted.
      assert.equal(v.fallback.seen.at(-1)?.body['302-C2'], claim.raw['302-C2']);
      assertNoPhi(h.capture, [o, again], h.audit, claim.phi);
    } finally {
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });
});
