// The breaker as its README and its option docs promise it, at the points a user relies on:
// which option a bad value names, what each event carries, that holds and listeners come off
// exactly once, what a snapshot restores, when a health probe runs and what ends it, when a call
// counts as slow, and the errors' codes and guards. Written from the docs, not from the code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { createBreakers } from './breakers.js';
import { CircuitBreaker, type CircuitBreakerOptions, type Permit } from './circuit-breaker.js';
import { systemClock } from './clock.js';
import {
  BreakerError,
  BrokenCircuitError,
  InvalidBreakerOptionError,
  isBreakerError,
  isBrokenCircuitError,
  isInvalidBreakerOptionError,
  isPermitSettledError,
  PermitSettledError,
} from './errors.js';
import type { BreakerEvent } from './state.js';

function setup(options: Partial<CircuitBreakerOptions> = {}) {
  const clock = new VirtualClock();
  const events: BreakerEvent[] = [];
  const breaker = new CircuitBreaker({
    policy: { kind: 'consecutive', threshold: 2 },
    openDuration: 1000,
    clock,
    onEvent: (e) => events.push(e),
    ...options,
  });
  return { clock, breaker, events };
}
const permit = (b: CircuitBreaker): Permit => {
  const p = b.tryAcquire();
  assert.equal(p.kind, 'permit', `a permit, got ${JSON.stringify(p.kind === 'rejected' ? p : 'permit')}`);
  return p as Permit;
};
const trip = (b: CircuitBreaker, n = 2) => {
  for (let i = 0; i < n; i++) permit(b).failure();
};
const changes = (events: BreakerEvent[]) =>
  events.flatMap((e) => (e.type === 'state-change' ? [`${e.from}->${e.to}:${e.reason}@${e.at}`] : []));
const flush = async () => {
  for (let i = 0; i < 5; i++) await Promise.resolve();
};

/** Asserts `make` throws an InvalidBreakerOptionError naming `option`, with a message saying what is wrong. */
function rejects(make: () => unknown, option: string, says: RegExp) {
  let thrown: unknown;
  try {
    make();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof InvalidBreakerOptionError, `${option}: threw ${String(thrown)}`);
  assert.equal(thrown.option, option);
  assert.equal(thrown.code, 'RXGATE_BREAKER_INVALID_OPTION');
  assert.equal(thrown.name, 'InvalidBreakerOptionError');
  assert.ok(thrown.message.startsWith(`${option}: `), thrown.message);
  assert.match(thrown.message, says);
  assert.ok(isInvalidBreakerOptionError(thrown) && isBreakerError(thrown));
}

