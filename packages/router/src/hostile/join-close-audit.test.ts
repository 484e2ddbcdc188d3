// Hostile: concurrent submissions of one claim at pos and batch with different deadlines;
// close() twice; an audit directory that disappears mid-run.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { JsonlAuditLog, type Outcome, replayAudit } from '../index.js';
import { assertNoPhi, isPaidKind, KINDS, makeRouter, settleBy, within } from './harness.fixture.js';
import { makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

// The joiners' deadlines are kept on the router's clock, a VirtualClock (the limiter and breakers
// on it too): the vendor is real HTTP, but no deadline is measured in real milliseconds. Each
// submission must settle with the clock driven up to its deadline and no further.
const T0 = 1_700_000_000_000;

describe('hostile: joiners', () => {
  it('a claim in flight in the batch lane, submitted again at pos, settles by the pos deadline; paid once', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'hold-then-commit' }) });
    const clock = new VirtualClock(T0);
    const h = makeRouter([v.primary, v.fallback], { readTimeoutMs: 10_000, clock });
    const c = makeClaim(5000, 0, seeded(5));
    try {
      const batch = h.router.submit(c.raw, { lane: 'batch' });
      await within(
        v.primary.waitForRequest((r) => r.content === c.content),
        5000,
        'batch request',
      );
      const t0 = clock.now();
      const pos = await settleBy(
        clock,
        h.router.submit(c.raw, { lane: 'pos', deadline: t0 + 300 }),
        t0 + 300,
        'pos joiner (300 ms budget)',
      );
      assert.equal(pos.value.kind, 'in-flight-elsewhere');
      assert.equal(v.primary.requests, 1, 'the joiner sent nothing');
      v.primary.fault = () => ({ kind: 'ok' });
      v.primary.releaseHeld();
      // Answers the vendor gives now come over real HTTP with the clock standing still (no
      // deadline can cut them): a bound on a hang, not a measurement.
      const b = await within(batch, 10_000, 'batch owner');
      assert.ok(isPaidKind(b), b.kind);
      const third = await within(h.router.submit(c.raw, { lane: 'pos' }), 5000, 'third');
      assert.ok(isPaidKind(third), third.kind);
      assert.equal(v.book.paidCount(c.content), 1);
      assert.equal(v.fallback.seen.length, 0);
      assertNoPhi(h.capture, [pos.value, b, third], h.audit, c.phi);
    } finally {
      v.primary.releaseHeld(); // a failed assertion leaves an answer held: close() would wait on it
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });

  it('same identity, other fields differing (cardholder, quantity), at pos and batch on a vendor with no duplicate check: paid once', async () => {
    const v = await twoNodes({ mode: 'naive', primary: () => ({ kind: 'hold-then-commit' }) });
    const clock = new VirtualClock(T0);
    const h = makeRouter([v.primary, v.fallback], { readTimeoutMs: 10_000, clock });
    const rand = seeded(6);
    const c = makeClaim(5001, 0, rand);
    const twin = makeClaim(5001, 0, rand); // same Rx number, fill, DOS, BIN, PCN, NPI; new PHI
    const twinRaw = { ...twin.raw, '442-E7': '60.000', '405-D5': 60 };
    assert.equal(twin.content, c.content);
    try {
      const batch = h.router.submit(c.raw, { lane: 'batch' });
      await within(
        v.primary.waitForRequest((r) => r.content === c.content),
        5000,
        'batch request',
      );
      const deadline = clock.now() + 250;
      const pos = await settleBy(
        clock,
        h.router.submit(twinRaw, { lane: 'pos', deadline }),
        deadline,
        'pos twin (250 ms budget)',
      );
      v.primary.fault = () => ({ kind: 'ok' });
      v.primary.releaseHeld();
      const b = await within(batch, 10_000, 'batch');
      assert.ok(KINDS.has(b.kind));
      assert.deepEqual(v.book.paidTwice(), [], 'the same claim by the payers rule was paid twice');
      assertNoPhi(h.capture, [pos.value, b], h.audit, [...c.phi, ...twin.phi]);
    } finally {
      v.primary.releaseHeld(); // a failed assertion leaves an answer held: close() would wait on it
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });

  it('a pos owner cut at its deadline after sending, with a batch joiner: each settles by its own deadline, nothing reaches the fallback, paid once', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'hold-after-commit' }) });
    const clock = new VirtualClock(T0);
    const h = makeRouter([v.primary, v.fallback], {
      readTimeoutMs: 10_000,
      clock,
      lanes: { pos: { default: 800, retail: 800 }, batch: { default: 1500 } },
    });
    const c = makeClaim(5002, 0, seeded(7));
    try {
      const t0 = clock.now();
      const pos = h.router.submit(c.raw, { lane: 'pos', deadline: t0 + 300 });
      await within(
        v.primary.waitForRequest((r) => r.content === c.content),
        5000,
        'pos request',
      );
      const batch = h.router.submit(c.raw, { lane: 'batch' });
      const p = await settleBy(clock, pos, t0 + 300, 'pos owner (300 ms budget)');
      const b = await settleBy(clock, batch, t0 + 1500, 'batch joiner (1500 ms budget)');
      assert.equal(p.value.kind, 'needs-reconciliation');
      assert.ok(!isPaidKind(b.value) || b.value.kind !== 'paid' || v.book.paidCount(c.content) === 1);
      assert.equal(v.fallback.seen.length, 0, 'a claim pinned to the primary reached the fallback');
      v.primary.fault = () => ({ kind: 'ok' });
      v.primary.releaseHeld();
      const again = await within(h.router.submit(c.raw, { lane: 'batch' }), 10_000, 'again');
      assert.ok(isPaidKind(again), again.kind);
      assert.equal(v.book.paidCount(c.content), 1);
      assertNoPhi(h.capture, [p.value, b.value, again], h.audit, c.phi);
    } finally {
      v.primary.releaseHeld(); // a failed assertion leaves an answer held: close() would wait on it
      await within(h.router.close(), 10_000, 'close');
      await v.close();
    }
  });
});

