import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom, VirtualClock } from '@rxgate/testkit';
import { CircuitBreaker, type CircuitBreakerOptions, type Permit } from './circuit-breaker.js';
import { isBrokenCircuitError, isInvalidBreakerOptionError, isPermitSettledError } from './errors.js';
import type { BreakerEvent } from './state.js';

function setup(options: Partial<CircuitBreakerOptions> = {}) {
  const clock = new VirtualClock();
  const events: BreakerEvent[] = [];
  const breaker = new CircuitBreaker({
    policy: { kind: 'consecutive', threshold: 3 },
    openDuration: 1000,
    clock,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { clock, breaker, events };
}

const permit = (b: CircuitBreaker): Permit => {
  const p = b.tryAcquire();
  assert.equal(p.kind, 'permit');
  return p as Permit;
};
const fail = (b: CircuitBreaker, n = 1) => {
  for (let i = 0; i < n; i++) permit(b).failure();
};
const transitions = (events: BreakerEvent[]) =>
  events.flatMap((e) => (e.type === 'state-change' ? [`${e.from}->${e.to}:${e.reason}@${e.at}`] : []));

describe('CircuitBreaker: closed', () => {
  it('opens after the consecutive threshold; a success resets the run', () => {
    const { breaker } = setup();
    fail(breaker, 2);
    permit(breaker).success();
    fail(breaker, 2);
    assert.equal(breaker.state, 'closed');
    fail(breaker);
    assert.equal(breaker.state, 'open');
  });

  it('ignore() never changes anything', () => {
    const { breaker } = setup();
    fail(breaker, 2);
    for (let i = 0; i < 10; i++) permit(breaker).ignore();
    assert.equal(breaker.state, 'closed');
    fail(breaker);
    assert.equal(breaker.state, 'open', 'the ignored calls did not reset the run either');
  });

  it('a permit settles once; a second settle throws', () => {
    const { breaker } = setup();
    const p = permit(breaker);
    p.success();
    assert.throws(() => p.failure(), isPermitSettledError);
    assert.throws(() => p.ignore(), isPermitSettledError);
  });
});

describe('CircuitBreaker: open', () => {
  it('rejects every call with the time until the next probe, then admits a probe', async () => {
    const { clock, breaker, events } = setup();
    fail(breaker, 3);
    await clock.advance(400);
    const r = breaker.tryAcquire();
    assert.equal(r.kind, 'rejected');
    assert.equal(r.kind === 'rejected' && r.retryAfterMs, 600);
    await assert.rejects(
      breaker.execute(async () => 1),
      (e) => isBrokenCircuitError(e) && e.retryAfterMs === 600,
    );
    await clock.advance(599);
    assert.equal(breaker.tryAcquire().kind, 'rejected');
    await clock.advance(1);
    const probe = breaker.tryAcquire();
    assert.equal(probe.kind, 'permit');
    assert.equal(breaker.state, 'half-open');
    assert.deepEqual(transitions(events), [
      'closed->open:failure-policy@0',
      'open->half-open:open-elapsed@1000',
    ]);
  });

  it('a late failure from the closed state does not count again', async () => {
    const { breaker } = setup();
    const late = permit(breaker);
    fail(breaker, 3);
    late.failure();
    assert.equal(breaker.state, 'open');
  });

  it('grows the open duration across trips with jitter, capped, and resets after a clean close', async () => {
    const { clock, breaker, events } = setup({
      policy: { kind: 'consecutive', threshold: 1 },
      openDuration: { initialMs: 1000, maxMs: 5000, multiplier: 2, jitter: 0.5 },
      random: () => 0.5,
    });
    const openFor: number[] = [];
    for (let trip = 0; trip < 5; trip++) {
      const at = clock.now();
      if (trip === 0) fail(breaker);
      else permit(breaker).failure(); // the half-open probe fails
      openFor.push(breaker.retryAfterMs);
      await clock.advance(breaker.retryAfterMs);
      assert.ok(clock.now() > at);
    }
    // 1000, 2000, 4000, 5000 (cap), 5000, each minus 25% (jitter 0.5 × random 0.5).
    assert.deepEqual(openFor, [750, 1500, 3000, 3750, 3750]);
    permit(breaker).success();
    assert.equal(breaker.state, 'closed');
    fail(breaker);
    assert.equal(breaker.retryAfterMs, 750, 'the growth restarted after the clean close');
    assert.ok(events.some((e) => e.type === 'state-change' && e.reason === 'probes-succeeded'));
  });
});

describe('CircuitBreaker: half-open', () => {
  async function halfOpen(options: Partial<CircuitBreakerOptions> = {}) {
    const s = setup({ maxProbes: 2, successesToClose: 3, ...options });
    fail(s.breaker, 3);
    await s.clock.advance(1000);
    return s;
  }

  it('admits at most maxProbes at once', async () => {
    const { breaker } = await halfOpen();
    const a = permit(breaker);
    permit(breaker);
    const r = breaker.tryAcquire();
    assert.equal(r.kind, 'rejected');
    assert.equal(r.kind === 'rejected' && r.state, 'half-open');
    a.ignore();
    assert.equal(breaker.tryAcquire().kind, 'permit', 'an ignored probe frees its slot');
  });

  it('closes only after successesToClose successes', async () => {
    const { breaker } = await halfOpen();
    permit(breaker).success();
    permit(breaker).success();
    assert.equal(breaker.state, 'half-open');
    permit(breaker).success();
    assert.equal(breaker.state, 'closed');
  });

  it('any probe failure re-opens; a late success of the old probes cannot close it', async () => {
    const { breaker, clock } = await halfOpen({ successesToClose: 1 });
    const a = permit(breaker);
    const b = permit(breaker);
    b.failure();
    assert.equal(breaker.state, 'open');
    a.success();
    assert.equal(breaker.state, 'open', 'late success ignored');
    assert.equal(breaker.probesInFlight, 0);
    await clock.advance(1000);
    assert.equal(breaker.state, 'half-open');
    assert.equal(breaker.tryAcquire().kind, 'permit');
    assert.equal(breaker.tryAcquire().kind, 'permit');
    assert.equal(breaker.tryAcquire().kind, 'rejected', 'the late probe did not leave a phantom slot');
  });

  it('a slow probe counts as a failure when the policy judges slow calls', async () => {
    const s = setup({ policy: { kind: 'count-window', size: 2, slowCall: { thresholdMs: 100, rate: 1 } } });
    const a = permit(s.breaker);
    const b = permit(s.breaker);
    await s.clock.advance(200);
    a.success();
    b.success();
    assert.equal(s.breaker.state, 'open', 'two slow successes: slow-call rate 100%');
    await s.clock.advance(1000);
    const probe = permit(s.breaker);
    await s.clock.advance(150);
    probe.success();
    assert.equal(s.breaker.state, 'open');
  });
});

describe('CircuitBreaker: isolation, reset, persistence', () => {
  it('isolation is refcounted and rejects with Infinity', () => {
    const { breaker } = setup();
    const h1 = breaker.isolate();
    const h2 = breaker.isolate();
    const r = breaker.tryAcquire();
    assert.equal(r.kind === 'rejected' && r.retryAfterMs, Number.POSITIVE_INFINITY);
    h1.release();
    h1.release();
    assert.equal(breaker.state, 'isolated');
    h2.release();
    assert.equal(breaker.state, 'closed');
  });

  it('reset closes from any state and forgets failures', async () => {
    const { breaker } = setup();
    fail(breaker, 3);
    breaker.reset();
    assert.equal(breaker.state, 'closed');
    fail(breaker, 2);
    assert.equal(breaker.state, 'closed');
    const h = breaker.isolate();
    breaker.reset();
    h.release();
    assert.equal(breaker.state, 'closed');
  });

  it('toJSON and initialState carry state across a restart', async () => {
    const { breaker, clock } = setup({ policy: { kind: 'count-window', size: 4, failureRate: 0.5 } });
    permit(breaker).failure();
    permit(breaker).success();
    const saved = JSON.parse(JSON.stringify(breaker.toJSON()));
    const restored = new CircuitBreaker({
      policy: { kind: 'count-window', size: 4, failureRate: 0.5 },
      openDuration: 1000,
      clock,
      initialState: saved,
    });
    permit(restored).success();
    permit(restored).failure();
    assert.equal(restored.state, 'open', '2 of 4 failed across the restart');
    const again = new CircuitBreaker({
      clock,
      openDuration: 1000,
      initialState: JSON.parse(JSON.stringify(restored.toJSON())),
    });
    assert.equal(again.state, 'open');
    await clock.advance(1000);
    assert.equal(again.state, 'half-open');
  });
});

describe('CircuitBreaker: failure policies', () => {
  it('count window: failure rate over the last N calls, after minimumCalls', () => {
    const { breaker } = setup({
      policy: { kind: 'count-window', size: 4, minimumCalls: 4, failureRate: 0.5 },
    });
    permit(breaker).failure();
    permit(breaker).failure();
    permit(breaker).success();
    assert.equal(breaker.state, 'closed', 'only 3 calls: not judged yet');
    permit(breaker).success();
    assert.equal(breaker.state, 'open', '2 of 4');
  });

  it('count window slides: old failures fall out', () => {
    const { breaker } = setup({ policy: { kind: 'count-window', size: 3, failureRate: 0.66 } });
    permit(breaker).failure();
    permit(breaker).success();
    permit(breaker).success();
    permit(breaker).failure();
    assert.equal(breaker.state, 'closed', 'the first failure slid out: 1 of 3');
    permit(breaker).failure();
    assert.equal(breaker.state, 'open', '2 of 3');
  });

  it('time window: failure rate over the last windowMs with a minimum of calls', async () => {
    const { breaker, clock } = setup({
      policy: { kind: 'time-window', windowMs: 10_000, buckets: 10, minimumCalls: 4, failureRate: 0.5 },
    });
    permit(breaker).failure();
    permit(breaker).failure();
    await clock.advance(11_000);
    permit(breaker).failure();
    permit(breaker).success();
    permit(breaker).success();
    assert.equal(breaker.state, 'closed', 'the first two fell out of the window');
    permit(breaker).failure();
    assert.equal(breaker.state, 'open', '2 of 4 within 10 s');
  });

  it('slow-call rate: calls over the threshold count, successes included', async () => {
    const { breaker, clock } = setup({
      policy: { kind: 'count-window', size: 4, slowCall: { thresholdMs: 500, rate: 0.5 } },
    });
    const ps = [permit(breaker), permit(breaker), permit(breaker), permit(breaker)];
    ps[0]!.success();
    ps[1]!.success();
    await clock.advance(600);
    ps[2]!.success();
    assert.equal(breaker.state, 'closed');
    ps[3]!.success();
    assert.equal(breaker.state, 'open');
  });

  it('validates options naming the bad one', () => {
    const bad: Array<[Partial<CircuitBreakerOptions>, string]> = [
      [{ policy: { kind: 'consecutive', threshold: 0 } }, 'policy.threshold'],
      [{ policy: { kind: 'count-window', size: 10 } }, 'policy.failureRate'],
      [{ policy: { kind: 'count-window', size: 10, failureRate: 1.5 } }, 'policy.failureRate'],
      [
        { policy: { kind: 'time-window', windowMs: 0, minimumCalls: 1, failureRate: 0.5 } },
        'policy.windowMs',
      ],
      [
        { policy: { kind: 'count-window', size: 10, slowCall: { thresholdMs: -1, rate: 0.5 } } },
        'policy.slowCall.thresholdMs',
      ],
      [{ policy: { kind: 'nope' } as never }, 'policy.kind'],
      [{ maxProbes: 0 }, 'maxProbes'],
      [{ successesToClose: 1.5 }, 'successesToClose'],
      [{ openDuration: Number.NaN }, 'openDuration'],
      [{ openDuration: { initialMs: 100, maxMs: 50 } }, 'openDuration.maxMs'],
      [{ openDuration: { initialMs: 100, maxMs: 500, jitter: 2 } }, 'openDuration.jitter'],
    ];
    for (const [o, option] of bad) {
      assert.throws(
        () => new CircuitBreaker(o as CircuitBreakerOptions),
        (e) => isInvalidBreakerOptionError(e) && e.option === option,
        option,
      );
    }
  });
});

describe('CircuitBreaker: execute', () => {
  it('resolutions succeed, rejections fail, aborts are ignored', async () => {
    const { breaker } = setup({ policy: { kind: 'consecutive', threshold: 2 } });
    assert.equal(await breaker.execute(async () => 5), 5);
    const abort = new DOMException('gone', 'AbortError');
    for (let i = 0; i < 3; i++) await assert.rejects(breaker.execute(() => Promise.reject(abort)));
    assert.equal(breaker.state, 'closed');
    await assert.rejects(
      breaker.execute(() => {
        throw new Error('sync throw');
      }),
      /sync throw/,
    );
    await assert.rejects(
      breaker.execute(async () => Promise.reject(new Error('503'))),
      /503/,
    );
    assert.equal(breaker.state, 'open');
  });

  it('classifyError lets the caller decide', async () => {
    const { breaker } = setup({
      policy: { kind: 'consecutive', threshold: 1 },
      classifyError: () => 'ignore',
    });
    await assert.rejects(breaker.execute(() => Promise.reject(new Error('429'))));
    assert.equal(breaker.state, 'closed');
  });

  it('an aborted signal rejects before a permit is taken', async () => {
    const { breaker } = setup({ policy: { kind: 'consecutive', threshold: 1 } });
    await assert.rejects(breaker.execute(async () => 1, { signal: AbortSignal.abort() }));
    assert.equal(breaker.state, 'closed');
  });
});

describe('CircuitBreaker: health probe', () => {
  it('half-open sends the synthetic probe instead of live calls, and closes on its successes', async () => {
    let calls = 0;
    const { breaker, clock, events } = setup({
      successesToClose: 2,
      healthProbe: { run: async () => void calls++ },
    });
    fail(breaker, 3);
    await clock.advance(1000);
    assert.equal(calls, 2, 'two probes, one after the other');
    assert.equal(breaker.state, 'closed');
    assert.equal(events.filter((e) => e.type === 'probe-started' && e.health).length, 2);
  });

  it('a failing or hanging probe re-opens', async () => {
    let answer: 'fail' | 'hang' = 'fail';
    const { breaker, clock, events } = setup({
      healthProbe: {
        timeoutMs: 300,
        run: () => (answer === 'fail' ? Promise.reject(new Error('E1 down')) : new Promise(() => {})),
      },
    });
    fail(breaker, 3);
    await clock.advance(1000);
    assert.equal(breaker.state, 'open');
    answer = 'hang';
    await clock.advance(1000);
    assert.equal(breaker.state, 'half-open');
    assert.equal(breaker.tryAcquire().kind, 'rejected', 'no live call while the probe decides');
    await clock.advance(300);
    assert.equal(breaker.state, 'open');
    assert.deepEqual(
      events.flatMap((e) => (e.type === 'state-change' ? [e.reason] : [])),
      ['failure-policy', 'open-elapsed', 'health-probe-failed', 'open-elapsed', 'health-probe-failed'],
    );
  });

  it('uses the injected random source for jitter', () => {
    const a = setup({ openDuration: { initialMs: 1000, maxMs: 1000, jitter: 1 }, random: seededRandom(7) });
    const b = setup({ openDuration: { initialMs: 1000, maxMs: 1000, jitter: 1 }, random: seededRandom(7) });
    fail(a.breaker, 3);
    fail(b.breaker, 3);
    assert.equal(a.breaker.retryAfterMs, b.breaker.retryAfterMs);
  });
});