describe('options: a bad value is named, with what is wrong and what came', () => {
  const make = (o: unknown) => () => new CircuitBreaker(o as CircuitBreakerOptions);
  const cases: [string, unknown, string, RegExp][] = [
    ['options null', null, 'options', /must be an object/],
    ['options a number', 5, 'options', /must be an object/],
    ['maxProbes 0', { maxProbes: 0 }, 'maxProbes', /must be a whole number >= 1, got 0$/],
    ['maxProbes 1.5', { maxProbes: 1.5 }, 'maxProbes', /got 1\.5$/],
    ['maxProbes "2"', { maxProbes: '2' }, 'maxProbes', /got "2"$/],
    ['successesToClose 0', { successesToClose: 0 }, 'successesToClose', /whole number >= 1, got 0/],
    ['openDuration 0', { openDuration: 0 }, 'openDuration', /must be a finite number > 0, got 0$/],
    ['openDuration -1', { openDuration: -1 }, 'openDuration', /got -1$/],
    ['openDuration Infinity', { openDuration: Number.POSITIVE_INFINITY }, 'openDuration', /got Infinity$/],
    ['openDuration NaN', { openDuration: Number.NaN }, 'openDuration', /got NaN$/],
    ['openDuration "1000"', { openDuration: '1000' }, 'openDuration', /must be a number or an object/],
    [
      'openDuration.initialMs 0',
      { openDuration: { initialMs: 0, maxMs: 10 } },
      'openDuration.initialMs',
      /> 0, got 0/,
    ],
    [
      'openDuration.maxMs missing',
      { openDuration: { initialMs: 10 } },
      'openDuration.maxMs',
      /got undefined/,
    ],
    [
      'openDuration.maxMs < initialMs',
      { openDuration: { initialMs: 10, maxMs: 9 } },
      'openDuration.maxMs',
      /must be >= initialMs/,
    ],
    [
      'openDuration.multiplier 0.5',
      { openDuration: { initialMs: 10, maxMs: 20, multiplier: 0.5 } },
      'openDuration.multiplier',
      /must be >= 1/,
    ],
    [
      'openDuration.multiplier 0',
      { openDuration: { initialMs: 10, maxMs: 20, multiplier: 0 } },
      'openDuration.multiplier',
      /> 0, got 0/,
    ],
    [
      'openDuration.jitter 1.5',
      { openDuration: { initialMs: 10, maxMs: 20, jitter: 1.5 } },
      'openDuration.jitter',
      /must be in \[0, 1\]/,
    ],
    [
      'openDuration.jitter -0.1',
      { openDuration: { initialMs: 10, maxMs: 20, jitter: -0.1 } },
      'openDuration.jitter',
      /must be a finite number >= 0, got -0\.1$/,
    ],
    ['healthProbe without run', { healthProbe: {} }, 'healthProbe.run', /must be a function/],
    [
      'healthProbe.timeoutMs 0',
      { healthProbe: { run: async () => {}, timeoutMs: 0 } },
      'healthProbe.timeoutMs',
      /> 0, got 0/,
    ],
    ['policy a string', { policy: 'consecutive' }, 'policy', /must be an object/],
    [
      'policy.kind unknown',
      { policy: { kind: 'sliding' } },
      'policy.kind',
      /"consecutive", "count-window" or "time-window"/,
    ],
    [
      'consecutive threshold 0',
      { policy: { kind: 'consecutive', threshold: 0 } },
      'policy.threshold',
      /got 0/,
    ],
    [
      'count-window size 0',
      { policy: { kind: 'count-window', size: 0, failureRate: 0.5 } },
      'policy.size',
      /got 0/,
    ],
    [
      'count-window minimumCalls 0',
      { policy: { kind: 'count-window', size: 5, minimumCalls: 0, failureRate: 0.5 } },
      'policy.minimumCalls',
      /got 0/,
    ],
    [
      'count-window without a rate',
      { policy: { kind: 'count-window', size: 5 } },
      'policy.failureRate',
      /needs failureRate, slowCall, or both/,
    ],
    [
      'count-window failureRate 0',
      { policy: { kind: 'count-window', size: 5, failureRate: 0 } },
      'policy.failureRate',
      /must be a rate in \(0, 1\], got 0$/,
    ],
    [
      'count-window failureRate 1.01',
      { policy: { kind: 'count-window', size: 5, failureRate: 1.01 } },
      'policy.failureRate',
      /got 1\.01$/,
    ],
    [
      'slowCall.thresholdMs -1',
      { policy: { kind: 'count-window', size: 5, slowCall: { thresholdMs: -1, rate: 0.5 } } },
      'policy.slowCall.thresholdMs',
      />= 0, got -1/,
    ],
    [
      'slowCall.rate 2',
      { policy: { kind: 'count-window', size: 5, slowCall: { thresholdMs: 10, rate: 2 } } },
      'policy.slowCall.rate',
      /rate in \(0, 1\], got 2/,
    ],
    [
      'time-window windowMs 0',
      { policy: { kind: 'time-window', windowMs: 0, minimumCalls: 1, failureRate: 0.5 } },
      'policy.windowMs',
      /got 0/,
    ],
    [
      'time-window minimumCalls 0',
      { policy: { kind: 'time-window', windowMs: 1000, minimumCalls: 0, failureRate: 0.5 } },
      'policy.minimumCalls',
      /got 0/,
    ],
    [
      'time-window buckets 0',
      { policy: { kind: 'time-window', windowMs: 1000, minimumCalls: 1, buckets: 0, failureRate: 0.5 } },
      'policy.buckets',
      /got 0/,
    ],
    [
      'time-window without a rate',
      { policy: { kind: 'time-window', windowMs: 1000, minimumCalls: 1 } },
      'policy.failureRate',
      /needs failureRate/,
    ],
    ['initialState null', { initialState: null }, 'options', /./],
    [
      'initialState of a bad state',
      { initialState: { state: 'half-open', trips: 0, isolations: 0, openUntil: 0 } },
      'initialState.state',
      /must be "closed", "open" or "isolated"/,
    ],
    ['initialState a string', { initialState: 'open' }, 'initialState.state', /must be/],
    [
      'initialState.trips -1',
      {
        initialState: {
          state: 'closed',
          trips: -1,
          isolations: 0,
          openUntil: 0,
          policy: { kind: 'consecutive', failures: 0 },
        },
      },
      'initialState.trips',
      />= 0, got -1/,
    ],
  ];
  for (const [name, options, option, says] of cases) {
    if (name === 'initialState null') continue; // a null initialState is no state (falsy): see below
    it(name, () => rejects(make(options), option, says));
  }

  it('a null initialState means none', () => {
    assert.equal(new CircuitBreaker({ initialState: null as never }).state, 'closed');
  });

  it('values at the edge of their range are accepted', () => {
    const ok: CircuitBreakerOptions[] = [
      { maxProbes: 1, successesToClose: 1 },
      { openDuration: { initialMs: 10, maxMs: 10, multiplier: 1, jitter: 0 } },
      { openDuration: { initialMs: 10, maxMs: 20, jitter: 1 } },
      { policy: { kind: 'count-window', size: 1, minimumCalls: 1, failureRate: 1 } },
      { policy: { kind: 'count-window', size: 3, slowCall: { thresholdMs: 0, rate: 1 } } },
      { policy: { kind: 'time-window', windowMs: 1, minimumCalls: 1, buckets: 1, failureRate: 0.01 } },
      { healthProbe: { run: async () => {}, timeoutMs: 1 } },
    ];
    for (const o of ok) assert.doesNotThrow(() => new CircuitBreaker(o), JSON.stringify(o));
  });

  it('keyed breakers fail on a bad default or override when created, naming it', () => {
    rejects(() => createBreakers({ defaults: { maxProbes: 0 } }), 'maxProbes', /got 0/);
    rejects(
      () =>
        createBreakers({
          overrides: { 'primary:specialty': { policy: { kind: 'consecutive', threshold: 0 } } },
        }),
      'policy.threshold',
      /got 0/,
    );
  });
});

