// Hostile: a gateway in front of the primary answers 5xx (or resets, or goes silent) after the
// upstream paid; the router retries, its breaker opens, it may fail over to a fallback that does
// not share idempotency. Payments are counted by claim content on an independent vendor.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { type Outcome, parseDeadLetter, serializeDeadLetter, undiciTransport } from '../index.js';
import {
  assertNoPhi,
  assertStaysWhereCommitted,
  countingTransport,
  drive,
  isPaidKind,
  KINDS,
  makeRouter,
  within,
} from './harness.fixture.js';
import { type Fault, makeClaim, seeded, twoNodes } from './independent-vendor.fixture.js';

describe('hostile: commit then 5xx, then failover', () => {
  it('5 claims, a gateway 504/502/500 after every commit on the primary: none reaches the fallback, none paid twice', async () => {
    const statuses = [504, 502, 500] as const;
    const v = await twoNodes({
      primary: (r) => ({ kind: 'gateway-after-commit', status: statuses[r.n % 3] as 500 | 502 | 504 }),
    });
    // The router's retries and breaker on a VirtualClock (no real second waited), over real HTTP.
    const clock = new VirtualClock(Date.now());
    const transport = countingTransport(undiciTransport({ connectTimeoutMs: 500, readTimeoutMs: 300 }));
    const h = makeRouter([v.primary, v.fallback], { clock, transport });
    const quiet = () =>
      transport.aborting === 0 && transport.inFlight <= v.primary.heldCount + v.fallback.heldCount;
    try {
      const rand = seeded(12);
      const claims = Array.from({ length: 5 }, (_, i) => makeClaim(1, i, rand));
      const outcomes = await drive(
        clock,
        Promise.all(claims.map((c) => h.router.submit(c.raw, { lane: 'batch' }))),
        quiet,
        'batch submissions',
      );
      for (const o of outcomes) assert.ok(KINDS.has(o.kind), o.kind);
      assert.deepEqual(v.book.paidTwice(), [], 'a claim paid twice by content');
      assertStaysWhereCommitted(v.book, [v.primary, v.fallback]);
      const toFallback = v.fallback.seen.filter((r) => claims.some((c) => c.content === r.content));
      assert.equal(toFallback.length, 0, 'a claim maybe committed on the primary went to the fallback');
      for (const o of outcomes) {
        assert.equal(o.kind, 'needs-reconciliation', `outcome ${o.kind}`);
        if (o.kind === 'needs-reconciliation') assert.equal(o.node, 'primary');
      }
      // The gateway recovers: the same claims resubmitted are answered by the primary's store.
      v.primary.fault = () => ({ kind: 'ok' });
      const again = await drive(
        clock,
        Promise.all(claims.map((c) => h.router.submit(c.raw, { lane: 'batch' }))),
        quiet,
        'resubmissions',
      );
      for (const o of again) assert.ok(isPaidKind(o), `resubmitted: ${o.kind}`);
      for (const c of claims) assert.equal(v.book.paidCount(c.content), 1, c.content);
      assertNoPhi(
        h.capture,
        [...outcomes, ...again],
        h.audit,
        claims.flatMap((c) => c.phi),
      );
    } finally {
      await drive(clock, h.router.close(), quiet, 'close');
      await v.close();
    }
  });

  it('the oracle is not blind: told the nodes share idempotency when they do not, the router fails over and the vendor counts the double payments', async () => {
    const v = await twoNodes({ primary: () => ({ kind: 'gateway-after-commit', status: 504 }) });
    const h = makeRouter([v.primary, v.fallback], { sharedIdempotency: true });
    try {
      const rand = seeded(13);
      const claims = Array.from({ length: 5 }, (_, i) => makeClaim(1001, i, rand));
      await within(
        Promise.all(claims.map((c) => h.router.submit(c.raw, { lane: 'batch' }))),
        20_000,
        'submissions',
      );
      assert.ok(v.book.paidTwice().length > 0, 'a lie about shared idempotency must show as paid twice');
    } finally {
      await h.router.close();
      await v.close();
    }
  });

  it('property: random faults around the commit on both nodes, duplicates at pos and batch: never paid twice, one outcome each, pos deadlines kept, no PHI', async () => {
    const faultArb: fc.Arbitrary<Fault> = fc.oneof(
      { weight: 4, arbitrary: fc.constant<Fault>({ kind: 'ok' }) },
      {
        weight: 3,
        arbitrary: fc
          .constantFrom(408, 500, 502, 504)
          .map((status) => ({ kind: 'gateway-after-commit', status }) as Fault),
      },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom(500, 502, 504)
          .map((status) => ({ kind: 'gateway-before-commit', status }) as Fault),
      },
      { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'hold-after-commit' }) },
      { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'reset-after-commit' }) },
      { weight: 1, arbitrary: fc.constant<Fault>({ kind: 'hold-then-commit' }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Fault>(
          { kind: 'garbled-200-after-commit' },
          { kind: 'paid-with-number-amounts' },
          { kind: 'reset-before-commit' },
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom<Fault>(
          { kind: 'throttle', form: 'seconds', seconds: 1 },
          { kind: 'throttle', form: 'date', seconds: 1 },
          { kind: 'maintenance', seconds: 1 },
        ),
      },
    );
    const submissionArb = fc.record({
      claim: fc.nat({ max: 3 }),
      lane: fc.constantFrom('pos' as const, 'batch' as const),
      posBudgetMs: fc.integer({ min: 150, max: 800 }),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('payer' as const, 'naive' as const),
        fc.array(faultArb, { minLength: 1, maxLength: 16 }),
        fc.array(faultArb, { maxLength: 6 }),
        fc.array(submissionArb, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (mode, primaryFaults, fallbackFaults, submissions, primaryDiesMidway) => {
          run++;
          const v = await twoNodes({
            mode,
            primary: (r) => primaryFaults[r.n - 1] ?? { kind: 'ok' },
            fallback: (r) => fallbackFaults[r.n - 1] ?? { kind: 'ok' },
          });
          // The router (its deadlines, retries, breakers, limiter) runs on a VirtualClock over
          // real HTTP: `drive` moves it on only while no answer can still come over a socket,
          // so a pos deadline is checked exactly, in the router's time, with no real-time slack.
          const clock = new VirtualClock(Date.now());
          const transport = countingTransport(undiciTransport({ connectTimeoutMs: 500, readTimeoutMs: 200 }));
          const h = makeRouter([v.primary, v.fallback], { clock, transport });
          const quiet = () =>
            transport.aborting === 0 && transport.inFlight <= v.primary.heldCount + v.fallback.heldCount;
          const rand = seeded(1000 + run);
          const claims = Array.from({ length: 4 }, (_, i) => makeClaim(2000 + run, i, rand));
          try {
            if (primaryDiesMidway) {
              // The primary stops accepting connections once it has committed something.
              v.primary.once('commit', () => void v.primary.down());
            }
            const started: Array<Promise<{ o: Outcome; ms: number; budget?: number }>> = [];
            for (const s of submissions) {
              const c = claims[s.claim];
              assert.ok(c);
              const t0 = clock.now();
              const opts =
                s.lane === 'pos'
                  ? { lane: 'pos' as const, deadline: t0 + s.posBudgetMs }
                  : { lane: 'batch' as const };
              started.push(
                h.router.submit(c.raw, opts).then((o) => ({
                  o,
                  ms: clock.now() - t0,
                  ...(s.lane === 'pos' ? { budget: s.posBudgetMs } : {}),
                })),
              );
            }
            const settled = await drive(clock, Promise.all(started), quiet, 'submissions');
            for (const { o, ms, budget } of settled) {
              assert.ok(KINDS.has(o.kind), `unknown kind ${o.kind}`);
              assert.notEqual(o.kind, 'invalid');
              if (budget !== undefined)
                assert.ok(ms <= budget, `pos took ${ms} ms of a ${budget} ms budget (${o.kind})`);
            }
            assert.deepEqual(v.book.paidTwice(), [], 'paid twice by content (first phase)');
            // Phase two: every dead letter stored as text, read back and resubmitted (batch) by
            // the same router while the primary refuses connections.
            const letters = h.deadLetters.take().map((l) => parseDeadLetter(serializeDeadLetter(l)));
            await v.primary.down();
            v.fallback.fault = () => ({ kind: 'ok' });
            const resubmitted = await drive(
              clock,
              Promise.all(letters.map((l) => h.router.resubmit(l, { lane: 'batch' }))),
              quiet,
              'dead letters resubmitted',
            );
            for (const o of resubmitted) assert.ok(KINDS.has(o.kind), o.kind);
            assert.deepEqual(v.book.paidTwice(), [], 'paid twice by content (dead letters resubmitted)');
            assertStaysWhereCommitted(v.book, [v.primary, v.fallback]);
            // Phase three: both nodes healthy, held answers released, every claim resubmitted.
            v.primary.releaseHeld();
            v.fallback.releaseHeld();
            v.primary.fault = () => ({ kind: 'ok' });
            v.fallback.fault = () => ({ kind: 'ok' });
            await v.primary.up();
            const again = await drive(
              clock,
              Promise.all(claims.map((c) => h.router.submit(c.raw, { lane: 'batch' }))),
              quiet,
              'resubmissions',
            );
            for (const o of again) assert.ok(KINDS.has(o.kind), o.kind);
            assert.deepEqual(v.book.paidTwice(), [], 'paid twice by content (after resubmission)');
            assertStaysWhereCommitted(v.book, [v.primary, v.fallback]);
            assertNoPhi(
              h.capture,
              [...settled.map((s) => s.o), ...resubmitted, ...again],
              h.audit,
              claims.flatMap((c) => c.phi),
            );
          } finally {
            v.primary.releaseHeld();
            v.fallback.releaseHeld();
            await drive(clock, h.router.close(), quiet, 'close');
            await v.close();
          }
        },
      ),
      {
        numRuns: Number(process.env.HOSTILE_RUNS ?? 8),
        // Always tried first: a pos claim whose answer is held past its deadline, so every run
        // checks a deadline cut (random runs may draw none).
        examples: [
          [
            'payer',
            [{ kind: 'hold-after-commit' }],
            [],
            [{ claim: 0, lane: 'pos', posBudgetMs: 150 }],
            false,
          ],
        ],
      },
    );
  });
});
