import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Clock, TimerHandle } from './clock.js';
import { createLimiter } from './limiter.js';
import { Pacer } from './pacer.js';
import type { QuotaSignal } from './quota-signal.js';

describe('Pacer', () => {
  it('a pause drops the lead; a faster pace is due from the last admission, a slower one keeps the turn owed (a table)', () => {
    // [what happens after an admission at 0 at 10/s, the time asked at, the wait then]
    const table: ReadonlyArray<[string, (p: Pacer) => void, number, number]> = [
      ['nothing: the next turn is 100 ms on', () => {}, 0, 100],
      ['paused at 30: the lead is dropped, it may go at 30', (p) => p.paused(30), 30, 0],
      ['paused at 150 (the turn already past): the turn stands', (p) => p.paused(150), 0, 100],
      [
        '20/s from now on: due 50 ms after the admission',
        (p) => p.setSpec({ perSecond: 20, toleranceMs: 0 }),
        0,
        50,
      ],
      [
        '5/s from now on: the 100 ms turn stands (the bucket keeps the slower rate)',
        (p) => p.setSpec({ perSecond: 5, toleranceMs: 0 }),
        0,
        100,
      ],
    ];
    for (const [name, act, at, due] of table) {
      const p = new Pacer({ perSecond: 10, toleranceMs: 0 });
      p.admitted(0, 1);
      act(p);
      assert.equal(p.wait(at), due, name);
    }
  });

  // The reference, written another way: the n-th admission after admission j is due one turn
  // per admission after it, whatever came between; an admission goes when every earlier one
  // says so (within the tolerance).
  const referenceWait = (
    admitted: readonly { at: number; cost: number }[],
    now: number,
    turnMs: number,
    tol: number,
  ) => {
    let due = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < admitted.length; j++) {
      let after = 0;
      for (let k = j; k < admitted.length; k++) after += admitted[k]!.cost;
      due = Math.max(due, admitted[j]!.at + after * turnMs);
    }
    return Math.max(0, due - tol - now);
  };

  it('waits as long as the reference says, admitting whenever it may (a property)', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 50, noNaN: true }), fc.integer({ min: 1, max: 3 })), {
          maxLength: 40,
        }),
        (perSecond, toleranceMs, steps) => {
          const p = new Pacer({ perSecond, toleranceMs });
          const admitted: { at: number; cost: number }[] = [];
          let now = 0;
          for (const [dt, cost] of steps) {
            now += dt;
            const want = referenceWait(admitted, now, 1000 / perSecond, toleranceMs);
            const got = p.wait(now);
            assert.ok(Math.abs(got - want) < 1e-6 * Math.max(1, want), `wait ${got} against ${want}`);
            // The caller goes once the wait is over: at now + wait.
            now += got;
            p.admitted(now, cost);
            admitted.push({ at: now, cost });
          }
        },
      ),
    );
  });
});