describe('execute judges errors: aborts are ignored, anything else is a failure', () => {
  const named = (name: string) => Object.assign(new Error('x'), { name });
  const cases: [string, unknown, 'closed' | 'open'][] = [
    ['an AbortError', named('AbortError'), 'closed'],
    ['a TimeoutError', named('TimeoutError'), 'closed'],
    ['a DOMException abort', new DOMException('aborted', 'AbortError'), 'closed'],
    ['a TypeError', new TypeError('x'), 'open'],
    ['an error named Abort', named('Abort'), 'open'],
    ['a plain object named AbortError (not an Error)', { name: 'AbortError' }, 'open'],
    ['a string', 'AbortError', 'open'],
  ];
  for (const [name, error, after] of cases)
    it(`${name} twice: the breaker is ${after}`, async () => {
      const { breaker } = setup();
      for (let i = 0; i < 2; i++)
        await assert.rejects(
          breaker.execute(() => Promise.reject(error)),
          (e) => e === error,
        );
      assert.equal(breaker.state, after);
    });

  it('a synchronous throw is judged the same way, and rethrown', async () => {
    const { breaker } = setup();
    const boom = new TypeError('boom');
    for (let i = 0; i < 2; i++)
      await assert.rejects(
        breaker.execute(() => {
          throw boom;
        }),
        (e) => e === boom,
      );
    assert.equal(breaker.state, 'open');
    const refused = await breaker.execute(async () => 1).catch((e: unknown) => e);
    assert.ok(refused instanceof BrokenCircuitError);
    assert.equal(refused.state, 'open');
    assert.equal(refused.retryAfterMs, 1000);
  });
});

describe('events and listeners', () => {
  it('a rejection is an event with the state and the time until the next probe', () => {
    const { breaker, events, clock } = setup();
    trip(breaker);
    clock.advanceSync(400);
    const r = breaker.tryAcquire();
    assert.deepEqual(r, { kind: 'rejected', state: 'open', retryAfterMs: 600 });
    assert.deepEqual(events.at(-1), { type: 'rejected', state: 'open', retryAfterMs: 600 });
  });

  it('a probe is an event when it starts and when it finishes, with its outcome', () => {
    const { breaker, events, clock } = setup({ successesToClose: 2, maxProbes: 2 });
    trip(breaker);
    clock.advanceSync(1000);
    const from = events.length;
    const a = permit(breaker);
    assert.equal(a.probe, true);
    a.ignore();
    permit(breaker).success();
    const c = permit(breaker);
    c.failure();
    assert.deepEqual(events.slice(from), [
      { type: 'state-change', from: 'open', to: 'half-open', reason: 'open-elapsed', at: 1000 },
      { type: 'probe-started', health: false },
      { type: 'probe-finished', health: false, outcome: 'ignore' },
      { type: 'probe-started', health: false },
      { type: 'probe-finished', health: false, outcome: 'success' },
      { type: 'probe-started', health: false },
      { type: 'probe-finished', health: false, outcome: 'failure' },
      { type: 'state-change', from: 'half-open', to: 'open', reason: 'probe-failed', at: 1000 },
    ]);
  });

  it('a probe that finishes after the state moved on is still reported, and changes nothing', () => {
    const { breaker, events, clock } = setup();
    trip(breaker);
    clock.advanceSync(1000);
    const late = permit(breaker);
    breaker.reset();
    const from = events.length;
    late.failure();
    assert.deepEqual(events.slice(from), [{ type: 'probe-finished', health: false, outcome: 'failure' }]);
    assert.equal(breaker.state, 'closed');
    const lateClosed = permit(breaker);
    trip(breaker);
    lateClosed.success();
    assert.equal(breaker.state, 'open', 'a closed-state call settled after the trip does not close it');
    assert.deepEqual(events.slice(-1)[0]?.type, 'state-change', 'and is no probe event');
  });

  it('on() returns an unsubscribe that removes that listener only, once', () => {
    const breaker = new CircuitBreaker({ clock: new VirtualClock() });
    const seen: string[] = [];
    const offA = breaker.on(() => seen.push('a'));
    const offB = breaker.on(() => seen.push('b'));
    breaker.on(() => seen.push('c'));
    offA();
    offA();
    breaker.reset();
    assert.deepEqual(seen, ['b', 'c']);
    offB();
    breaker.reset();
    assert.deepEqual(seen, ['b', 'c', 'c']);
  });

  it('the first listener added can be removed', () => {
    const breaker = new CircuitBreaker({ clock: new VirtualClock() });
    const seen: BreakerEvent[] = [];
    const off = breaker.on((e) => seen.push(e));
    off();
    breaker.reset();
    assert.equal(seen.length, 0);
  });
});

