// The breaker at the edges its README and option docs describe and the other tests leave
// open: how a default `execute` judges an abort, what a bad option says, the wait a breaker
// reports once it is closed again, health probes that answer late or fail, a restored state,
// the open duration's default jitter, and breakerPolicy passing the caller's signal and key.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { createBreakers } from './breakers.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { isInvalidBreakerOptionError } from './errors.js';
import { breakerPolicy } from './policy.js';
import type { BreakerEvent } from './state.js';

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('execute without classifyError or classifyResult', () => {
  it('an abort is neither a failure nor a success: failures around it stay consecutive', async () => {
    for (const name of ['AbortError', 'TimeoutError']) {
      const b = new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 2 } });
      await assert.rejects(b.execute(() => Promise.reject(new Error('down'))));
      await assert.rejects(b.execute(() => Promise.reject(new DOMException('stop', name))));
      assert.equal(b.state, 'closed');
      await assert.rejects(b.execute(() => Promise.reject(new Error('down'))));
      assert.equal(b.state, 'open', `${name} in between reset the run of failures`);
    }
  });

  it('a resolved half-open probe is a success: it closes the breaker', async () => {
    const clock = new VirtualClock();
    const b = new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 1 }, openDuration: 100, clock });
    await assert.rejects(b.execute(() => Promise.reject(new Error('down'))));
    clock.advanceSync(100);
    assert.equal(await b.execute(async () => 'ok'), 'ok');
    assert.equal(b.state, 'closed');
  });
});

describe('options', () => {
  it('a classifyResult that is no function is refused by name', () => {
    assert.throws(
      () => new CircuitBreaker({ classifyResult: 5 as never }),
      (e) =>
        isInvalidBreakerOptionError(e) &&
        e.option === 'classifyResult' &&
        /must be a function/.test(e.message),
    );
  });

  it('an initial state that is not closed, open or isolated is refused by name', () => {
    for (const state of ['half-open', 'weird', undefined])
      assert.throws(
        () => new CircuitBreaker({ initialState: { state, openUntil: 0, trips: 0, isolations: 0 } as never }),
        (e) => isInvalidBreakerOptionError(e) && e.option === 'initialState.state',
        String(state),
      );
  });

  it('a growing open duration without jitter given takes off up to 20 % at random', () => {
    const clock = new VirtualClock();
    const b = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 1 },
      openDuration: { initialMs: 100, maxMs: 1000 },
      random: () => 0.5,
      clock,
    });
    const p = b.tryAcquire();
    if (p.kind === 'permit') p.failure();
    assert.equal(b.retryAfterMs, 90);
  });
});

describe('retryAfterMs', () => {
  it('is 0 once a breaker that was open is closed by reset()', () => {
    const clock = new VirtualClock();
    const b = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 1 },
      openDuration: 5000,
      clock,
    });
    const p = b.tryAcquire();
    if (p.kind === 'permit') p.failure();
    assert.equal(b.retryAfterMs, 5000);
    b.reset();
    assert.equal(b.state, 'closed');
    assert.equal(b.retryAfterMs, 0);
  });
});

describe('health probes', () => {
  const tripped = (run: () => Promise<unknown>, successesToClose = 1) => {
    const clock = new VirtualClock();
    const events: BreakerEvent[] = [];
    const b = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 1 },
      openDuration: 100,
      successesToClose,
      healthProbe: { run, timeoutMs: 1000 },
      clock,
      onEvent: (e) => events.push(e),
    });
    const p = b.tryAcquire();
    if (p.kind === 'permit') p.failure();
    return { b, clock, events };
  };

  it('a failed probe is reported as a failure and re-opens', async () => {
    const { b, clock, events } = tripped(async () => false);
    await clock.advance(100);
    await flush();
    assert.deepEqual(
      events.filter((e) => e.type === 'probe-finished'),
      [{ type: 'probe-finished', health: true, outcome: 'failure' }],
    );
    assert.equal(b.state, 'open');
  });

  it('a successful probe is reported as a success', async () => {
    const { b, clock, events } = tripped(async () => true);
    await clock.advance(100);
    await flush();
    assert.deepEqual(
      events.filter((e) => e.type === 'probe-finished'),
      [{ type: 'probe-finished', health: true, outcome: 'success' }],
    );
    assert.equal(b.state, 'closed');
  });

  it('one success closes: no further probe is sent', async () => {
    let runs = 0;
    const { b, clock } = tripped(async () => {
      runs++;
      return true;
    });
    await clock.advance(100);
    await flush();
    await flush();
    assert.equal(b.state, 'closed');
    assert.equal(runs, 1);
  });

  it('an answer from an earlier half-open does not count in a later one', async () => {
    const answers: Array<(ok: boolean) => void> = [];
    const { b, clock } = tripped(() => new Promise<boolean>((resolve) => answers.push(resolve)), 2);
    await clock.advance(100); // half-open: probe 1 sent
    assert.equal(answers.length, 1);
    b.reset(); // closed; probe 1 still out
    const p = b.tryAcquire();
    if (p.kind === 'permit') p.failure(); // open again
    await clock.advance(100); // half-open again: probe 2 sent
    assert.equal(b.state, 'half-open');
    answers[0]!(true); // the late answer of probe 1
    await flush();
    answers[1]!(true); // probe 2: one success of the two needed
    await flush();
    assert.equal(b.state, 'half-open', 'the late answer counted as a success of this half-open');
  });
});

