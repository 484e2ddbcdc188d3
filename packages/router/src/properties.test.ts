// Properties of the router over random vendor fault sequences, on a virtual clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLimiter } from '@rxgate/ratelimit';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { MemoryAuditLog } from './audit.js';
import { parseClaim } from './claim.js';
import { crosswalkSnapshot } from './crosswalk.js';
import { MemoryDeadLetterQueue } from './dead-letters.js';
import { isInvalidClaimError } from './errors.js';
import { type Journal, MemoryJournal } from './journal.js';
import { JournalLedger } from './journal-ledger.js';
import type { Outcome } from './outcome.js';
import { createRouter, type Lane } from './router.js';
import { type Fault, fakeVendor } from './test-support/fake-vendor.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport } from './transport.js';

const FAULTS: Fault[] = [
  'ok',
  '429',
  '429-date',
  '503-throttle',
  '503-maintenance',
  '500',
  '502',
  '504',
  '408',
  'host-92',
  'reject-70',
  'reject-75',
  'reject-21',
  'not-found-route',
  'not-found-product',
  '401',
  'reset-before',
  'commit-then-reset',
  'commit-then-hang',
  'commit-then-504',
  'commit-then-502',
  'hang',
];

const phiArb = fc.record({
  cardholder: fc.stringMatching(/^[0-9]{9}$/).map((d) => `ZQ${d}`),
  first: fc.stringMatching(/^[A-Z]{6,10}$/).map((s) => `FN${s}`),
  last: fc.stringMatching(/^[A-Z]{6,10}$/).map((s) => `LN${s}`),
  dob: fc
    .date({ min: new Date('1930-01-01'), max: new Date('2020-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10).replaceAll('-', '')),
});

const scenarioArb = fc.record({
  seed: fc.integer(),
  faults: fc.array(fc.tuple(fc.constantFrom(...FAULTS), fc.integer({ min: 1, max: 10 })), {
    minLength: 1,
    maxLength: 8,
  }),
  okWeight: fc.integer({ min: 0, max: 30 }),
  secondary: fc.boolean(),
  sharedIdempotency: fc.boolean(),
  claims: fc.array(
    fc.record({
      phi: phiArb,
      pcn: fc.constantFrom('ADV', 'MEDD', 'SPEC'),
      ndc: fc.constantFrom('00002143380', '00002143390', '00777310402'),
      lane: fc.constantFrom<Lane>('pos', 'batch'),
      segment: fc.constantFrom('retail', 'specialty'),
      gapMs: fc.integer({ min: 0, max: 300 }),
    }),
    {
      minLength: 1,
      maxLength: 12,
    },
  ),
  duplicateFirst: fc.boolean(),
  // A storm of lost answers and refused connections: the shape that tempts a router to pay twice.
  storm: fc.boolean(),
  // The process dies (kill -9) after this many submissions, and a router rebuilt from its
  // durable ledger takes every unfinished claim again.
  restartAfter: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
  // Every dead letter (and claim left for reconciliation) is submitted again at the end.
  resubmitLetters: fc.boolean(),
});

const BUDGET: Record<string, number> = { retail: 800, specialty: 1200 };

/** A process that can die: after `crash()`, nothing it started leaves it or comes back to it. */
class World {
  crashed = false;
  guard<T>(p: Promise<T>): Promise<T> {
    return p.then(
      (v) => (this.crashed ? NEVER : v),
      (e) => (this.crashed ? NEVER : Promise.reject(e)),
    ) as Promise<T>;
  }
}
const NEVER = new Promise<never>(() => {});

/** The durable journal as a dead process sees it: its last writes never complete. */
function journalOf(journal: MemoryJournal, w: World): Journal {
  return {
    read: () => journal.read(),
    append: (lines) => (w.crashed ? NEVER : journal.append(lines)),
    rewrite: (lines) => (w.crashed ? NEVER : journal.rewrite(lines)),
    close: () => Promise.resolve(),
  };
}

const KINDS = new Set([
  'paid',
  'approved',
  'captured',
  'rejected',
  'duplicate',
  'dead-lettered',
  'needs-reconciliation',
  'invalid',
  'in-flight-elsewhere',
]);

describe('router properties (virtual clock, random vendor faults)', () => {
  it('one outcome per claim, never paid twice (by claim content) across retries, failover, restarts and resubmitted dead letters; no PHI; pos deadlines kept', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, async (s) => {
        const clock = new VirtualClock(0);
        const random = seededRandom(s.seed);
        const vendor = fakeVendor({
          clock,
          random: seededRandom(s.seed ^ 0x5bd1e995),
          faults: s.storm
            ? [
                ['ok', 1],
                ['commit-then-reset', 4],
                ['reset-before', 6],
                ['502', 2],
                ['commit-then-504', 3],
              ]
            : [['ok', s.okWeight], ...s.faults],
          sharedIdempotency: s.sharedIdempotency,
        });
        const logs: string[] = [];
        const events: string[] = [];
        const audit = new MemoryAuditLog();
        const capture = (level: string) => (obj: object, msg?: string) =>
          logs.push(`${level} ${JSON.stringify(obj)} ${msg ?? ''}`);
        const journal = new MemoryJournal();
        const build = async (w: World) => {
          const deadLetters = new MemoryDeadLetterQueue();
          const router = createRouter({
            nodes: [
              { name: 'primary', url: 'http://primary.test' },
              ...(s.secondary ? [{ name: 'secondary', url: 'http://secondary.test' }] : []),
            ],
            sharedIdempotency: s.sharedIdempotency,
            idempotencySecret: SECRET,
            transport: functionTransport((n, req, signal) =>
              w.crashed ? NEVER : w.guard(vendor.handle(n, req, signal)),
            ),
            ledger: await JournalLedger.open(journalOf(journal, w), { clock }),
            deadLetters,
            limiter: createLimiter({ account: { ratePerSecond: 10, burst: 20 }, clock }),
            crosswalk: crosswalkSnapshot('cw-1', { '00002143380': { gpi: '2725', ndc: '00002143381' } }),
            audit,
            clock,
            random,
            logger: {
              debug: capture('debug'),
              info: capture('info'),
              warn: capture('warn'),
              error: capture('error'),
            },
            onEvent: (e) => events.push(JSON.stringify(e)),
          });
          return { router, deadLetters, world: w };
        };
        let gen = await build(new World());
        const submitted: Array<{ lane: Lane; segment: string; promise: Promise<Outcome> }> = [];
        const raws = s.claims.map((c, i) =>
          rawClaim({
            '402-D2': String(1000 + i),
            '104-A4': c.pcn,
            '407-D7': c.ndc,
            '302-C2': c.phi.cardholder,
            '310-CA': c.phi.first,
            '311-CB': c.phi.last,
            '304-C4': c.phi.dob,
          }),
        );
        const submit = (i: number) => {
          const c = s.claims[i]!;
          submitted.push({
            lane: c.lane,
            segment: c.segment,
            promise: gen.router.submit(raws[i], { lane: c.lane, segment: c.segment }),
          });
        };
        let live = 0; // submissions before this index belong to a dead process
        for (const [i, c] of s.claims.entries()) {
          if (s.restartAfter === i) {
            // kill -9: the old process sends and hears nothing more; the new one replays the
            // journal, and the pharmacy system sends every claim it has no answer for again.
            gen.world.crashed = true;
            gen = await build(new World());
            live = submitted.length;
            for (let k = 0; k < i; k++) submit(k);
          }
          await clock.advance(c.gapMs);
          submit(i);
          if (i === 0 && s.duplicateFirst) submit(0);
        }
        const settle = async (from: number) => {
          const settled: Array<Outcome | undefined> = [];
          for (const [i, x] of submitted.slice(from).entries())
            void x.promise.then((o) => {
              assert.equal(settled[i], undefined, 'settled twice');
              settled[i] = o;
            });
          await clock.runAll();
          await Promise.all(submitted.slice(from).map((x) => x.promise));
          return settled;
        };
        const settled = await settle(live);

        // (1) exactly one outcome per submission of the living process.
        for (const o of settled) assert.ok(o !== undefined && KINDS.has(o.kind), o?.kind);
        // (3) a pos submission, joiners included, never settles later than its deadline plus one tick.
        for (const [i, x] of submitted.slice(live).entries()) {
          if (x.lane !== 'pos') continue;
          const o = settled[i]!;
          if (o.elapsedMs > BUDGET[x.segment]! + 1)
            assert.fail(`pos claim took ${o.elapsedMs} ms, budget ${BUDGET[x.segment]}`);
        }
        // Dead letters and claims left for reconciliation, submitted again by the batch lane.
        if (s.resubmitLetters) {
          const letters = gen.deadLetters.take();
          const from = submitted.length;
          for (const letter of letters)
            submitted.push({
              lane: 'batch',
              segment: 'retail',
              promise: gen.router.resubmit(letter, { lane: 'batch' }),
            });
          const again = await settle(from);
          for (const o of again) assert.ok(o !== undefined && KINDS.has(o.kind), o?.kind);
        }
        // (2) the vendor never paid a claim twice, counted by claim content on every node.
        for (const [identity, n] of vendor.payments) assert.equal(n, 1, `claim ${identity} paid ${n} times`);
        // (4) no PHI value in any log line, event, audit record or outcome (plain search).
        const haystacks = [
          ...logs,
          ...events,
          ...audit.records.map((r) => JSON.stringify(r)),
          ...settled.map((o) => JSON.stringify(o)),
        ];
        for (const c of s.claims) {
          for (const value of [c.phi.cardholder, c.phi.first, c.phi.last, c.phi.dob]) {
            for (const h of haystacks) assert.ok(!h.includes(value), `PHI found: ${h.slice(0, 200)}`);
          }
        }
        await gen.router.close();
      }),
      { numRuns: Number(process.env.RX_RUNS ?? 250) },
    );
  });

  it('error messages for bad claims never carry the values', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[A-Z0-9]{21,30}$/),
        fc.stringMatching(/^[A-Z]{36,40}$/),
        (cardholder, first) => {
          try {
            parseClaim(rawClaim({ '302-C2': cardholder, '310-CA': first, '304-C4': `X${cardholder}` }));
            assert.fail('should not parse');
          } catch (e) {
            assert.ok(isInvalidClaimError(e));
            const text = `${e.message} ${JSON.stringify(e.issues)} ${String(e)}`;
            assert.ok(!text.includes(cardholder) && !text.includes(first));
            assert.deepEqual(e.issues.map((i) => i.field).sort(), ['302-C2', '304-C4', '310-CA']);
          }
        },
      ),
    );
  });
});
