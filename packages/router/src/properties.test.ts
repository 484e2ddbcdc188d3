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
import { containsPhi } from './test-support/phi-scan.js';
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
  /**
   * What a dead process waits on forever. One per process, not one per module: a module-level
   * promise would hold every dead router of every run (its awaiting continuations) until the
   * test file ends — gigabytes over a few thousand runs, and a shrink that crawls.
   */
  readonly never = new Promise<never>(() => {});
  guard<T>(p: Promise<T>): Promise<T> {
    return p.then(
      (v) => (this.crashed ? this.never : v),
      (e) => (this.crashed ? this.never : Promise.reject(e)),
    ) as Promise<T>;
  }
}

/** The durable journal as a dead process sees it: its last writes never complete. */
function journalOf(journal: MemoryJournal, w: World): Journal {
  return {
    read: () => journal.read(),
    append: (lines) => (w.crashed ? w.never : journal.append(lines)),
    rewrite: (lines) => (w.crashed ? w.never : journal.rewrite(lines)),
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

type Scenario = typeof scenarioArb extends fc.Arbitrary<infer T> ? T : never;

/** One scenario, checked: (1) one outcome each, (2) never paid twice, (3) pos deadlines, (4) no PHI. */
async function scenario(s: Scenario): Promise<void> {
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
        w.crashed ? w.never : w.guard(vendor.handle(n, req, signal)),
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
  // Each submission's own instants, stamped by the test (virtual time): a joiner gets the
  // owner's outcome object, so the router's elapsedMs says nothing about the joiner's wait.
  const submitted: Array<{
    lane: Lane;
    segment: string;
    at: number;
    doneAt: number | undefined;
    promise: Promise<Outcome>;
  }> = [];
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
    const x = {
      lane: c.lane,
      segment: c.segment,
      at: clock.now(),
      doneAt: undefined as number | undefined,
      promise: gen.router.submit(raws[i], { lane: c.lane, segment: c.segment }),
    };
    const done = () => {
      x.doneAt = clock.now();
    };
    x.promise.then(done, done);
    submitted.push(x);
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
        settled[i] = o;
      });
    await clock.runAll();
    await Promise.all(submitted.slice(from).map((x) => x.promise));
    // A promise settles once by construction; what can go wrong is the router announcing a
    // second outcome for a submission (a joiner and an owner both closing it, a late answer
    // after the deadline's outcome). Counted from the events, apart from the promises.
    const announced = new Map<string, number>();
    for (const e of events) {
      const ev = JSON.parse(e) as { type: string; correlationId?: string };
      if (ev.type === 'outcome' && ev.correlationId !== undefined)
        announced.set(ev.correlationId, (announced.get(ev.correlationId) ?? 0) + 1);
    }
    for (const o of settled)
      if (o !== undefined)
        assert.equal(announced.get(o.correlationId), 1, `outcomes announced for ${o.correlationId}`);
    return settled;
  };
  const settled = await settle(live);

  // (1) every outcome of the living process is one of the known kinds (that each submission
  // settled, and was announced once, is checked in settle()).
  for (const o of settled) assert.ok(KINDS.has(o!.kind), o!.kind);
  // (3) a pos submission, joiners included, never settles later than its deadline plus one tick:
  // measured by the test from its submit to its own promise's settlement, not by elapsedMs.
  for (const x of submitted.slice(live)) {
    if (x.lane !== 'pos') continue;
    assert.ok(x.doneAt !== undefined, 'a pos submission never settled');
    if (x.doneAt - x.at > BUDGET[x.segment]! + 1)
      assert.fail(`pos claim settled ${x.doneAt - x.at} ms after its submit, budget ${BUDGET[x.segment]}`);
  }
  // Dead letters and claims left for reconciliation, submitted again by the batch lane.
  if (s.resubmitLetters) {
    const letters = gen.deadLetters.take();
    const from = submitted.length;
    for (const letter of letters)
      submitted.push({
        lane: 'batch',
        segment: 'retail',
        at: clock.now(),
        doneAt: undefined,
        promise: gen.router.resubmit(letter, { lane: 'batch' }),
      });
    const again = await settle(from);
    for (const o of again) assert.ok(o !== undefined && KINDS.has(o.kind), o?.kind);
  }
  // (2) the vendor never paid a claim twice, counted by claim content on every node.
  for (const [identity, n] of vendor.payments) assert.equal(n, 1, `claim ${identity} paid ${n} times`);
  // (4) no PHI value in any log line, event, audit record or outcome (plain search; a date of
  // birth as a number of its own, see test-support/phi-scan.ts).
  const haystacks = [
    ...logs,
    ...events,
    ...audit.records.map((r) => JSON.stringify(r)),
    ...settled.map((o) => JSON.stringify(o)),
  ];
  for (const c of s.claims) {
    for (const value of [c.phi.cardholder, c.phi.first, c.phi.last, c.phi.dob]) {
      for (const h of haystacks) assert.ok(!containsPhi(h, value), `PHI found: ${h.slice(0, 200)}`);
    }
  }
  await gen.router.close();
}

