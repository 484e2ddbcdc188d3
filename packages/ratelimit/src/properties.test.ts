import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { AcquireAbortedError } from './errors.js';
import type { Lane } from './events.js';
import type { Lease } from './lease.js';
import { createLimiter } from './limiter.js';
import type { QuotaSignal } from './quota-signal.js';
import { TokenBucket } from './token-bucket.js';

const limitArb = fc.record({
  ratePerSecond: fc.integer({ min: 1, max: 20 }),
  burst: fc.integer({ min: 1, max: 8 }),
});

type Op =
  | {
      kind: 'acquire';
      dt: number;
      key: number;
      lane: Lane;
      cost: number;
      deadlineIn?: number;
      abortAfter?: number;
      holdMs: number;
    }
  | { kind: 'signal'; dt: number; signal: QuotaSignal; key?: number };

const signalArb: fc.Arbitrary<QuotaSignal> = fc.oneof(
  fc.record({ retryAfterMs: fc.integer({ min: 1, max: 3000 }), throttled: fc.constant(true) }),
  fc.record({ throttled: fc.constant(true) }),
  fc.record({
    remaining: fc.integer({ min: 0, max: 10 }),
    resetSeconds: fc.integer({ min: 0, max: 5 }),
    limit: fc.constant(10),
  }),
);

const opArb = (keys: number): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record(
        {
          kind: fc.constant('acquire' as const),
          dt: fc.integer({ min: 0, max: 400 }),
          key: fc.integer({ min: 0, max: keys - 1 }),
          lane: fc.constantFrom<Lane>('pos', 'batch'),
          cost: fc.integer({ min: 1, max: 3 }),
          deadlineIn: fc.integer({ min: 0, max: 3000 }),
          abortAfter: fc.integer({ min: 0, max: 2000 }),
          holdMs: fc.integer({ min: 0, max: 500 }),
        },
        { requiredKeys: ['kind', 'dt', 'key', 'lane', 'cost', 'holdMs'] },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          kind: fc.constant('signal' as const),
          dt: fc.integer({ min: 0, max: 400 }),
          signal: signalArb,
          key: fc.integer({ min: 0, max: keys - 1 }),
        },
        { requiredKeys: ['kind', 'dt', 'signal'] },
      ),
    },
  );

/** In any window [t_i, t_j], admitted cost <= burst + rate * (t_j - t_i). */
function assertWindowBound(
  admissions: Array<{ at: number; cost: number }>,
  rate: number,
  burst: number,
  label: string,
) {
  const sorted = [...admissions].sort((a, b) => a.at - b.at);
  for (let i = 0; i < sorted.length; i++) {
    let sum = 0;
    for (let j = i; j < sorted.length; j++) {
      sum += sorted[j]!.cost;
      const bound = burst + (rate * (sorted[j]!.at - sorted[i]!.at)) / 1000;
      assert.ok(
        sum <= bound + 1e-6,
        `${label}: ${sum} admitted in [${sorted[i]!.at}, ${sorted[j]!.at}] > ${bound}`,
      );
    }
  }
}