// A clock whose timers fire late by a chosen amount: a stalled event loop.
class LateClock implements Clock {
  #now = 0;
  #timers: { at: number; fn: () => void; cancelled: boolean }[] = [];
  now(): number {
    return this.#now;
  }
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const t = { at: this.#now + Math.max(0, delayMs), fn, cancelled: false };
    this.#timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }
  /**
   * Fires the next timer `lateMs` after it was due (a function: as late as it says for the time
   * the timer was due); false when none is armed.
   */
  fireNext(lateMs: number | ((at: number) => number)): boolean {
    this.#timers = this.#timers.filter((t) => !t.cancelled);
    if (this.#timers.length === 0) return false;
    const next = this.#timers.reduce((a, b) => (b.at < a.at ? b : a));
    this.#timers.splice(this.#timers.indexOf(next), 1);
    this.#now = Math.max(this.#now, next.at + (typeof lateMs === 'number' ? lateMs : lateMs(next.at)));
    next.fn();
    return true;
  }
}

// An event loop that stalls `stallMs` every `everyMs`: how late a timer due at `at` fires (one
// due within a stall at its end, in the order due; the others 0.4 ms late, a timer's own lateness).
const stalling =
  (everyMs: number, stallMs: number) =>
  (at: number): number => {
    const into = at % everyMs;
    return into < stallMs ? stallMs - into : 0.4;
  };

describe('a limiter paced to a vendor quota', () => {
  const settle = () => new Promise<void>((r) => setImmediate(r));
  // Batch claims queued, timers firing late (every 150th by 15 ms, a collection's pause; the
  // others by 0.4 ms, a timer's own lateness); with `pos`, a counter claim tries to go at each
  // timer too (a pos claim may pass queued batch ones: the lane share). Admission times.
  const run = async (pos: boolean): Promise<number[]> => {
    const clock = new LateClock();
    const limiter = createLimiter({ account: { ratePerSecond: 100, burst: 50 }, clock });
    // The vendor's policy says 50 per 1 s window: the pace is 99 % of it (49.5/s).
    await limiter.observe({ limit: 50, remaining: 49, resetSeconds: 1, windowSeconds: 1 });
    const times: number[] = [];
    for (let i = 0; i < 400; i++)
      void limiter.acquire({ key: 'payer', lane: 'batch', deadline: 3_600_000 }).then((lease) => {
        times.push(clock.now());
        lease.release();
      });
    await settle();
    for (let n = 0; times.length < 400 && n < 5000; n++) {
      if (!clock.fireNext(n % 150 === 149 ? 15 : 0.4)) break;
      await settle();
      if (pos) {
        const lease = await limiter.tryAcquire({ key: 'payer', lane: 'pos' });
        if (lease !== undefined) {
          times.push(clock.now());
          lease.release();
        }
      }
    }
    limiter.close();
    return times.sort((a, b) => a - b);
  };

  // From `fromMs` on (the second second: the first spends what the first answer left), no 51 in
  // any second.
  const assertNo51 = (times: readonly number[], fromMs = 1000): number[] => {
    const paced = times.filter((t) => t >= fromMs);
    for (let k = 0; k + 50 < paced.length; k++)
      assert.ok(
        paced[k + 50]! - paced[k]! >= 1000,
        `51 admissions from ${paced[k]!.toFixed(1)} to ${paced[k + 50]!.toFixed(1)} ms`,
      );
    return paced;
  };

  // 49 a second or more (98 % of the quota) from the first of `paced` to the last, less the
  // allowance the pace leaves for the timers seen late (StallWatch: `stallMs` of a 1 s window).
  const assertRate49 = (paced: readonly number[], stallMs = 0): void => {
    const rate = ((paced.length - 1) * 1000) / (paced.at(-1)! - paced[0]!);
    assert.ok(rate >= 49 / (1 + stallMs / 1000), `${rate.toFixed(2)}/s`);
  };

  // A vendor's sliding log of 50 a second, written apart from the limiter: counts a request at
  // `at`; what it has left then, and when its oldest request leaves (s).
  const logOf50 = () => {
    const log: number[] = [];
    return (at: number): { ok: boolean; remaining: number; resetSeconds: number } => {
      while (log.length > 0 && log[0]! <= at - 1000) log.shift();
      const ok = log.length < 50;
      if (ok) log.push(at);
      return {
        ok,
        remaining: 50 - log.length,
        resetSeconds: log.length === 0 ? 0 : (log[0]! + 1000 - at) / 1000,
      };
    };
  };

  it('does not catch up after a late timer past what a 1 s sliding log of 50 allows', async () => {
    // Session 18, over loopback: a timer held up 7 ms and then 5, then the bucket let the late
    // turn's token go 9 ms after the one before; 51 of our own admissions fell in one second,
    // and the vendor's sliding log of 50 refused the 51st with a whole-second Retry-After.
    const times = await run(false);
    assert.ok(times.length >= 400);
    const paced = assertNo51(times);
    // And the pace is not given up for it: 98 % of the quota or more from 1 s to the last, less
    // the allowance for the 15 ms stalls (1.5 % of the window).
    assertRate49(paced, 15);
  });

  it('nor when counter claims go past the queued batch ones', async () => {
    // Found in review: a pos arrival that passed queued batch waiters took the bucket's banked
    // tokens at once and was not in their pace.
    assertNo51(await run(true));
  });

  // A limiter feeding a vendor's log of 50 (logOf50) on a LateClock whose event loop stalls as
  // `late` says, until 40 s: `claims` queued at once, each counted `countAfterMs` after its
  // admission (at once when 0: no timer, so no stall holds it up), answered `answerAfterMs` after
  // that with `signal`, and sent again when refused. What was counted, and refused from `fromMs` on.
  const feedLog = async (o: {
    readonly late: (at: number) => number;
    readonly claims: number;
    readonly countAfterMs: number;
    readonly answerAfterMs: number;
    readonly fromMs: number;
    readonly maxFires: number;
    readonly signal: (answer: { ok: boolean; remaining: number; resetSeconds: number }) => QuotaSignal;
  }): Promise<{ counted: number[]; refused: number; endedAt: number }> => {
    const clock = new LateClock();
    const limiter = createLimiter({ account: { ratePerSecond: 100, burst: 50 }, clock });
    const count = logOf50();
    const counted: number[] = [];
    let refused = 0;
    const send = (): void => {
      void limiter.acquire({ key: 'payer', lane: 'batch', deadline: 3_600_000 }).then(
        (lease) => {
          const arrive = (): void => {
            const at = clock.now();
            const answer = count(at);
            if (answer.ok) counted.push(at);
            else if (at >= o.fromMs) refused++;
            clock.setTimer(o.answerAfterMs, () => {
              lease.release();
              void limiter.observe(o.signal(answer));
              if (!answer.ok) send();
            });
          };
          if (o.countAfterMs === 0) arrive();
          else clock.setTimer(o.countAfterMs, arrive);
        },
        // Still waiting when the limiter closes.
        () => undefined,
      );
    };
    for (let i = 0; i < o.claims; i++) send();
    await settle();
    for (let n = 0; clock.now() < 40_000 && n < o.maxFires; n++) {
      if (!clock.fireNext(o.late)) break;
      await settle();
    }
    limiter.close();
    return { counted, refused, endedAt: clock.now() };
  };

  it('nor where the window is read from Remaining alone (a 1 s log of 50 saying only Limit and Remaining)', async () => {
    // Session 27, over loopback: the window read from our sends kept no pace, and each stall of
    // more than 10 ms was followed by a turn 8-10 ms after the late one; a second later the
    // vendor's log refused a request on time with a whole-second Retry-After (92-94 % of the
    // quota in three of four cells of the row). The vendor here is a log of its own: the
    // arrival times it admitted in the last second, 50 at most; its answers come 20 ms later.
    // The event loop stalls 15 ms every 3 s (the answers' timers wait too).
    const { counted, refused, endedAt } = await feedLog({
      late: stalling(3000, 15),
      claims: 2000,
      countAfterMs: 0,
      answerAfterMs: 20,
      fromMs: 10_000,
      maxFires: 20_000,
      signal: ({ ok, remaining }) =>
        ok ? { limit: 50, remaining } : { limit: 50, remaining: 0, throttled: true, retryAfterMs: 1000 },
    });
    // Once the window stands (read from a run of answers, a few seconds in): none refused, no
    // 51 of ours in any second, and 98 % of the quota or more.
    assert.ok(endedAt >= 40_000, `stopped at ${endedAt.toFixed(0)} ms`);
    const paced = counted.filter((t) => t >= 10_000);
    assert.ok(paced.length >= 1400, `${paced.length} admitted from 10 s to 40 s`);
    assert.equal(refused, 0, `${refused} refused after 10 s`);
    assertNo51(paced, 10_000);
    assertRate49(paced, 15);
  });

  // From `fromMs` on (a window read from Remaining alone stands a few seconds in).
  for (const [headers, fromMs] of [
    ['x-ratelimit', 5000],
    ['remaining-only', 10_000],
  ] as const)
    it(`leaves room for a stall that holds up a request admitted just before it (StallWatch; ${headers})`, async () => {
      // Session 30, over loopback with the vendor on our event loop: a 1 s log of 50 saying
      // X-RateLimit headers, paced at 99 % (10 ms to spare a window), refused a request in three
      // of four 40 s runs. Each time one request had been counted 10-14 ms after its admission
      // (a stall between the two), its admission and the timers around it on time; a second
      // later the request on time found the log full and was refused with a whole second of
      // Retry-After. Here the vendor counts a request 5 ms after its admission (a timer: a stall
      // holds it up too) and the event loop stalls 18 ms every 1.3 s. Without the allowance: 2
      // refused after 5 s with X-RateLimit headers (the second throttle within a minute steps the
      // margin; see jitter-margin.ts), 1 after 10 s with Limit and Remaining alone. (The review's
      // correction for Remaining alone, its reads weighed against the rate before the allowance,
      // is not held here: with the allowance this vendor never refuses, so it is never reached.)
      const reset = (resetSeconds: number) => (headers === 'x-ratelimit' ? { resetSeconds } : {});
      const { counted, refused, endedAt } = await feedLog({
        late: stalling(1300, 18),
        claims: 2500,
        countAfterMs: 5,
        answerAfterMs: 10,
        fromMs,
        maxFires: 40_000,
        signal: ({ ok, remaining, resetSeconds }) =>
          ok
            ? { limit: 50, remaining, roundTripMs: 15, ...reset(resetSeconds) }
            : {
                limit: 50,
                remaining: 0,
                throttled: true,
                retryAfterMs: 1000,
                roundTripMs: 15,
                ...reset(resetSeconds),
              },
      });
      assert.ok(endedAt >= 40_000, `stopped at ${endedAt.toFixed(0)} ms`);
      // From then on: none refused, and 98 % of the quota less the allowance for the stalls.
      assert.equal(refused, 0, `${refused} refused after ${fromMs} ms`);
      const paced = counted.filter((t) => t >= fromMs);
      assertRate49(paced, 18);
    });
});