/**
 * The one-off failure of the property (FC_SEED=2619619808, run 246 of 250): no PHI had leaked;
 * the date of birth 20031015 sat in the fraction of a virtual timestamp of an event,
 * "at":2617721.9200310153. Kept as it was drawn: the plain search found it, the scan that
 * reads a date of birth as a number of its own does not.
 */
const DIGITS_IN_A_TIMESTAMP: Scenario = {
  seed: -2147483629,
  faults: [['commit-then-hang', 10]],
  okWeight: 26,
  secondary: false,
  sharedIdempotency: false,
  claims: [
    {
      phi: { cardholder: 'ZQ051233634', first: 'FNGULPVMBQ', last: 'LNEAONQUJG', dob: '20140515' },
      pcn: 'MEDD',
      ndc: '00002143390',
      lane: 'batch',
      segment: 'retail',
      gapMs: 291,
    },
    {
      phi: { cardholder: 'ZQ329103109', first: 'FNGBEGNHFHU', last: 'LNIVQJBWMUW', dob: '19510312' },
      pcn: 'MEDD',
      ndc: '00002143390',
      lane: 'batch',
      segment: 'specialty',
      gapMs: 237,
    },
    {
      phi: { cardholder: 'ZQ136710597', first: 'FNCGXPNUUX', last: 'LNYWZRJYUGPI', dob: '20031015' },
      pcn: 'MEDD',
      ndc: '00002143380',
      lane: 'batch',
      segment: 'specialty',
      gapMs: 0,
    },
    {
      phi: { cardholder: 'ZQ242076178', first: 'FNWMIRIX', last: 'LNQZWEUTFWBJ', dob: '19910512' },
      pcn: 'SPEC',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 289,
    },
    {
      phi: { cardholder: 'ZQ862923742', first: 'FNSHIOLMGBG', last: 'LNHEUEKYUUF', dob: '19630331' },
      pcn: 'SPEC',
      ndc: '00002143390',
      lane: 'pos',
      segment: 'retail',
      gapMs: 293,
    },
    {
      phi: { cardholder: 'ZQ282880549', first: 'FNFUCDATSLU', last: 'LNFFSXJGQWFN', dob: '19400803' },
      pcn: 'ADV',
      ndc: '00002143390',
      lane: 'batch',
      segment: 'retail',
      gapMs: 299,
    },
    {
      phi: { cardholder: 'ZQ242496882', first: 'FNPLFKABD', last: 'LNBRPNLG', dob: '19691231' },
      pcn: 'MEDD',
      ndc: '00002143390',
      lane: 'batch',
      segment: 'specialty',
      gapMs: 241,
    },
    {
      phi: { cardholder: 'ZQ113122630', first: 'FNXSZTNZPOLP', last: 'LNQUZHEAN', dob: '19630815' },
      pcn: 'MEDD',
      ndc: '00002143380',
      lane: 'batch',
      segment: 'specialty',
      gapMs: 7,
    },
    {
      phi: { cardholder: 'ZQ619015126', first: 'FNVSYDELZU', last: 'LNGXBKVNLK', dob: '19930111' },
      pcn: 'MEDD',
      ndc: '00002143390',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 0,
    },
    {
      phi: { cardholder: 'ZQ225951061', first: 'FNKNIWZACJY', last: 'LNYETMDXBE', dob: '19610418' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'batch',
      segment: 'specialty',
      gapMs: 13,
    },
    {
      phi: { cardholder: 'ZQ629361728', first: 'FNTEDZHCEFT', last: 'LNZSXTPN', dob: '20010405' },
      pcn: 'ADV',
      ndc: '00002143390',
      lane: 'pos',
      segment: 'retail',
      gapMs: 295,
    },
    {
      phi: { cardholder: 'ZQ279725637', first: 'FNGKZQAQ', last: 'LNBULYWOYC', dob: '19620101' },
      pcn: 'SPEC',
      ndc: '00002143390',
      lane: 'pos',
      segment: 'retail',
      gapMs: 19,
    },
  ],
  duplicateFirst: true,
  storm: true,
  restartAfter: 9,
  resubmitLetters: false,
};

/**
 * Paid twice, found by the property (FC_SEED=2569528299, shrunk; a router bug): claim
 * 1004 is answered 408 then 21 on the primary under its key K; the crosswalk repairs it
 * (NDC 00002143380 -> 00002143381, key K.r1) and the breaker sends it to the secondary, where
 * K.r1 is paid and the answer lost (needs-reconciliation, pinned to the secondary). The dead
 * letter holds the claim as submitted, not as repaired: resubmitted, it goes to the pin under
 * K and the original NDC, a key the secondary never saw, and is paid again. The pin records
 * the node only, so a restart or a takeover of such a claim would resend it the same way.
 * Fixed: a repaired claim stays on the node that rejected its key (claim-run.ts).
 */
const REPAIRED_THEN_RESUBMITTED: Scenario = {
  seed: 2147483627,
  faults: [
    ['commit-then-hang', 3],
    ['host-92', 3],
    ['reject-21', 5],
    ['ok', 3],
    ['408', 8],
  ],
  okWeight: 5,
  secondary: true,
  sharedIdempotency: false,
  claims: [
    {
      phi: { cardholder: 'ZQ000000000', first: 'FNAAAAAA', last: 'LNAAAAAA', dob: '19700101' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 0,
    },
    {
      phi: { cardholder: 'ZQ000000000', first: 'FNAAAAAA', last: 'LNAAAAAA', dob: '19700101' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 0,
    },
    {
      phi: { cardholder: 'ZQ000000000', first: 'FNAAAAAA', last: 'LNAAAAAA', dob: '19700101' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'retail',
      gapMs: 40,
    },
    {
      phi: { cardholder: 'ZQ000000000', first: 'FNAAAAAA', last: 'LNAAAAAA', dob: '19700101' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 194,
    },
    {
      phi: { cardholder: 'ZQ000000000', first: 'FNAAAAAA', last: 'LNAAAAAA', dob: '19700101' },
      pcn: 'ADV',
      ndc: '00002143380',
      lane: 'pos',
      segment: 'specialty',
      gapMs: 38,
    },
  ],
  duplicateFirst: true,
  storm: false,
  restartAfter: undefined,
  resubmitLetters: true,
};

describe('router properties (virtual clock, random vendor faults)', () => {
  it('one outcome per claim, never paid twice (by claim content) across retries, failover, restarts and resubmitted dead letters; no PHI; pos deadlines kept', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, scenario), { numRuns: Number(process.env.RX_RUNS ?? 250) });
  });

  it('a date of birth in the digits of a timestamp is no PHI leak (the one-off failure, replayed)', async () => {
    await scenario(DIGITS_IN_A_TIMESTAMP);
  });

  it('a claim repaired, its answer lost, then resubmitted from its dead letter is not paid again', async () => {
    await scenario(REPAIRED_THEN_RESUBMITTED);
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
