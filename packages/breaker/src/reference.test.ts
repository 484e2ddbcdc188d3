// The breaker against a reference written another way: the calls it has seen kept as a plain
// list (time, failed, slow), each failure policy read off that list as its options document
// it, and the states closed -> open -> half-open -> closed or open again stepped by hand.
// Every state, every refusal's wait and every state change (with its reason) must agree.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { CircuitBreaker, type OpenDurationOptions } from './circuit-breaker.js';
import type { FailurePolicyOptions } from './policies.js';
import type { BreakerEvent, CallOutcome } from './state.js';

interface Call {
  readonly gap: number;
  readonly duration: number;
  readonly outcome: CallOutcome;
}
interface Seen {
  readonly at: number;
  readonly failed: boolean;
  readonly slow: boolean;
}

const slowOf = (p: FailurePolicyOptions): number =>
  p.kind !== 'consecutive' && p.slowCall !== undefined ? p.slowCall.thresholdMs : Number.POSITIVE_INFINITY;

/** Whether the calls seen since the breaker last closed open it, as each policy's options say. */
function opens(p: FailurePolicyOptions, seen: readonly Seen[], now: number): boolean {
  let window: readonly Seen[];
  let minimumCalls: number;
  switch (p.kind) {
    case 'consecutive': {
      let run = 0;
      for (const s of seen) run = s.failed ? run + 1 : 0;
      return run >= p.threshold;
    }
    case 'count-window':
      window = seen.slice(-p.size);
      minimumCalls = p.minimumCalls ?? p.size;
      break;
    case 'time-window': {
      // The last `buckets` slices of windowMs / buckets each, the current one included.
      const slice = p.windowMs / (p.buckets ?? 10);
      const first = Math.floor(now / slice) - ((p.buckets ?? 10) - 1);
      window = seen.filter((s) => Math.floor(s.at / slice) >= first);
      minimumCalls = p.minimumCalls;
      break;
    }
  }
  if (window.length < minimumCalls) return false;
  const share = (n: number) => n / window.length;
  if (p.failureRate !== undefined && share(window.filter((s) => s.failed).length) >= p.failureRate)
    return true;
  return p.slowCall !== undefined && share(window.filter((s) => s.slow).length) >= p.slowCall.rate;
}

const rateArb = fc.constantFrom(0.25, 0.5, 0.6, 1);
const slowArb = fc.record({ thresholdMs: fc.integer({ min: 0, max: 50 }), rate: rateArb });
const policyArb: fc.Arbitrary<FailurePolicyOptions> = fc.oneof(
  fc.record({ kind: fc.constant('consecutive' as const), threshold: fc.integer({ min: 1, max: 4 }) }),
  fc
    .record(
      {
        kind: fc.constant('count-window' as const),
        size: fc.integer({ min: 1, max: 6 }),
        minimumCalls: fc.integer({ min: 1, max: 6 }),
        failureRate: rateArb,
        slowCall: slowArb,
      },
      { requiredKeys: ['kind', 'size'] },
    )
    .filter((p) => p.failureRate !== undefined || p.slowCall !== undefined),
  fc
    .record(
      {
        kind: fc.constant('time-window' as const),
        // Any window, whether or not it splits into whole milliseconds (671 ms in 5 slices lost
        // its oldest slice to rounding before: the breaker did not open at 1 failure in 4).
        buckets: fc.integer({ min: 1, max: 5 }),
        windowMs: fc.integer({ min: 20, max: 2000 }),
        minimumCalls: fc.integer({ min: 1, max: 5 }),
        failureRate: rateArb,
        slowCall: slowArb,
      },
      { requiredKeys: ['kind', 'buckets', 'windowMs', 'minimumCalls'] },
    )
    .filter((p) => p.failureRate !== undefined || p.slowCall !== undefined),
);
const openArb: fc.Arbitrary<OpenDurationOptions> = fc.oneof(
  fc.integer({ min: 1, max: 800 }),
  fc.record({
    initialMs: fc.integer({ min: 1, max: 300 }),
    maxMs: fc.integer({ min: 300, max: 1200 }),
    multiplier: fc.constantFrom(1, 1.5, 2, 3),
    jitter: fc.constantFrom(0, 0.2, 0.5, 1),
  }),
);
const callArb: fc.Arbitrary<Call> = fc.record({
  gap: fc.oneof(fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 1500 })),
  duration: fc.integer({ min: 0, max: 80 }),
  outcome: fc.constantFrom<CallOutcome>('success', 'failure', 'failure', 'ignore'),
});

