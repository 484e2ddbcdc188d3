import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExecuteContext, RetryJudgement, Settled } from '@rxgate/core';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { backoffDelay, fullJitterCeiling } from './backoff.js';
import { decide } from './decide.js';
import { isInvalidRetryOptionError } from './errors.js';
import { type GiveUp, type RetryEvent, retryPolicy } from './retry.js';

// One scripted attempt: resolve or reject, retryable or not, with or without a Retry-After.
interface Step {
  readonly ok: boolean;
  readonly retry: boolean;
  readonly retryAfterMs?: number;
}
const stepArb: fc.Arbitrary<Step> = fc.record(
  { ok: fc.boolean(), retry: fc.boolean(), retryAfterMs: fc.integer({ min: 0, max: 60_000 }) },
  { requiredKeys: ['ok', 'retry'] },
);

// The reference: the same loop written as a plain walk over the script, with its own jitter
// ceiling (doubling in a loop, not 2**n) and its own waits.
function model(
  steps: readonly Step[],
  r: readonly number[],
  maxRetries: number,
  base: number,
  cap: number,
  deadline: number | undefined,
) {
  let t = 0;
  const waits: number[] = [];
  for (let i = 0; ; i++) {
    const s = steps[i % steps.length]!;
    if (!s.retry) return { calls: i + 1, waits, gaveUp: undefined, t };
    if (i === maxRetries) return { calls: i + 1, waits, gaveUp: 'max-retries', t };
    let ceiling = base;
    for (let k = 0; k < i && ceiling < cap; k++) ceiling *= 2;
    const wait = Math.max(r[i % r.length]! * Math.min(ceiling, cap), s.retryAfterMs ?? 0);
    if (deadline !== undefined && t + wait >= deadline) return { calls: i + 1, waits, gaveUp: 'deadline', t };
    t += wait;
    waits.push(wait);
  }
}