describe('slow calls (README: calls over the threshold count as slow)', () => {
  // One call of `ms` on the breaker's virtual clock, then its outcome.
  const call = (b: CircuitBreaker, clock: VirtualClock, ms: number) => {
    const p = b.tryAcquire();
    assert.equal(p.kind, 'permit');
    clock.advanceSync(ms);
    if (p.kind === 'permit') p.success();
  };

  it('a time window: a call of exactly the threshold is not slow, one a millisecond longer is', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 10_000,
      minimumCalls: 2,
      slowCall: { thresholdMs: 100, rate: 0.5 },
    } as const;
    const clock = new VirtualClock();
    const at = new CircuitBreaker({ policy, clock });
    call(at, clock, 100);
    call(at, clock, 100);
    assert.equal(at.state, 'closed', '2 calls of 100 ms: none over 100 ms');
    const over = new CircuitBreaker({ policy, clock });
    call(over, clock, 101);
    call(over, clock, 101);
    assert.equal(over.state, 'open', '2 calls of 101 ms: 2 of 2 slow');
  });

  it('a count window: a slow call that leaves the window no longer counts', () => {
    const clock = new VirtualClock();
    const b = new CircuitBreaker({
      policy: { kind: 'count-window', size: 2, minimumCalls: 2, slowCall: { thresholdMs: 100, rate: 1 } },
      clock,
    });
    call(b, clock, 200); // [slow]
    call(b, clock, 10); // [slow, fast]: 1 of 2
    call(b, clock, 10); // [fast, fast]: the slow call left
    call(b, clock, 200); // [fast, slow]: 1 of 2, under 100 %
    assert.equal(b.state, 'closed');
    call(b, clock, 200); // [slow, slow]: 2 of 2
    assert.equal(b.state, 'open');
  });
});

describe('a restored open breaker without a health probe', () => {
  it('arms no timer: it turns half-open when next asked', () => {
    const clock = new VirtualClock(1000);
    const events: BreakerEvent[] = [];
    const b = new CircuitBreaker({
      clock,
      initialState: {
        state: 'open',
        openUntil: 1500,
        trips: 1,
        isolations: 0,
        policy: { kind: 'consecutive', failures: 0 },
      },
      onEvent: (e) => events.push(e),
    });
    assert.equal(clock.pending, 0);
    clock.advanceSync(600);
    assert.deepEqual(events, []);
    assert.equal(b.state, 'half-open');
  });
});

describe('a restored time window', () => {
  it('counts no bucket from ahead of its clock (a snapshot from a clock further on)', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 1000,
      buckets: 10,
      minimumCalls: 2,
      failureRate: 0.5,
    } as const;
    const later = new VirtualClock(50_300);
    const first = new CircuitBreaker({ policy, clock: later });
    const p = first.tryAcquire();
    if (p.kind === 'permit') p.failure();
    const earlier = new VirtualClock(0);
    const b = new CircuitBreaker({ policy, clock: earlier, initialState: first.toJSON() });
    const q = b.tryAcquire();
    if (q.kind === 'permit') q.failure();
    assert.equal(b.state, 'closed', 'one failure of its own: under minimumCalls');
  });
});

describe('breakerPolicy', () => {
  it("passes the caller's signal: an aborted one refuses before fn runs", async () => {
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    let ran = false;
    const fn = async () => {
      ran = true;
    };
    for (const policy of [breakerPolicy(new CircuitBreaker()), breakerPolicy(createBreakers())]) {
      await assert.rejects(policy.execute(fn, { signal: controller.signal }), /caller gave up/);
      assert.equal(ran, false);
    }
  });

  it('keyed breakers: no key is the key ""', async () => {
    const breakers = createBreakers();
    await breakerPolicy(breakers).execute(async () => 1);
    assert.deepEqual(Object.keys(breakers.states()), ['']);
  });
});
