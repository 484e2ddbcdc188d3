import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import {
  jitterMargin,
  MARGIN_BACK_MS,
  MARGIN_FLOOR,
  MARGIN_PAIR_MS,
  MARGIN_STEP,
  steadyThrottle,
} from './jitter-margin.js';
import { createLimiter } from './limiter.js';

describe('steadyThrottle (a throttle at a steady pace under the advertised rate)', () => {
  const base = {
    throttled: true,
    now: 20_000,
    windowMs: 1000,
    steadySince: 10_000,
    pausedTill: Number.NEGATIVE_INFINITY,
    lastAt: Number.NEGATIVE_INFINITY,
    ratePerSecond: 19.8,
    underPerSecond: 19.8,
  };
  const table: ReadonlyArray<[string, Partial<typeof base>, boolean]> = [
    ['steady for 10 s at the share aimed at: yes', {}, true],
    ['not a throttle: no', { throttled: false }, false],
    ['steady for less than 5 s: no', { steadySince: 15_001 }, false],
    ['steady for exactly 5 s: yes', { steadySince: 15_000 }, true],
    ['a 2 s window: five windows, 10 s', { windowMs: 2000, steadySince: 10_001 }, false],
    ['a 2 s window steady for 10 s: yes', { windowMs: 2000, steadySince: 10_000 }, true],
    ['a pause that ended less than a window ago: no', { pausedTill: 19_001 }, false],
    ['a pause that ended a window ago (it gave nothing back at its end): yes', { pausedTill: 19_000 }, true],
    ['the second of one window (a throttle that did not pause): no', { lastAt: 19_200 }, false],
    ['a window after the last: yes', { lastAt: 19_000 }, true],
    [
      'the rate in force above the advertised rate (the quota just lowered): no',
      { ratePerSecond: 25 },
      false,
    ],
    ['under it (a lower configured or learned share): yes', { ratePerSecond: 19.2 }, true],
  ];
  for (const [label, change, want] of table) {
    it(label, () => assert.equal(steadyThrottle({ ...base, ...change }), want));
  }
});