describe('hostile: close()', () => {
  it('close() twice with a claim in flight: both resolve (the same promise), the claim ends once', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'hold-then-commit' }) });
    const h = makeRouter([v.primary, v.fallback], { readTimeoutMs: 10_000 });
    const c = makeClaim(5100, 0, seeded(8));
    try {
      const o = h.router.submit(c.raw, { lane: 'batch' });
      await within(
        v.primary.waitForRequest((r) => r.content === c.content),
        5000,
        'request',
      );
      const first = h.router.close();
      const second = h.router.close();
      assert.equal(first, second, 'close() again returns the same promise (README)');
      v.primary.releaseHeld();
      await within(Promise.all([first, second]), 10_000, 'both close() calls');
      const out = await within(o, 5000, 'claim');
      assert.ok(isPaidKind(out), out.kind);
      assert.equal(v.book.paidCount(c.content), 1);
      await within(h.router.close(), 5000, 'a third close()');
    } finally {
      await v.close();
    }
  });

  it('close() twice with nothing in flight; a submit after close sends nothing', async () => {
    const v = await twoNodes();
    const h = makeRouter([v.primary, v.fallback]);
    await within(Promise.all([h.router.close(), h.router.close()]), 5000, 'close twice');
    const c = makeClaim(5101, 0, seeded(9));
    const after = await within(
      h.router.submit(c.raw).then(
        (o: Outcome) => o.kind,
        (e: unknown) => `rejected:${(e as { code?: string }).code}`,
      ),
      5000,
      'submit after close',
    );
    assert.ok(after.length > 0);
    assert.equal(v.primary.requests + v.fallback.requests, 0, `sent after close (${after})`);
    await v.close();
  });
});