describe('retryAfterMs and state', () => {
  it('0 when closed or half-open, the time left when open, never negative, Infinity isolated', () => {
    const { breaker, clock } = setup();
    assert.equal(breaker.retryAfterMs, 0);
    trip(breaker);
    assert.equal(breaker.retryAfterMs, 1000);
    clock.advanceSync(250);
    assert.equal(breaker.retryAfterMs, 750);
    clock.advanceSync(2000);
    assert.equal(breaker.retryAfterMs, 0, 'past its open duration, not negative');
    assert.equal(breaker.state, 'half-open');
    assert.equal(breaker.retryAfterMs, 0);
    const hold = breaker.isolate();
    assert.equal(breaker.retryAfterMs, Number.POSITIVE_INFINITY);
    hold.release();
    assert.equal(breaker.retryAfterMs, 0);
  });

  it('a breaker without a health probe arms no timer: nothing runs until it is asked', () => {
    let timers = 0;
    const clock = new VirtualClock();
    const counting = {
      now: () => clock.now(),
      setTimer: (ms: number, fn: () => void) => {
        timers++;
        return clock.setTimer(ms, fn);
      },
    };
    const events: BreakerEvent[] = [];
    const breaker = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 1 },
      openDuration: 100,
      clock: counting,
      onEvent: (e) => events.push(e),
    });
    permit(breaker).failure();
    clock.advanceSync(500);
    assert.equal(timers, 0);
    assert.deepEqual(changes(events), ['closed->open:failure-policy@0']);
    assert.equal(breaker.state, 'half-open');
    assert.deepEqual(changes(events), ['closed->open:failure-policy@0', 'open->half-open:open-elapsed@500']);
  });

  it('a probe slower than the slow-call threshold fails; one exactly at it does not', () => {
    const policy = {
      kind: 'count-window',
      size: 2,
      failureRate: 1,
      slowCall: { thresholdMs: 50, rate: 1 },
    } as const;
    for (const [ms, after] of [
      [50, 'closed'],
      [51, 'open'],
    ] as const) {
      const { breaker, clock } = setup({ policy });
      trip(breaker, 2);
      clock.advanceSync(1000);
      const p = permit(breaker);
      clock.advanceSync(ms);
      p.success();
      assert.equal(breaker.state, after, `a probe of ${ms} ms`);
    }
  });

  it('a closed call exactly at the slow threshold is not slow; one past it is', () => {
    const policy = { kind: 'count-window', size: 2, slowCall: { thresholdMs: 50, rate: 1 } } as const;
    for (const [ms, after] of [
      [50, 'closed'],
      [51, 'open'],
    ] as const) {
      const { breaker, clock } = setup({ policy });
      clock.advanceSync(10_000);
      for (let i = 0; i < 2; i++) {
        const p = permit(breaker);
        clock.advanceSync(ms);
        p.success();
      }
      assert.equal(breaker.state, after, `two calls of ${ms} ms`);
    }
  });

  it('a time-window slow call is judged by its duration, not by when it ended', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 10_000,
      minimumCalls: 2,
      slowCall: { thresholdMs: 100, rate: 1 },
    } as const;
    const { breaker, clock } = setup({ policy });
    clock.advanceSync(50_000);
    for (let i = 0; i < 3; i++) {
      const p = permit(breaker);
      clock.advanceSync(10);
      p.success();
    }
    assert.equal(breaker.state, 'closed', 'fast calls late in the clock are not slow');
  });
});

describe('isolation and reset', () => {
  it('isolates once however many holds, closes when the last is released, each hold counts once', () => {
    const { breaker, events } = setup();
    const a = breaker.isolate();
    const b = breaker.isolate();
    assert.deepEqual(changes(events), ['closed->isolated:isolated@0']);
    a.release();
    a.release();
    assert.equal(breaker.state, 'isolated', 'a released twice does not release b');
    b.release();
    assert.deepEqual(changes(events), ['closed->isolated:isolated@0', 'isolated->closed:isolation-ended@0']);
    const refused = breaker.isolate();
    assert.deepEqual(breaker.tryAcquire(), {
      kind: 'rejected',
      state: 'isolated',
      retryAfterMs: Number.POSITIVE_INFINITY,
    });
    refused.release();
  });

  it('reset forgets holds: an earlier hold released after it releases nothing', () => {
    const { breaker, events } = setup();
    const old = breaker.isolate();
    breaker.reset();
    const fresh = breaker.isolate();
    old.release();
    assert.equal(breaker.state, 'isolated', 'the hold from before the reset does not end the new one');
    fresh.release();
    assert.equal(breaker.state, 'closed');
    assert.deepEqual(changes(events), [
      'closed->isolated:isolated@0',
      'isolated->closed:reset@0',
      'closed->isolated:isolated@0',
      'isolated->closed:isolation-ended@0',
    ]);
  });

  it('reset twice, then a hold from between them', () => {
    const { breaker } = setup();
    breaker.reset();
    const h = breaker.isolate();
    breaker.reset();
    breaker.reset();
    const h2 = breaker.isolate();
    h.release();
    assert.equal(breaker.state, 'isolated');
    h2.release();
    assert.equal(breaker.state, 'closed');
  });
});