describe('the breaker against a reference of its states and policies', () => {
  it('agrees on every state, refusal and state change, call by call', () => {
    fc.assert(
      fc.property(
        policyArb,
        openArb,
        fc.constantFrom(0, 0.25, 0.999),
        fc.array(callArb, { maxLength: 60 }),
        (policy, openDuration, r, calls) => {
          const clock = new VirtualClock();
          const events: string[] = [];
          const onEvent = (e: BreakerEvent) => {
            if (e.type === 'state-change') events.push(`${e.from}>${e.to}:${e.reason}@${e.at}`);
          };
          const breaker = new CircuitBreaker({ policy, openDuration, clock, random: () => r, onEvent });
          const o =
            typeof openDuration === 'number'
              ? { initialMs: openDuration, maxMs: openDuration, multiplier: 1, jitter: 0 }
              : openDuration;
          const expected: string[] = [];
          let state = 'closed' as 'closed' | 'open' | 'half-open';
          let openUntil = 0;
          let trips = 0;
          let seen: Seen[] = [];
          const open = (from: string, reason: string) => {
            trips++;
            const duration =
              Math.min(o.maxMs, o.initialMs * (o.multiplier ?? 2) ** (trips - 1)) *
              (1 - (o.jitter ?? 0.2) * r);
            openUntil = clock.now() + duration;
            state = 'open';
            expected.push(`${from}>open:${reason}@${clock.now()}`);
          };
          for (const call of calls) {
            clock.advanceSync(call.gap);
            if (state === 'open' && clock.now() >= openUntil) {
              state = 'half-open';
              expected.push(`open>half-open:open-elapsed@${clock.now()}`);
            }
            assert.equal(breaker.state, state);
            const permit = breaker.tryAcquire();
            if (state === 'open') {
              assert.equal(permit.kind, 'rejected');
              assert.equal(permit.kind === 'rejected' && permit.retryAfterMs, openUntil - clock.now());
              assert.equal(breaker.retryAfterMs, openUntil - clock.now());
              continue;
            }
            assert.equal(breaker.retryAfterMs, 0);
            assert.equal(permit.kind, 'permit');
            if (permit.kind !== 'permit') return;
            assert.equal(permit.probe, state === 'half-open');
            clock.advanceSync(call.duration);
            permit.settle(call.outcome);
            if (call.outcome === 'ignore') continue;
            const slow = call.duration > slowOf(policy);
            if (state === 'half-open') {
              if (call.outcome === 'success' && !slow) {
                state = 'closed';
                trips = 0;
                seen = [];
                expected.push(`half-open>closed:probes-succeeded@${clock.now()}`);
              } else open('half-open', 'probe-failed');
              continue;
            }
            seen.push({ at: clock.now(), failed: call.outcome === 'failure', slow });
            if (opens(policy, seen, clock.now())) open('closed', 'failure-policy');
          }
          assert.deepEqual(events, expected);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('a time window that does not split into whole milliseconds', () => {
  it('still counts its oldest slice (671 ms in 5 slices of 134.2 ms)', () => {
    const clock = new VirtualClock();
    const breaker = new CircuitBreaker({
      policy: { kind: 'time-window', windowMs: 671, buckets: 5, minimumCalls: 4, failureRate: 0.25 },
      clock,
    });
    // Slices 14, 15, 15 and 18 of 134.2 ms: all four inside the last five slices (14..18).
    for (const [at, outcome] of [
      [1879, 'success'],
      [2015, 'success'],
      [2105, 'success'],
      [2416, 'failure'],
    ] as const) {
      clock.advanceSync(at - clock.now());
      const permit = breaker.tryAcquire();
      assert.equal(permit.kind, 'permit');
      if (permit.kind === 'permit') permit.settle(outcome);
    }
    assert.equal(breaker.state, 'open', '1 failure in 4 calls reaches the rate of 0.25');
  });
});