describe('retryPolicy', () => {
  it('makes the calls, waits and give-up of the reference for any script of outcomes (model-based)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepArb, { minLength: 1, maxLength: 8 }),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.integer({ min: 0, max: 6 }),
        fc.integer({ min: 1, max: 2000 }),
        fc.integer({ min: 1, max: 40_000 }),
        fc.option(fc.integer({ min: 1, max: 200_000 }), { nil: undefined }),
        async (steps, r, maxRetries, base, capExtra, deadline) => {
          const cap = base + capExtra;
          const clock = new VirtualClock();
          let draws = 0;
          const waits: number[] = [];
          const giveUps: GiveUp[] = [];
          const attempts: number[] = [];
          let calls = 0;
          const policy = retryPolicy({
            maxRetries,
            backoff: { kind: 'full', baseMs: base, capMs: cap },
            clock,
            random: () => r[draws++ % r.length]!,
            judge: (s: Settled): RetryJudgement => {
              const step = (s.ok ? s.value : (s.error as { step: Step }).step) as Step;
              return step.retryAfterMs === undefined
                ? { retry: step.retry }
                : { retry: step.retry, retryAfterMs: step.retryAfterMs };
            },
            onEvent: (e: RetryEvent) => {
              if (e.type === 'retry') waits.push(e.delayMs);
            },
            onGiveUp: (g) => giveUps.push(g),
          });
          const ctx: ExecuteContext = deadline === undefined ? { key: 'k' } : { key: 'k', deadline };
          const done = policy
            .execute(async (c) => {
              attempts.push(c.attempt ?? 0); // undefined is the first attempt (@default 0)
              const step = steps[calls++ % steps.length]!;
              if (step.ok) return step;
              throw Object.assign(new Error('fail'), { step });
            }, ctx)
            .then(
              (v) => ({ ok: true, v }),
              (e: unknown) => ({ ok: false, v: (e as { step: Step }).step }),
            );
          await clock.runAll();
          const got = await done;
          const want = model(steps, r, maxRetries, base, cap, deadline);
          assert.equal(calls, want.calls);
          assert.deepEqual(
            attempts,
            Array.from({ length: want.calls }, (_, i) => i),
          );
          assert.deepEqual(waits, want.waits);
          assert.equal(clock.now(), want.t);
          assert.equal(giveUps.length, want.gaveUp === undefined ? 0 : 1);
          if (want.gaveUp !== undefined) {
            assert.equal(giveUps[0]!.reason, want.gaveUp);
            assert.equal(giveUps[0]!.attempts, want.calls);
          }
          // It settles with the last attempt's own outcome.
          const last = steps[(want.calls - 1) % steps.length]!;
          assert.equal(got.ok, last.ok);
          assert.equal(got.v, last);
        },
      ),
    );
  });

  it('full jitter stays in [0, min(base·2^n, cap)); decorrelated in [base, cap]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 5000 }),
        fc.integer({ min: 0, max: 100_000 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.double({ min: 0, max: 200_000, noNaN: true }),
        (base, extra, n, r, prev) => {
          const cap = base + extra;
          const full = backoffDelay({ kind: 'full', baseMs: base, capMs: cap }, n, 0, r);
          assert.ok(full >= 0 && full <= fullJitterCeiling(base, cap, n));
          assert.ok(fullJitterCeiling(base, cap, n) <= cap);
          const dec = backoffDelay({ kind: 'decorrelated', baseMs: base, capMs: cap }, n, prev, r);
          assert.ok(dec >= base && dec <= cap, `${dec} not in [${base}, ${cap}]`);
        },
      ),
    );
  });

  it('the seed story: U(0, min(1 s·2^n, 30 s)), at most 4 retries, then the retry queue', async () => {
    const clock = new VirtualClock();
    const queue: GiveUp[] = [];
    const policy = retryPolicy({
      maxRetries: 4,
      backoff: { kind: 'full', baseMs: 1000, capMs: 30_000 },
      clock,
      random: () => 0.999,
      judge: (s) => (s.ok ? { retry: (s.value as { status: number }).status === 429 } : { retry: false }),
      onGiveUp: (g) => queue.push(g),
    });
    const starts: number[] = [];
    const done = policy.execute(
      async () => {
        starts.push(clock.now());
        return { status: 429 };
      },
      { key: 'clearinghouse', lane: 'batch' },
    );
    await clock.runAll();
    assert.deepEqual(await done, { status: 429 });
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    assert.deepEqual(
      gaps.map((g) => Math.round(g)),
      [999, 1998, 3996, 7992],
    );
    assert.equal(queue.length, 1);
    assert.equal(queue[0]!.attempts, 5);
    assert.equal(queue[0]!.context.lane, 'batch');
  });

  it('honours a Retry-After longer than the backoff, from the judge or a user function', async () => {
    const clock = new VirtualClock();
    const starts: number[] = [];
    let n = 0;
    const policy = retryPolicy({
      maxRetries: 2,
      clock,
      random: () => 0,
      judge: () => ({ retry: true, retryAfterMs: 5000 }),
      retryAfter: (s) => (s.ok && s.value === 'second' ? 12_000 : undefined),
    });
    const done = policy.execute(async () => {
      starts.push(clock.now());
      n++;
      return n === 1 ? 'first' : n === 2 ? 'second' : 'third';
    });
    await clock.runAll();
    assert.equal(await done, 'third');
    assert.deepEqual(starts, [0, 5000, 17_000]);
  });

  it('an abort while waiting rejects with the signal’s reason and makes no further call', async () => {
    const clock = new VirtualClock();
    const controller = new AbortController();
    let calls = 0;
    const done = retryPolicy({ clock, random: () => 0.5 }).execute(
      async () => {
        calls++;
        throw new Error('down');
      },
      { signal: controller.signal },
    );
    await clock.advance(100);
    controller.abort(new Error('caller gave up'));
    await assert.rejects(done, /caller gave up/);
    await clock.runAll();
    assert.equal(calls, 1);
  });

  it('by default retries rejections but not results nor aborts', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const policy = retryPolicy({ clock, maxRetries: 2, random: () => 0 });
    assert.equal(await policy.execute(async () => ++calls), 1);
    calls = 0;
    const p = policy.execute(async () => {
      calls++;
      throw new DOMException('aborted', 'AbortError');
    });
    await assert.rejects(p, { name: 'AbortError' });
    assert.equal(calls, 1);
    calls = 0;
    const q = assert.rejects(
      policy.execute(async () => {
        calls++;
        throw new Error('reset');
      }),
      /reset/,
    );
    await clock.runAll();
    await q;
    assert.equal(calls, 3);
  });

  it('refuses bad options with a typed error naming the field', () => {
    for (const [o, field] of [
      [{ maxRetries: -1 }, 'maxRetries'],
      [{ maxRetries: 1.5 }, 'maxRetries'],
      [{ backoff: { kind: 'full', baseMs: 10, capMs: 5 } }, 'backoff.capMs'],
      [{ backoff: { kind: 'linear', baseMs: 1, capMs: 5 } }, 'backoff.kind'],
      [{ judge: 3 }, 'judge'],
    ] as const) {
      assert.throws(
        () => retryPolicy(o as never),
        (e: unknown) => isInvalidRetryOptionError(e) && e.option === field,
      );
    }
  });
});

describe('decide (the decision table)', () => {
  const base = {
    retries: 0,
    maxRetries: 3,
    backoffMs: 100,
    retryAfterMs: undefined,
    now: 0,
    deadline: undefined,
  };
  const rows = [
    [{ ...base, retryable: false }, { action: 'settle' }],
    [
      { ...base, retryable: true },
      { action: 'retry', delayMs: 100 },
    ],
    [
      { ...base, retryable: true, retryAfterMs: 250 },
      { action: 'retry', delayMs: 250 },
    ],
    [
      { ...base, retryable: true, retryAfterMs: 50 },
      { action: 'retry', delayMs: 100 },
    ],
    [
      { ...base, retryable: true, retries: 3 },
      { action: 'give-up', reason: 'max-retries' },
    ],
    [
      { ...base, retryable: true, now: 900, deadline: 1000 },
      { action: 'give-up', reason: 'deadline' },
    ],
    [
      { ...base, retryable: true, now: 899, deadline: 1000 },
      { action: 'retry', delayMs: 100 },
    ],
    [
      { ...base, retryable: true, retryAfterMs: 5000, deadline: 1000 },
      { action: 'give-up', reason: 'deadline' },
    ],
  ] as const;
  for (const [input, want] of rows)
    it(`${JSON.stringify(input)} → ${JSON.stringify(want)}`, () => assert.deepEqual(decide(input), want));
});