describe('toJSON and initialState', () => {
  it('half-open is saved as open until now; open keeps its end; closed and isolated as they are', () => {
    const { breaker, clock } = setup();
    assert.deepEqual(breaker.toJSON(), {
      state: 'closed',
      openUntil: 0,
      trips: 0,
      isolations: 0,
      policy: { kind: 'consecutive', failures: 0 },
    });
    permit(breaker).failure();
    assert.deepEqual(breaker.toJSON().policy, { kind: 'consecutive', failures: 1 });
    permit(breaker).failure();
    const { policy: _, ...open } = breaker.toJSON();
    assert.deepEqual(open, { state: 'open', openUntil: 1000, trips: 1, isolations: 0 });
    clock.advanceSync(1500);
    const saved = breaker.toJSON();
    assert.equal(saved.state, 'open');
    assert.equal(saved.openUntil, 1500);
    const h = breaker.isolate();
    assert.equal(breaker.toJSON().state, 'isolated');
    assert.equal(breaker.toJSON().isolations, 1);
    h.release();
  });

  it('an isolated snapshot restores isolated until reset; one with no holds restores closed', () => {
    const isolated = new CircuitBreaker({
      clock: new VirtualClock(),
      initialState: {
        state: 'isolated',
        openUntil: 0,
        trips: 0,
        isolations: 2,
        policy: { kind: 'consecutive', failures: 0 },
      },
    });
    assert.equal(isolated.state, 'isolated');
    assert.equal(isolated.toJSON().isolations, 2);
    assert.equal(isolated.retryAfterMs, Number.POSITIVE_INFINITY);
    isolated.reset();
    assert.equal(isolated.state, 'closed');
    const none = new CircuitBreaker({
      clock: new VirtualClock(),
      initialState: {
        state: 'isolated',
        openUntil: 0,
        trips: 0,
        isolations: 0,
        policy: { kind: 'consecutive', failures: 0 },
      },
    });
    assert.equal(none.state, 'closed');
    const closed = new CircuitBreaker({
      clock: new VirtualClock(),
      initialState: {
        state: 'closed',
        openUntil: 0,
        trips: 3,
        isolations: 5,
        policy: { kind: 'consecutive', failures: 0 },
      },
    });
    assert.equal(closed.state, 'closed', 'isolations count only on an isolated snapshot');
    assert.equal(closed.toJSON().isolations, 0);
  });

  it('a restored open breaker with a health probe sends it when its open time ends, not before', async () => {
    const clock = new VirtualClock(5000);
    let probes = 0;
    const breaker = new CircuitBreaker({
      clock,
      healthProbe: { run: async () => void probes++ },
      initialState: {
        state: 'open',
        openUntil: 5800,
        trips: 1,
        isolations: 0,
        policy: { kind: 'consecutive', failures: 0 },
      },
    });
    await clock.advance(799);
    assert.equal(probes, 0);
    assert.equal(breaker.state, 'open');
    await clock.advance(1);
    await flush();
    assert.equal(probes, 1);
    assert.equal(breaker.state, 'closed');
  });

  it('a restored open breaker whose time has passed probes at once', async () => {
    const clock = new VirtualClock(9000);
    let probes = 0;
    new CircuitBreaker({
      clock,
      healthProbe: { run: async () => void probes++ },
      initialState: {
        state: 'open',
        openUntil: 5800,
        trips: 1,
        isolations: 0,
        policy: { kind: 'consecutive', failures: 0 },
      },
    });
    await clock.advance(0);
    await flush();
    assert.equal(probes, 1);
  });

  it('a count-window state restores its calls: the next failure trips it as it would have', () => {
    const policy = {
      kind: 'count-window',
      size: 4,
      minimumCalls: 4,
      failureRate: 0.5,
      slowCall: { thresholdMs: 100, rate: 0.5 },
    } as const;
    const { breaker, clock } = setup({ policy });
    permit(breaker).failure();
    for (let i = 0; i < 2; i++) {
      const slow = permit(breaker);
      clock.advanceSync(200);
      slow.success();
    }
    const saved = breaker.toJSON();
    assert.equal(saved.policy.kind, 'count-window');
    const restored = new CircuitBreaker({ policy, clock, initialState: saved });
    assert.deepEqual(restored.toJSON(), saved);
    permit(restored).success();
    assert.equal(restored.state, 'open', '2 of 4 slow: the window trips on its restored slow calls');
    // A snapshot of another size or kind is dropped: a fresh window.
    const other = new CircuitBreaker({
      policy: { ...policy, size: 5, minimumCalls: 1 },
      clock,
      initialState: saved,
    });
    permit(other).success();
    assert.equal(other.state, 'closed');
    const kind = new CircuitBreaker({
      policy,
      clock,
      initialState: { ...saved, policy: { kind: 'consecutive', failures: 9 } },
    });
    assert.equal(kind.toJSON().policy.kind, 'count-window');
    permit(kind).success();
    assert.equal(kind.state, 'closed');
  });

  it('a count window that wrapped restores the calls still in it', () => {
    const policy = {
      kind: 'count-window',
      size: 3,
      minimumCalls: 3,
      failureRate: 0.6,
      slowCall: { thresholdMs: 100, rate: 0.6 },
    } as const;
    const { breaker, clock } = setup({ policy });
    permit(breaker).failure();
    permit(breaker).success();
    permit(breaker).success();
    const slow = permit(breaker); // pushes the failure out
    clock.advanceSync(200);
    slow.success();
    const saved = breaker.toJSON();
    const restored = new CircuitBreaker({ policy, clock, initialState: saved });
    permit(restored).failure(); // success, slow, failure: 1/3 failed, 1/3 slow
    assert.equal(restored.state, 'closed');
    permit(restored).failure(); // slow, failure, failure: 2/3 failed
    assert.equal(restored.state, 'open');
  });

  it('a time-window state restores its buckets; another bucket count is dropped', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 1000,
      minimumCalls: 3,
      buckets: 4,
      failureRate: 0.6,
    } as const;
    const { breaker, clock } = setup({ policy });
    clock.advanceSync(10_000);
    permit(breaker).failure();
    permit(breaker).failure();
    const saved = breaker.toJSON();
    assert.equal(saved.policy.kind, 'time-window');
    const restored = new CircuitBreaker({ policy, clock, initialState: JSON.parse(JSON.stringify(saved)) });
    assert.deepEqual(JSON.parse(JSON.stringify(restored.toJSON())), JSON.parse(JSON.stringify(saved)));
    permit(restored).success();
    assert.equal(restored.state, 'open', '2 of 3 in the window failed');
    const other = new CircuitBreaker({ policy: { ...policy, buckets: 5 }, clock, initialState: saved });
    permit(other).success();
    assert.equal(other.state, 'closed');
    const kind = new CircuitBreaker({
      policy,
      clock,
      initialState: { ...saved, policy: { kind: 'consecutive', failures: 1 } },
    });
    permit(kind).success();
    assert.equal(kind.state, 'closed');
  });

  it('a consecutive state restores its run; another kind is dropped', () => {
    const policy = { kind: 'consecutive', threshold: 3 } as const;
    const clock = new VirtualClock();
    const b = new CircuitBreaker({
      policy,
      clock,
      initialState: {
        state: 'closed',
        openUntil: 0,
        trips: 0,
        isolations: 0,
        policy: { kind: 'consecutive', failures: 2 },
      },
    });
    permit(b).failure();
    assert.equal(b.state, 'open');
    const c = new CircuitBreaker({
      policy,
      clock,
      initialState: {
        state: 'closed',
        openUntil: 0,
        trips: 0,
        isolations: 0,
        policy: { kind: 'count-window', ring: [1, 1], next: 0, filled: 2 },
      },
    });
    permit(c).failure();
    assert.equal(c.state, 'closed');
    assert.deepEqual(c.toJSON().policy, { kind: 'consecutive', failures: 1 });
  });
});