describe('limiter properties', () => {
  it('per key and account: admissions within burst + rate·w; every acquire settles; everything returns to full', async () => {
    await fc.assert(
      fc.asyncProperty(
        limitArb,
        limitArb,
        fc.integer({ min: 1, max: 3 }),
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        fc.array(opArb(3), { minLength: 1, maxLength: 40 }),
        async (account, perKey, keys, concurrency, ops) => {
          const burstA = Math.max(account.burst, 3);
          const burstK = Math.max(perKey.burst, 3);
          const clock = new VirtualClock();
          const limiter = createLimiter({
            account: {
              ratePerSecond: account.ratePerSecond,
              burst: burstA,
              ...(concurrency ? { concurrency } : {}),
            },
            perKey: { default: { ratePerSecond: perKey.ratePerSecond, burst: burstK } },
            // The vendor's advertised limit may raise a level above its configured rate; the
            // cap keeps the configured bounds the ones to check.
            adaptive: { maxRatePerSecond: Math.min(account.ratePerSecond, perKey.ratePerSecond) },
            clock,
          });
          const admissions: Array<{ at: number; cost: number; key: string }> = [];
          const settled = new Map<number, 'ok' | 'rejected'>();
          const pending: Promise<void>[] = [];
          let inFlight = 0;
          let maxInFlight = 0;
          for (const [i, op] of ops.entries()) {
            await clock.advance(op.dt);
            if (op.kind === 'signal') {
              limiter.observe(op.signal, op.key === undefined ? undefined : { key: `k${op.key % keys}` });
              continue;
            }
            const key = `k${op.key % keys}`;
            const ac = new AbortController();
            if (op.abortAfter !== undefined) clock.setTimer(op.abortAfter, () => ac.abort());
            const deadline = op.deadlineIn === undefined ? undefined : clock.now() + op.deadlineIn;
            pending.push(
              limiter
                .acquire({
                  key,
                  lane: op.lane,
                  cost: op.cost,
                  signal: ac.signal,
                  ...(deadline === undefined ? {} : { deadline }),
                })
                .then(
                  (lease: Lease) => {
                    settled.set(i, 'ok');
                    if (deadline !== undefined)
                      assert.ok(clock.now() <= deadline, 'admitted after its deadline');
                    admissions.push({ at: clock.now(), cost: op.cost, key });
                    inFlight++;
                    maxInFlight = Math.max(maxInFlight, inFlight);
                    clock.setTimer(op.holdMs, () => {
                      inFlight--;
                      lease.release();
                      lease.release();
                    });
                  },
                  () => {
                    settled.set(i, 'rejected');
                  },
                ),
            );
          }
          await clock.runAll();
          // Every timer has fired and every continuation has run (a macrotask turn flushes the
          // microtasks): each acquire must have settled by now. Checked before awaiting them,
          // since an acquire that never settles would keep Promise.all waiting forever.
          await new Promise<void>((resolve) => setImmediate(resolve));
          const acquires = ops.filter((o) => o.kind === 'acquire').length;
          assert.equal(settled.size, acquires, `${acquires - settled.size} acquire(s) never settled`);
          await Promise.all(pending);
          if (concurrency) assert.ok(maxInFlight <= concurrency);
          assertWindowBound(admissions, account.ratePerSecond, burstA, 'account');
          for (let k = 0; k < keys; k++) {
            assertWindowBound(
              admissions.filter((a) => a.key === `k${k}`),
              perKey.ratePerSecond,
              burstK,
              `k${k}`,
            );
          }
          await clock.advance(3_600_000);
          const acct = await limiter.snapshot();
          assert.ok(Math.abs(acct.tokens - burstA) < 1e-6, `account back to full, has ${acct.tokens}`);
          assert.equal(acct.waiting, 0);
          assert.equal(acct.inFlight, 0);
          for (let k = 0; k < keys; k++)
            assert.ok(Math.abs((await limiter.snapshot(`k${k}`)).tokens - burstK) < 1e-6);
          assert.equal(clock.pending, 0, 'no timer left behind');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a waiter with no one ahead is admitted the moment its tokens exist', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 50 }).map((x) => x / 4),
        fc.array(
          fc.record({ dt: fc.integer({ min: 0, max: 1000 }), cost: fc.integer({ min: 1, max: 10 }) }),
          {
            minLength: 1,
            maxLength: 60,
          },
        ),
        async (capacity, rate, arrivals) => {
          const clock = new VirtualClock();
          const bucket = new TokenBucket({ capacity, refillPerSecond: rate, clock });
          const got: number[] = [];
          const all: Promise<void>[] = [];
          const arrivedAt: number[] = [];
          for (const [i, a] of arrivals.entries()) {
            await clock.advance(a.dt);
            arrivedAt.push(clock.now());
            const cost = Math.min(a.cost, capacity);
            all.push(
              bucket.acquire({ cost }).then(() => {
                got[i] = clock.now();
              }),
            );
          }
          await clock.runAll();
          await Promise.all(all);
          // Reference GCRA with a FIFO queue, computed independently.
          const interval = 1000 / rate;
          let tat = 0;
          let prev = 0;
          for (const [i, a] of arrivals.entries()) {
            const cost = Math.min(a.cost, capacity);
            const expected = Math.max(arrivedAt[i]!, prev, tat + cost * interval - capacity * interval);
            assert.ok(
              Math.abs(got[i]! - expected) < 1e-6,
              `claim ${i}: admitted at ${got[i]}, tokens existed at ${expected}`,
            );
            tat = Math.max(tat, expected) + cost * interval;
            prev = expected;
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('concurrency permits: never more than n held, never leaked', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 5 }),
        fc.array(
          fc.record({
            dt: fc.integer({ min: 0, max: 50 }),
            hold: fc.integer({ min: 0, max: 200 }),
            abortAfter: fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
            throws: fc.boolean(),
          }),
          { maxLength: 50 },
        ),
        async (n, ops) => {
          const clock = new VirtualClock();
          const cap = new ConcurrencyLimit(n, { clock });
          const vendorDown = new Error('vendor down');
          let held = 0;
          // Recorded, not asserted, inside the work: an assertion thrown there would only reject
          // run(), which a catch meant for the expected failures would swallow.
          let maxHeld = 0;
          let maxActive = 0;
          const all: Promise<unknown>[] = [];
          for (const op of ops) {
            await clock.advance(op.dt);
            const ac = new AbortController();
            if (op.abortAfter !== undefined) clock.setTimer(op.abortAfter, () => ac.abort());
            all.push(
              cap
                .run(
                  () =>
                    new Promise<void>((resolve, reject) => {
                      held++;
                      maxHeld = Math.max(maxHeld, held);
                      maxActive = Math.max(maxActive, cap.active);
                      clock.setTimer(op.hold, () => {
                        held--;
                        if (op.throws) reject(vendorDown);
                        else resolve();
                      });
                    }),
                  { signal: ac.signal },
                )
                .catch((e: unknown) => {
                  // Only the two expected failures: the work's own error, an aborted wait.
                  if (e === vendorDown || e instanceof AcquireAbortedError) return;
                  throw e;
                }),
            );
          }
          await clock.runAll();
          await Promise.all(all);
          assert.ok(maxHeld <= n, `${maxHeld} held at once, limit ${n}`);
          assert.ok(maxActive <= n, `${maxActive} permits active at once, limit ${n}`);
          assert.equal(held, 0);
          assert.equal(cap.active, 0);
          assert.equal(cap.waiting, 0);
        },
      ),
      { numRuns: 200 },
    );
  });
});