describe('hostile: the audit directory disappears', () => {
  it('removed mid-run: submit resolves, auditDegraded, alarm + error log, records written when it comes back, paid once, no PHI in the file', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hostile-audit-'));
    const dir = join(root, 'audit');
    await mkdir(dir);
    const path = join(dir, 'audit.jsonl');
    const v = await twoNodes();
    const alarms: Array<{ state: string }> = [];
    const h = makeRouter([v.primary, v.fallback], {
      audit: new JsonlAuditLog(path),
      auditOptions: { retryBaseMs: 20 },
    });
    const events = h.capture.events as Array<{ type?: string; state?: string }>;
    const rand = seeded(10);
    const claims = Array.from({ length: 9 }, (_, i) => makeClaim(5200, i, rand));
    try {
      const a = await within(
        Promise.all(claims.slice(0, 3).map((c) => h.router.submit(c.raw, { lane: 'pos' }))),
        10_000,
        'before removal',
      );
      for (const o of a) assert.ok(isPaidKind(o), o.kind);
      await rm(dir, { recursive: true, force: true });
      const b = await within(
        Promise.all(claims.slice(3, 6).map((c) => h.router.submit(c.raw, { lane: 'pos' }))),
        10_000,
        'while the directory is gone (must resolve, not reject)',
      );
      for (const o of b) {
        assert.ok(isPaidKind(o), o.kind);
        assert.equal(o.auditDegraded, true, 'outcome says the audit is degraded');
      }
      for (const e of events) if (e.type === 'audit') alarms.push({ state: e.state ?? '' });
      assert.ok(
        alarms.some((x) => x.state === 'degraded'),
        'a degraded audit event',
      );
      assert.ok(
        h.capture.logs.some((l) => l.level === 'error'),
        'an error log line',
      );
      await mkdir(dir);
      const isRecovered = (e: unknown) =>
        (e as { type?: string }).type === 'audit' && (e as { state?: string }).state === 'recovered';
      await within(h.capture.waitForEvent(isRecovered), 10_000, 'audit recovered event');
      const c = await within(
        Promise.all(claims.slice(6).map((x) => h.router.submit(x.raw, { lane: 'pos' }))),
        10_000,
        'after recovery',
      );
      for (const o of c) {
        assert.ok(isPaidKind(o), o.kind);
        assert.notEqual(o.auditDegraded, true);
      }
      await within(h.router.close(), 10_000, 'close');
      const replay = await replayAudit(path);
      for (const o of [...b, ...c]) {
        const r = replay.claims.get(o.claimKey);
        assert.ok(
          r?.outcome,
          `no outcome record for a claim ended after the directory came back (${o.claimKey})`,
        );
      }
      for (const x of claims) assert.equal(v.book.paidCount(x.content), 1);
      const text = await readFile(path, 'utf8');
      assert.ok(text.length > 0, 'the audit file has records');
      assertNoPhi(
        h.capture,
        [...a, ...b, ...c],
        text,
        claims.flatMap((x) => x.phi),
      );
    } finally {
      await within(h.router.close(), 10_000, 'close');
      await v.close();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('missing from the start: submit resolves and the claim is paid once', async () => {
    const root = await mkdtemp(join(tmpdir(), 'hostile-audit-'));
    const v = await twoNodes();
    const h = makeRouter([v.primary, v.fallback], {
      audit: new JsonlAuditLog(join(root, 'nope', 'audit.jsonl')),
      auditOptions: { retryBaseMs: 20 },
    });
    const c = makeClaim(5300, 0, seeded(11));
    try {
      const o = await within(h.router.submit(c.raw, { lane: 'pos' }), 10_000, 'submit');
      assert.ok(isPaidKind(o), o.kind);
      assert.equal(o.auditDegraded, true);
      assert.ok(
        h.capture.events.some((e) => (e as { type?: string }).type === 'audit'),
        'an audit alarm',
      );
      // The caller retries anyway (as a caller of a rejected submit would): still paid once.
      const again = await within(h.router.submit(c.raw, { lane: 'pos' }), 10_000, 'again');
      assert.ok(isPaidKind(again), again.kind);
      assert.equal(v.book.paidCount(c.content), 1);
      // The directory never existed: the log wrote nothing there to search.
      assertNoPhi(h.capture, [o, again], null, c.phi);
    } finally {
      // close() with the directory still missing resolves (audit-close.test.ts asserts the alarm).
      await within(h.router.close(), 10_000, 'close');
      await v.close();
      await rm(root, { recursive: true, force: true });
    }
  });
});