describe('time window', () => {
  it('counts calls of the last windowMs only, bucket by bucket', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 1000,
      minimumCalls: 2,
      buckets: 4,
      failureRate: 1,
    } as const;
    const { breaker, clock } = setup({ policy });
    clock.advanceSync(100_000);
    permit(breaker).failure();
    clock.advanceSync(1000); // the first failure's bucket is out of the window
    permit(breaker).failure();
    assert.equal(breaker.state, 'closed');
    clock.advanceSync(740);
    permit(breaker).failure();
    assert.equal(breaker.state, 'open', 'both failures within the window');
  });

  it('buckets default to 10', () => {
    const policy = { kind: 'time-window', windowMs: 1000, minimumCalls: 2, failureRate: 1 } as const;
    const { breaker, clock } = setup({ policy });
    clock.advanceSync(100_000);
    permit(breaker).failure();
    clock.advanceSync(950); // with 10 buckets of 100 ms the first is still in; with fewer it would be too
    permit(breaker).failure();
    assert.equal(breaker.state, 'open');
    const s = breaker.toJSON().policy;
    assert.equal(s.kind === 'time-window' ? s.buckets.length : -1, 10);
  });

  it('a slow failure counts once as a call, once as failed and once as slow', () => {
    const policy = {
      kind: 'time-window',
      windowMs: 1000,
      minimumCalls: 2,
      buckets: 2,
      slowCall: { thresholdMs: 10, rate: 1 },
    } as const;
    const { breaker, clock } = setup({ policy });
    clock.advanceSync(5000);
    const a = permit(breaker);
    clock.advanceSync(11);
    a.failure();
    const b = permit(breaker);
    clock.advanceSync(1);
    b.failure();
    assert.equal(breaker.state, 'closed', '1 of 2 slow is under a rate of 1');
  });
});

describe('health probe', () => {
  function healthy(
    run: (signal: AbortSignal) => Promise<unknown>,
    extra: Partial<CircuitBreakerOptions> = {},
  ) {
    return setup({ healthProbe: { run, timeoutMs: 300 }, ...extra });
  }

  it('a probe resolving false fails; any other value succeeds', async () => {
    for (const [value, after] of [
      [false, 'open'],
      [0, 'closed'],
      [undefined, 'closed'],
      [null, 'closed'],
    ] as const) {
      const { breaker, clock } = healthy(async () => value);
      trip(breaker);
      await clock.advance(1000);
      await flush();
      assert.equal(breaker.state, after, `resolved ${String(value)}`);
    }
  });

  it('events say health: true, and its outcome', async () => {
    const { breaker, clock, events } = healthy(async () => false);
    trip(breaker);
    const from = events.length;
    await clock.advance(1000);
    await flush();
    assert.deepEqual(events.slice(from), [
      { type: 'state-change', from: 'open', to: 'half-open', reason: 'open-elapsed', at: 1000 },
      { type: 'probe-started', health: true },
      { type: 'probe-finished', health: true, outcome: 'failure' },
      { type: 'state-change', from: 'half-open', to: 'open', reason: 'health-probe-failed', at: 1000 },
    ]);
  });

  it('a probe that throws at once fails', async () => {
    const { breaker, clock, events } = healthy(() => {
      throw new Error('no route');
    });
    trip(breaker);
    await clock.advance(1000);
    assert.equal(breaker.state, 'open');
    assert.deepEqual(changes(events).at(-1), 'half-open->open:health-probe-failed@1000');
    assert.equal(events.filter((e) => e.type === 'probe-finished').length, 1);
  });

  it('a probe past its timeout fails and is aborted; its late answer changes nothing', async () => {
    let signal: AbortSignal | undefined;
    let answer: (v: unknown) => void = () => {};
    const { breaker, clock, events } = healthy(
      (s) =>
        new Promise((resolve) => {
          signal = s;
          answer = resolve;
        }),
    );
    trip(breaker);
    await clock.advance(1000);
    assert.equal(signal?.aborted, false);
    await clock.advance(299);
    assert.equal(breaker.state, 'half-open');
    await clock.advance(1);
    assert.equal(signal?.aborted, true, 'the timed-out probe is aborted');
    assert.equal(breaker.state, 'open');
    const finished = events.filter((e) => e.type === 'probe-finished');
    answer(true);
    await flush();
    assert.equal(events.filter((e) => e.type === 'probe-finished').length, finished.length, 'reported once');
    assert.equal(breaker.state, 'open');
  });

  it('a successful probe is not aborted', async () => {
    let signal: AbortSignal | undefined;
    const { breaker, clock } = healthy(async (s) => {
      signal = s;
      return true;
    });
    trip(breaker);
    await clock.advance(1000);
    await flush();
    assert.equal(breaker.state, 'closed');
    assert.equal(signal?.aborted, false);
  });

  it('with successesToClose 3, probes follow one another until the third closes it', async () => {
    let probes = 0;
    const { breaker, clock } = healthy(async () => void probes++, { successesToClose: 3 });
    trip(breaker);
    await clock.advance(1000);
    await flush();
    await flush();
    assert.equal(probes, 3);
    assert.equal(breaker.state, 'closed');
    await clock.advance(10_000);
    assert.equal(probes, 3, 'no probe once closed');
  });

  it('half-open with a health probe admits no live call', async () => {
    const { breaker, clock } = healthy(() => new Promise(() => {}));
    trip(breaker);
    await clock.advance(1000);
    assert.deepEqual(breaker.tryAcquire(), { kind: 'rejected', state: 'half-open', retryAfterMs: 0 });
  });

  it('a probe answering after a reset changes nothing and sends no next probe', async () => {
    let probes = 0;
    let answer: (v: unknown) => void = () => {};
    const { breaker, clock } = healthy(
      () =>
        new Promise((resolve) => {
          probes++;
          answer = resolve;
        }),
      { successesToClose: 2 },
    );
    trip(breaker);
    await clock.advance(1000);
    breaker.reset();
    trip(breaker);
    answer(true);
    await flush();
    assert.equal(probes, 1);
    assert.equal(breaker.state, 'open', 'the old probe did not close the new trip');
    await clock.advance(299);
    assert.equal(breaker.state, 'open', 'nor did its timeout re-open it');
  });

  it('a probe answering after the breaker was isolated changes nothing', async () => {
    let answer: (v: unknown) => void = () => {};
    const { breaker, clock } = healthy(() => new Promise((resolve) => (answer = resolve)));
    trip(breaker);
    await clock.advance(1000);
    const hold = breaker.isolate();
    answer(true);
    await flush();
    assert.equal(breaker.state, 'isolated');
    hold.release();
  });
});