describe('jitterMargin (the share of the advertised rate aimed at, learned from throttles)', () => {
  const NEVER = Number.NEGATIVE_INFINITY;
  type State = { share: number; movedAt: number; lastAt: number };
  type Input = State & { lastThrottleAt: number; now: number; throttled: boolean; throttledUnder: boolean };
  const under = { throttled: true, throttledUnder: true };
  const quiet = { throttled: false, throttledUnder: false };
  const table: ReadonlyArray<[string, Input, State]> = [
    [
      'a first throttle at a steady pace: armed, no step',
      { share: 0.99, movedAt: NEVER, lastAt: NEVER, lastThrottleAt: NEVER, now: 5000, ...under },
      { share: 0.99, movedAt: NEVER, lastAt: 5000 },
    ],
    [
      'a second within MARGIN_PAIR_MS: a step down',
      {
        share: 0.99,
        movedAt: NEVER,
        lastAt: 5000,
        lastThrottleAt: 5000,
        now: 5000 + MARGIN_PAIR_MS,
        ...under,
      },
      { share: 0.98, movedAt: 5000 + MARGIN_PAIR_MS, lastAt: 5000 + MARGIN_PAIR_MS },
    ],
    [
      'a second later than that: armed again, no step',
      {
        share: 0.99,
        movedAt: NEVER,
        lastAt: 5000,
        lastThrottleAt: 5000,
        now: 5001 + MARGIN_PAIR_MS,
        ...under,
      },
      { share: 0.99, movedAt: NEVER, lastAt: 5001 + MARGIN_PAIR_MS },
    ],
    [
      'a third: another step',
      { share: 0.98, movedAt: 9000, lastAt: 9000, lastThrottleAt: 9000, now: 20_000, ...under },
      { share: 0.97, movedAt: 20_000, lastAt: 20_000 },
    ],
    [
      'never below the floor',
      { share: MARGIN_FLOOR, movedAt: 0, lastAt: 8000, lastThrottleAt: 8000, now: 9000, ...under },
      { share: MARGIN_FLOOR, movedAt: 0, lastAt: 9000 },
    ],
    [
      'a step short of the floor stops at it',
      { share: MARGIN_FLOOR + 0.005, movedAt: 0, lastAt: 8000, lastThrottleAt: 8000, now: 9000, ...under },
      { share: MARGIN_FLOOR, movedAt: 9000, lastAt: 9000 },
    ],
    [
      'another kind of throttle: nothing moves, nothing comes back',
      {
        share: 0.97,
        movedAt: 0,
        lastAt: 0,
        lastThrottleAt: 0,
        now: 10 * MARGIN_BACK_MS,
        throttled: true,
        throttledUnder: false,
      },
      { share: 0.97, movedAt: 0, lastAt: 0 },
    ],
    [
      'MARGIN_BACK_MS without a throttle since the last move: a step back',
      { share: 0.97, movedAt: 0, lastAt: 0, lastThrottleAt: 0, now: MARGIN_BACK_MS, ...quiet },
      { share: 0.98, movedAt: MARGIN_BACK_MS, lastAt: 0 },
    ],
    [
      'less than that: nothing back',
      { share: 0.97, movedAt: 0, lastAt: 0, lastThrottleAt: 0, now: MARGIN_BACK_MS - 1, ...quiet },
      { share: 0.97, movedAt: 0, lastAt: 0 },
    ],
    [
      'throttles that took no step (at the floor) hold it down: counted from the last throttle',
      { share: 0.95, movedAt: 0, lastAt: 250_000, lastThrottleAt: 250_000, now: 400_000, ...quiet },
      { share: 0.95, movedAt: 0, lastAt: 250_000 },
    ],
    [
      'after a long quiet, every step due at once',
      { share: 0.95, movedAt: 0, lastAt: 0, lastThrottleAt: 0, now: 3 * MARGIN_BACK_MS + 1, ...quiet },
      { share: 0.98, movedAt: 3 * MARGIN_BACK_MS, lastAt: 0 },
    ],
    [
      'back no further than the configured share',
      { share: 0.97, movedAt: 0, lastAt: 0, lastThrottleAt: 0, now: 10 * MARGIN_BACK_MS, ...quiet },
      { share: 0.99, movedAt: 10 * MARGIN_BACK_MS, lastAt: 0 },
    ],
  ];
  for (const [label, input, want] of table) {
    it(label, () => {
      const r = jitterMargin({ targetShare: 0.99, ...input });
      assert.ok(Math.abs(r.share - want.share) < 1e-9, `share ${r.share}, wanted ${want.share}`);
      assert.equal(r.movedAt, want.movedAt);
      assert.equal(r.lastAt, want.lastAt);
    });
  }

  it('a configured share under the floor is never lowered', () => {
    const r = jitterMargin({
      share: 0.9,
      targetShare: 0.9,
      movedAt: 0,
      lastAt: 4000,
      lastThrottleAt: 4000,
      now: 5000,
      throttled: true,
      throttledUnder: true,
    });
    assert.equal(r.share, 0.9);
  });

  it('property: within [min(floor, target), target]; down only on a steady throttle, back only MARGIN_BACK_MS after any throttle', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 1, noNaN: true }),
        fc.array(
          fc.tuple(
            // gaps around the pair window and the step back, and any
            fc.oneof(
              fc.integer({ min: 0, max: 5000 }),
              fc.integer({ min: MARGIN_PAIR_MS - 5000, max: MARGIN_PAIR_MS + 5000 }),
              fc.integer({ min: MARGIN_BACK_MS / 2, max: MARGIN_BACK_MS + 20_000 }),
              fc.integer({ min: 0, max: 4 * MARGIN_BACK_MS }),
            ),
            fc.constantFrom('none', 'throttle', 'steady'),
          ),
          { maxLength: 60 },
        ),
        (targetShare, steps) => {
          let state = { share: targetShare, movedAt: NEVER, lastAt: NEVER };
          let lastThrottleAt = NEVER;
          let now = 0;
          for (const [dt, kind] of steps) {
            now += dt;
            const throttled = kind !== 'none';
            const next = jitterMargin({
              ...state,
              lastThrottleAt,
              targetShare,
              now,
              throttled,
              throttledUnder: kind === 'steady',
            });
            assert.ok(next.share <= targetShare + 1e-12);
            assert.ok(next.share >= Math.min(MARGIN_FLOOR, targetShare) - 1e-12);
            if (next.share < state.share - 1e-12) {
              assert.equal(kind, 'steady', 'only a steady throttle lowers it');
              assert.ok(state.share - next.share <= MARGIN_STEP + 1e-12, 'a step at a time');
            }
            if (next.share > state.share + 1e-12) {
              assert.ok(!throttled, 'a throttle never raises it');
              assert.ok(now - lastThrottleAt >= MARGIN_BACK_MS, 'not within MARGIN_BACK_MS of a throttle');
            }
            if (throttled) lastThrottleAt = now;
            state = next;
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

// Issue #14's vendor over a path with jitter: a 1 s sliding log of 20 that counts a request when
// it arrives, X-RateLimit-Reset in whole seconds (so it reads 1 whenever anything is in the log)
// and a 429 with Retry-After 1. Each request reaches it 2 ms after its lease plus a jitter of
// 0-2 ms, or 10-20 ms for one request in 200 (a collection's pause on either side), drawn from a
// seeded sequence. Written apart from the limiter: it shares no code with it.
async function jitteryLog(seed: number): Promise<{ paid: number; throttled: number }> {
  const clock = new VirtualClock();
  const limiter = createLimiter({ account: { ratePerSecond: 15, burst: 8 }, clock });
  let x = seed >>> 0 || 1;
  const jitter = (): number => {
    // xorshift32: a seeded, repeatable draw
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    // 0-2 ms most of the time; one request in 200 held up 10-20 ms.
    const r = (x % 1_000_000) / 1_000_000;
    return r < 0.005 ? 10 + r * 2000 : r * 2;
  };
  const log: number[] = [];
  // 12 minutes: the margin's steps down in the first two, and its steps back (each 5 minutes
  // without a throttle) and what they cost in the ten measured after them.
  const endMs = 720_000;
  const fromMs = 120_000;
  let paid = 0;
  let throttled = 0;
  const attempt = (deadline: number): void => {
    limiter.acquire({ key: 'payer', lane: 'batch', deadline }).then(
      (lease) => {
        clock.setTimer(2 + jitter(), () => {
          const now = clock.now();
          while (log.length > 0 && log[0]! <= now - 1000) log.shift();
          const ok = log.length < 20;
          if (ok) log.push(now);
          const reset = log.length === 0 ? 0 : Math.ceil((log[0]! + 1000 - now) / 1000 - 1e-9);
          if (now >= fromMs && now < endMs) {
            if (ok) paid++;
            else throttled++;
          }
          clock.setTimer(60, () => {
            lease.release();
            limiter.observe(
              ok
                ? { limit: 20, remaining: 20 - log.length, resetSeconds: reset }
                : { limit: 20, remaining: 0, resetSeconds: reset, retryAfterMs: 1000, throttled: true },
            );
            if (!ok && clock.now() < endMs) attempt(deadline);
          });
        });
      },
      () => {},
    ); // the waiters still queued when the limiter closes
  };
  for (let t = 0; t < endMs; t += 1000 / 30) clock.setTimer(t, () => attempt(clock.now() + 3_600_000));
  await clock.advance(endMs);
  limiter.close();
  await clock.runAll();
  return { paid, throttled };
}

describe('issue #14: a sliding log over a path with jitter', () => {
  it('the margin widens until the throttles are rare: minutes 2-12, >= 97 % of the quota and at most 8 throttles', async () => {
    // Before: the share stayed 0.99 (10 ms of the log to spare a request), and a throttle with
    // its whole-second pause came every 14 s (seed 1: 44 throttles, 10,998 paid, 91.7 %). The
    // bounds leave room for the steps back (each 5 minutes without a throttle, a point, then a
    // throttle or two to learn it again; 5-6 throttles and 97.1-97.3 % here), not for a share
    // at the floor all along (0.95: 95 %).
    for (const seed of [1, 2, 3]) {
      const r = await jitteryLog(seed);
      assert.ok(r.paid >= 0.97 * 20 * 600, `seed ${seed}: ${r.paid} paid of 12000`);
      assert.ok(r.throttled <= 8, `seed ${seed}: ${r.throttled} throttled`);
    }
  });
});
