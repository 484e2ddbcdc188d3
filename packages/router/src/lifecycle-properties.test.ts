// The claim lifecycle's invariants as fast-check properties over random pharmacy sessions, in
// virtual time, against an in-process payer that adjudicates by claim *content* and keeps its
// own oracle (written here, sharing nothing with the router):
// - a rejected identity resubmitted is always sent, under a key never used before for it;
// - a paid identity is never sent again (as a B1) until reversed;
// - reconcile never sends a claim to a node other than its pin.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { MemoryDeadLetterQueue } from './dead-letters.js';
import { MemoryLedger } from './memory-ledger.js';
import type { Outcome } from './outcome.js';
import { createRouter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { settle } from './test-support/virtual-vendor.js';
import { functionTransport, type WireRequest, type WireResponse } from './transport.js';

const IDENTITY = ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1'];
const contentOf = (b: Record<string, unknown>) => IDENTITY.map((f) => String(b[f])).join('|');
const json = (body: unknown, status = 200): WireResponse => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

type PayerMove = 'pay' | 'reject' | 'lost' | 'down';

/**
 * A payer node: adjudicates by content (payments in `paid`, shared by the nodes of one payer),
 * replays a known key (its own store), and records what it saw.
 */
function payer(
  moves: () => PayerMove,
  paid: Map<string, boolean>,
  log: Array<{ content: string; key: string; tx: string; node: string }>,
) {
  const byKey = new Map<string, WireResponse>();
  const p = {
    paid,
    /** Keys answered with a reject, per content. */
    rejectedKeys: new Map<string, Set<string>>(),
    /** Every B1 request received while its content was paid (should never happen). */
    sentWhilePaid: [] as string[],
    /** Every request, of both nodes, in order. */
    requests: log,
    handle(node: string, req: WireRequest): WireResponse {
      const body = JSON.parse(req.body) as Record<string, unknown>;
      const key = req.headers['idempotency-key'] ?? '';
      const c = contentOf(body);
      const tx = String(body['103-A3']);
      p.requests.push({ content: c, key, tx, node });
      const known = byKey.get(key);
      if (known !== undefined) return known;
      const move = moves();
      if (move === 'down') return json({}, 503);
      let answer: WireResponse;
      if (tx === 'B2') {
        if (p.paid.get(c)) {
          p.paid.set(c, false);
          answer = json({ '112-AN': 'A' });
        } else answer = json({ '112-AN': 'R', '511-FB': ['87'] });
      } else if (p.paid.get(c)) {
        p.sentWhilePaid.push(c);
        answer = json({ '112-AN': 'D', '509-F9': '7.34' });
      } else if (move === 'reject') {
        const s = p.rejectedKeys.get(c) ?? new Set<string>();
        p.rejectedKeys.set(c, s);
        s.add(key);
        answer = json({ '112-AN': 'R', '511-FB': ['76'] });
      } else {
        p.paid.set(c, true);
        answer = json({ '112-AN': 'P', '505-F5': '5.00', '509-F9': '7.34' });
      }
      byKey.set(key, answer);
      if (move === 'lost') return json({}, 504); // the gateway lost the processor's answer
      return answer;
    },
  };
  return p;
}

const sessionArb = fc.record({
  seed: fc.integer(),
  moves: fc.array(fc.constantFrom<PayerMove>('pay', 'reject', 'reject', 'lost', 'down'), {
    minLength: 1,
    maxLength: 40,
  }),
  steps: fc.array(
    fc.record({
      rx: fc.integer({ min: 1, max: 3 }),
      op: fc.constantFrom('b1', 'b1', 'b2', 'reconcile'),
      qty: fc.constantFrom('30.000', '60.000'),
    }),
    { minLength: 1, maxLength: 16 },
  ),
});

describe('lifecycle properties (virtual clock, content-adjudicating payer)', () => {
  it('a rejected identity resubmitted is always sent under a fresh key; a paid identity is never sent again until reversed; reconcile sends only to the pin', async () => {
    await fc.assert(
      fc.asyncProperty(sessionArb, async (s) => {
        const clock = new VirtualClock(0);
        let i = 0;
        const next = () => s.moves[i++ % s.moves.length]!;
        const paid = new Map<string, boolean>();
        const log: Array<{ content: string; key: string; tx: string; node: string }> = [];
        const nodes = { primary: payer(next, paid, log), secondary: payer(next, paid, log) };
        const deadLetters = new MemoryDeadLetterQueue();
        const router = createRouter({
          nodes: [
            { name: 'primary', url: 'http://primary.test' },
            { name: 'secondary', url: 'http://secondary.test' },
          ],
          idempotencySecret: SECRET,
          ledger: new MemoryLedger(),
          deadLetters,
          transport: functionTransport((n, req) =>
            nodes[n.name as 'primary' | 'secondary'].handle(n.name, req),
          ),
          limiter: createLimiter({ account: { ratePerSecond: 1000, burst: 100 }, clock }),
          retry: { transientRetries: 0, ambiguousRetries: 0, baseMs: 5, capMs: { pos: 10, batch: 10 } },
          clock,
          random: seededRandom(s.seed),
        });
        // The router's view, per Rx: last outcome of a B1, and the pin of a claim left open.
        const last = new Map<number, Outcome>();
        const all = () => log; // every request of both nodes, in order
        for (const step of s.steps) {
          const raw = rawClaim({ '402-D2': String(100 + step.rx), '442-E7': step.qty });
          const content = contentOf(raw);
          const before = all().length;
          if (step.op === 'reconcile') {
            // Where each open claim (B1 or B2, by content) is pinned.
            const pins = new Set(
              deadLetters
                .peek()
                .filter((l) => l.pinnedNode !== undefined)
                .map((l) => `${l.claim.transactionCode}|${contentOf(toRaw(l.claim))}|${l.pinnedNode}`),
            );
            await settle(clock, router.reconcile());
            for (const r of all().slice(before)) {
              // (3) reconcile never sends a claim to a node other than its pin.
              assert.ok(
                pins.has(`${r.tx}|${r.content}|${r.node}`),
                `reconcile sent ${r.tx} ${r.content} to ${r.node}`,
              );
            }
            continue;
          }
          if (step.op === 'b2') {
            const b2: Record<string, unknown> = { '103-A3': 'B2' };
            for (const f of [...IDENTITY, '407-D7']) b2[f] = raw[f];
            await settle(clock, router.submit(b2));
            continue;
          }
          const prior = last.get(step.rx);
          const rejectedBefore = new Set([
            ...(nodes.primary.rejectedKeys.get(content) ?? []),
            ...(nodes.secondary.rejectedKeys.get(content) ?? []),
          ]);
          const outcome = await settle(clock, router.submit(raw));
          last.set(step.rx, outcome);
          const sent = all()
            .slice(before)
            .filter((r) => r.tx === 'B1');
          // (1) after a payer's reject, a resubmission is sent, under a key never rejected before.
          if (prior?.kind === 'rejected' && !prior.local) {
            assert.ok(sent.length > 0, 'a rejected identity resubmitted was not sent');
            for (const r of sent)
              assert.ok(!rejectedBefore.has(r.key), 'sent under a key the payer rejected');
          }
        }
        // (2) a paid identity is never sent again (B1) until reversed: the payer saw no B1 of paid content.
        assert.deepEqual([...nodes.primary.sentWhilePaid, ...nodes.secondary.sentWhilePaid], []);
        await router.close();
      }),
      {
        numRuns: Number(process.env.RX_RUNS ?? 150),
        ...(process.env.RX_EXAMPLE ? { examples: [[JSON.parse(process.env.RX_EXAMPLE)]] } : {}),
      },
    );
  });
});

/** A claim back in wire form, for its content identity (only identity fields are read). */
function toRaw(claim: object): Record<string, unknown> {
  const c = claim as Record<string, unknown>;
  return {
    '101-A1': c.bin,
    '104-A4': c.pcn,
    '201-B1': c.serviceProviderId,
    '402-D2': c.prescriptionNumber,
    '403-D3': c.fillNumber,
    '401-D1': c.dateOfService,
  };
}