describe('keyed breakers', () => {
  it('each key its own breaker, overrides merged over defaults, events with their key', () => {
    const clock = new VirtualClock();
    const events: [string, string][] = [];
    const breakers = createBreakers({
      defaults: { policy: { kind: 'consecutive', threshold: 3 }, openDuration: 500 },
      overrides: { 'primary:specialty': { policy: { kind: 'consecutive', threshold: 1 } } },
      clock,
      random: () => 0.5,
      onEvent: (key, e) => events.push([key, e.type === 'state-change' ? `${e.from}->${e.to}` : e.type]),
    });
    assert.equal(breakers.size, 0, 'the validation breakers are not kept');
    const p = breakers.tryAcquire('primary:specialty');
    assert.equal(p.kind, 'permit');
    (p as Permit).failure();
    assert.equal(breakers.get('primary:specialty').state, 'open');
    assert.equal(breakers.get('primary:specialty').retryAfterMs, 500, 'the default open duration');
    (breakers.tryAcquire('primary:retail') as Permit).failure();
    assert.deepEqual(breakers.states(), { 'primary:specialty': 'open', 'primary:retail': 'closed' });
    assert.equal(breakers.size, 2);
    assert.equal(
      breakers.get('primary:retail'),
      breakers.get('primary:retail'),
      'the same breaker each time',
    );
    assert.deepEqual(events, [['primary:specialty', 'closed->open']]);
    assert.deepEqual(Object.keys(breakers.toJSON()), ['primary:specialty', 'primary:retail']);
    assert.equal(breakers.toJSON()['primary:specialty']?.state, 'open');
    assert.deepEqual(breakers.toJSON()['primary:retail']?.policy, { kind: 'consecutive', failures: 1 });
  });

  it('execute runs under the key’s breaker', async () => {
    const breakers = createBreakers({
      defaults: { policy: { kind: 'consecutive', threshold: 1 } },
      clock: new VirtualClock(),
    });
    assert.equal(await breakers.execute('a', async () => 7), 7);
    await assert.rejects(breakers.execute('a', async () => Promise.reject(new Error('x'))));
    await assert.rejects(
      breakers.execute('a', async () => 7),
      isBrokenCircuitError,
    );
    assert.equal(await breakers.execute('b', async () => 8), 8);
  });

  it('initial states are restored by key, and use the shared clock and random source', () => {
    const clock = new VirtualClock(100);
    const breakers = createBreakers({
      defaults: { openDuration: { initialMs: 1000, maxMs: 8000, jitter: 0.5 } },
      clock,
      random: () => 1,
      initialStates: {
        'secondary:retail': {
          state: 'open',
          openUntil: 700,
          trips: 1,
          isolations: 0,
          policy: { kind: 'consecutive', failures: 0 },
        },
      },
    });
    assert.equal(breakers.size, 1, 'a restored key exists from the start');
    assert.equal(breakers.get('secondary:retail').retryAfterMs, 600, 'on the shared clock');
    const b = breakers.get('other');
    for (let i = 0; i < 5; i++) (b.tryAcquire() as Permit).failure();
    assert.equal(b.retryAfterMs, 500, 'jitter 0.5 with random() = 1 takes half off');
  });

  it('with no options at all: the system clock, the defaults', () => {
    const breakers = createBreakers();
    const b = breakers.get('k');
    for (let i = 0; i < 4; i++) (b.tryAcquire() as Permit).failure();
    assert.equal(b.state, 'closed', 'threshold 5 by default');
    (b.tryAcquire() as Permit).failure();
    assert.equal(b.state, 'open');
    assert.ok(
      b.retryAfterMs > 7000 && b.retryAfterMs <= 10_000,
      `default 10 s less at most 20 % jitter: ${b.retryAfterMs}`,
    );
  });
});

