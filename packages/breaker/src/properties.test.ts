import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { CircuitBreaker, type Permit } from './circuit-breaker.js';
import { isBrokenCircuitError, isPermitSettledError } from './errors.js';
import type { FailurePolicyOptions } from './policies.js';
import type { BreakerEvent, BreakerState, CallOutcome } from './state.js';

const OPEN_MS = 1000;

/** What the test knows of the system: facts observed, not a copy of the implementation. */
interface Model {
  openUntil: number;
  /** Probe permits issued in the current half-open episode and not settled. */
  probes: Permit[];
  /** Probe successes in the current half-open episode. */
  successes: number;
  outstanding: Permit[];
  settled: Permit[];
}

interface Real {
  clock: VirtualClock;
  breaker: CircuitBreaker;
  maxProbes: number;
  successesToClose: number;
}

class Acquire implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    const now = r.clock.now();
    const result = r.breaker.tryAcquire();
    if (now < m.openUntil)
      assert.equal(result.kind, 'rejected', `open until ${m.openUntil}, admitted at ${now}`);
    if (result.kind === 'rejected') return;
    m.outstanding.push(result);
    if (result.probe) {
      m.probes.push(result);
      assert.ok(m.probes.length <= r.maxProbes, `${m.probes.length} probes in flight, max ${r.maxProbes}`);
      assert.equal(r.breaker.probesInFlight, m.probes.length);
    }
  }
  toString = () => 'acquire';
}

class Settle implements fc.Command<Model, Real> {
  constructor(
    readonly pick: number,
    readonly outcome: CallOutcome,
  ) {}
  check = (m: Readonly<Model>) => m.outstanding.length > 0;
  run(m: Model, r: Real): void {
    const [p] = m.outstanding.splice(this.pick % m.outstanding.length, 1);
    const before: BreakerState = r.breaker.state;
    const probeOfThisEpisode = m.probes.includes(p!);
    if (probeOfThisEpisode) {
      m.probes.splice(m.probes.indexOf(p!), 1);
      if (this.outcome === 'success') m.successes++;
    }
    p![this.outcome]();
    m.settled.push(p!);
    if (this.outcome === 'ignore') assert.equal(r.breaker.state, before, 'ignore() changed the state');
  }
  toString = () => `settle(${this.pick}, ${this.outcome})`;
}

class SettleAgain implements fc.Command<Model, Real> {
  constructor(
    readonly pick: number,
    readonly outcome: CallOutcome,
  ) {}
  check = (m: Readonly<Model>) => m.settled.length > 0;
  run(m: Model, r: Real): void {
    const p = m.settled[this.pick % m.settled.length]!;
    const before = r.breaker.state;
    assert.throws(() => p[this.outcome](), isPermitSettledError);
    assert.equal(r.breaker.state, before);
  }
  toString = () => `settleAgain(${this.pick}, ${this.outcome})`;
}

class Advance implements fc.Command<Model, Real> {
  constructor(readonly ms: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    // No health probe here, so no timers: time moves synchronously.
    r.clock.advanceSync(this.ms);
    if (r.clock.now() < m.openUntil) assert.equal(r.breaker.state, 'open');
  }
  toString = () => `advance(${this.ms})`;
}

const policyArb: fc.Arbitrary<FailurePolicyOptions> = fc.oneof(
  fc.record({ kind: fc.constant('consecutive' as const), threshold: fc.integer({ min: 1, max: 4 }) }),
  fc.record({
    kind: fc.constant('count-window' as const),
    size: fc.integer({ min: 1, max: 6 }),
    failureRate: fc.double({ min: 0.1, max: 1, noNaN: true }),
  }),
  fc.record({
    kind: fc.constant('time-window' as const),
    windowMs: fc.integer({ min: 100, max: 5000 }),
    minimumCalls: fc.integer({ min: 1, max: 5 }),
    failureRate: fc.double({ min: 0.1, max: 1, noNaN: true }),
  }),
);

const outcomeArb = fc.constantFrom<CallOutcome>('success', 'failure', 'ignore');

describe('breaker properties (model-based)', () => {
  it('probe bound, open rejects, close after successesToClose, ignore is inert, settle once', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 4 }),
        fc.commands(
          [
            fc.constant(new Acquire()),
            fc.tuple(fc.nat(), outcomeArb).map(([i, o]) => new Settle(i, o)),
            fc.tuple(fc.nat(), outcomeArb).map(([i, o]) => new SettleAgain(i, o)),
            fc.integer({ min: 1, max: 1500 }).map((ms) => new Advance(ms)),
          ],
          { maxCommands: 80 },
        ),
        (policy, maxProbes, successesToClose, commands) => {
          const clock = new VirtualClock();
          const model: Model = { openUntil: 0, probes: [], successes: 0, outstanding: [], settled: [] };
          const onEvent = (e: BreakerEvent) => {
            if (e.type !== 'state-change') return;
            if (e.from === 'half-open' && e.to === 'closed') {
              assert.ok(model.successes >= successesToClose, `closed after ${model.successes} successes`);
            }
            if (e.to === 'open') {
              assert.ok(clock.now() >= model.openUntil, 'opened again while already open');
              model.openUntil = clock.now() + OPEN_MS;
            }
            // A new episode: probes of the old one no longer hold slots.
            model.probes = [];
            model.successes = 0;
          };
          const breaker = new CircuitBreaker({
            policy,
            maxProbes,
            successesToClose,
            openDuration: OPEN_MS,
            clock,
            onEvent,
          });
          fc.modelRun(() => ({ model, real: { clock, breaker, maxProbes, successesToClose } }), commands);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('under any interleaving of concurrent execute() calls, completions and clock advances, half-open never exceeds maxProbes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 3 }),
        fc.array(fc.record({ fails: fc.boolean(), advance: fc.integer({ min: 0, max: 700 }) }), {
          minLength: 1,
          maxLength: 30,
        }),
        async (s, maxProbes, calls) => {
          const clock = new VirtualClock();
          let halfOpenInFlight = 0;
          let maxSeen = 0;
          let episode = 0;
          const breaker = new CircuitBreaker({
            policy: { kind: 'consecutive', threshold: 2 },
            maxProbes,
            successesToClose: 2,
            openDuration: 500,
            clock,
            onEvent: (e) => {
              if (e.type === 'state-change') {
                episode++;
                halfOpenInFlight = 0;
              }
            },
          });
          const all: Promise<unknown>[] = [];
          for (const c of calls) {
            all.push(
              s.schedule(Promise.resolve(c.advance)).then((ms) => {
                clock.advanceSync(ms);
                return breaker
                  .execute(() => {
                    const probe = breaker.state === 'half-open';
                    const mine = episode;
                    if (probe) maxSeen = Math.max(maxSeen, ++halfOpenInFlight);
                    return s.schedule(Promise.resolve()).then(() => {
                      if (probe && mine === episode) halfOpenInFlight--;
                      if (c.fails) throw new Error('vendor 503');
                    });
                  })
                  .catch((e: unknown) => {
                    if (!isBrokenCircuitError(e) && !(e instanceof Error && e.message === 'vendor 503'))
                      throw e;
                  });
              }),
            );
          }
          await s.waitAll();
          await Promise.all(all);
          assert.ok(maxSeen <= maxProbes, `${maxSeen} probes at once, max ${maxProbes}`);
          assert.equal(breaker.probesInFlight, 0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