describe('the system clock', () => {
  it('reads epoch milliseconds', () => {
    const t = systemClock.now();
    assert.ok(Math.abs(t - Date.now()) < 1000, `${t} vs ${Date.now()}`);
  });

  it('fires a timer, a negative delay at once, and cancels one', async () => {
    const order: string[] = [];
    // The clock's timers are unref'd: a ref'd one keeps this test's event loop alive meanwhile.
    const keepAlive = setTimeout(() => {}, 10_000);
    await new Promise<void>((resolve) => {
      systemClock.setTimer(-5, () => order.push('negative'));
      const cancelled = systemClock.setTimer(1, () => order.push('cancelled'));
      cancelled.cancel();
      systemClock.setTimer(5, () => {
        order.push('five');
        resolve();
      });
    });
    clearTimeout(keepAlive);
    assert.deepEqual(order, ['negative', 'five']);
  });

  it('a delay past the 32-bit timer limit still waits (it is not fired at once)', async () => {
    let fired = false;
    const t = systemClock.setTimer(2 ** 33, () => {
      fired = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    t.cancel();
    assert.equal(fired, false);
  });

  it('its timers do not keep the process alive once unref’d (the breaker unrefs its own)', () => {
    const handles: { hasRef(): boolean }[] = [];
    const original = globalThis.setTimeout;
    globalThis.setTimeout = ((fn: () => void, ms: number) => {
      const h = original(fn, ms);
      handles.push(h);
      return h;
    }) as typeof setTimeout;
    try {
      const h = systemClock.setTimer(10_000, () => {});
      h.unref?.();
      h.cancel();
    } finally {
      globalThis.setTimeout = original;
    }
    assert.equal(handles.length, 1);
    assert.equal(handles[0]?.hasRef(), false);
  });
});

describe('errors: codes, names, messages and guards', () => {
  it('an open breaker says when its next probe is, rounded up', () => {
    const e = new BrokenCircuitError('open', 1234.2);
    assert.equal(e.message, 'circuit open: next probe in 1235 ms');
    assert.equal(e.name, 'BrokenCircuitError');
    assert.equal(e.code, 'RXGATE_BREAKER_OPEN');
    assert.equal(e.state, 'open');
    assert.equal(e.retryAfterMs, 1234.2);
    assert.equal(new BrokenCircuitError('half-open', 0).message, 'circuit half-open: next probe in 0 ms');
    assert.equal(
      new BrokenCircuitError('open', Number.POSITIVE_INFINITY).message,
      'circuit open: next probe in ∞ ms',
    );
    assert.equal(
      new BrokenCircuitError('isolated', Number.POSITIVE_INFINITY).message,
      'circuit isolated by hand',
    );
  });

  it('a second settle is PermitSettledError', () => {
    const e = new PermitSettledError();
    assert.equal(e.code, 'RXGATE_BREAKER_PERMIT_SETTLED');
    assert.equal(e.name, 'PermitSettledError');
    assert.equal(e.message, 'this permit was already settled');
    assert.ok(e instanceof BreakerError && e instanceof Error);
  });

  it('each guard accepts its own error and no other', () => {
    const open = new BrokenCircuitError('open', 1);
    const invalid = new InvalidBreakerOptionError('maxProbes', 'bad');
    const settled = new PermitSettledError();
    const base = new BreakerError('RXGATE_BREAKER_OPEN', 'x');
    assert.equal(base.name, 'BreakerError');
    const table: [unknown, boolean, boolean, boolean, boolean][] = [
      [open, true, true, false, false],
      [invalid, true, false, true, false],
      [settled, true, false, false, true],
      [new Error('circuit open'), false, false, false, false],
      [Object.assign(new Error('x'), { code: 'RXGATE_BREAKER_OPEN' }), false, false, false, false],
      [{ code: 'RXGATE_BREAKER_OPEN' }, false, false, false, false],
      [null, false, false, false, false],
      [undefined, false, false, false, false],
      ['RXGATE_BREAKER_OPEN', false, false, false, false],
      [42, false, false, false, false],
    ];
    for (const [e, any, isOpen, isInvalid, isSettled] of table) {
      const what = e instanceof Error ? e.message : String(e);
      assert.equal(isBreakerError(e), any, `isBreakerError(${what})`);
      assert.equal(isBrokenCircuitError(e), isOpen, `isBrokenCircuitError(${what})`);
      assert.equal(isInvalidBreakerOptionError(e), isInvalid, `isInvalidBreakerOptionError(${what})`);
      assert.equal(isPermitSettledError(e), isSettled, `isPermitSettledError(${what})`);
    }
  });

  it('the guards work across copies of the package (a brand from Symbol.for, not instanceof)', () => {
    const copy = Object.create(null) as Record<PropertyKey, unknown>;
    copy[Symbol.for('@rxgate/breaker/error')] = true;
    copy.code = 'RXGATE_BREAKER_OPEN';
    assert.equal(isBreakerError(copy), true);
    assert.equal(isBrokenCircuitError(copy), true);
    assert.equal(isPermitSettledError(copy), false);
    const errorWithCause = new BreakerError('RXGATE_BREAKER_OPEN', 'x', { cause: 'why' });
    assert.equal(errorWithCause.cause, 'why');
  });
});
