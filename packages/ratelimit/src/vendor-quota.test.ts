import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { seededRandom } from '@rxgate/core';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import { isDeadlineExceededError } from './errors.js';
import { createLimiter, type Limiter } from './limiter.js';
import type { QuotaSignal } from './quota-signal.js';
import { logNormalRoundTrips } from './test-support/round-trips.js';

// Issue #14, against vendors this package has never seen. The vendor here is written from
// scratch (no code shared with the limiter): a sliding log or a fixed window of `limit` per
// second that counts a request when it arrives and reports, as API gateways do,
// X-RateLimit-Limit, -Remaining and -Reset (seconds until its oldest request leaves the
// window, or until the fixed window ends).

/**
 * `counter`: a fixed window that starts at the first request after the last one ended (INCR with
 * an expiry). `bucket`: a token bucket of `limit` that refills at `limit` per window, whole tokens
 * said as Remaining (a GCRA's burst, as Stripe's and GitHub's secondary limits keep).
 * `sliding-counter`: fixed windows, the one before weighed by the share of it still inside a
 * window back from now (as Cloudflare's and nginx-style gateways estimate a sliding window);
 * Remaining the limit less that estimate, whole; a refusal's Retry-After the whole seconds until
 * one more would fit.
 */
type Model = 'sliding-log' | 'fixed-window' | 'counter' | 'bucket' | 'sliding-counter';

function vendor(model: Model, limit: number, windowMs = 1000, retryAfterSeconds?: number) {
  let tokens = limit;
  let filledAt = 0;
  const log: number[] = [];
  let index = -1;
  let count = 0;
  let expiresAt = Number.NEGATIVE_INFINITY;
  let before = 0;
  // What a gateway says: Limit, Remaining and the reset; a refusal, Remaining 0 and a
  // Retry-After in whole seconds (to the reset, rounded up; or always the same, where told).
  const answer = (ok: boolean, remaining: number, reset: number): { ok: boolean; signal: QuotaSignal } => ({
    ok,
    signal: ok
      ? { limit, remaining, resetSeconds: reset }
      : {
          limit,
          remaining: 0,
          resetSeconds: reset,
          retryAfterMs: (retryAfterSeconds ?? Math.ceil(reset)) * 1000,
          throttled: true,
        },
  });
  return (now: number): { ok: boolean; signal: QuotaSignal } => {
    if (model === 'bucket') {
      tokens = Math.min(limit, tokens + ((now - filledAt) * limit) / windowMs);
      filledAt = now;
      const ok = tokens >= 1;
      if (ok) tokens -= 1;
      // Reset: the time until the bucket is full again.
      return answer(ok, Math.floor(tokens), ((limit - tokens) * windowMs) / limit / 1000);
    }
    if (model === 'sliding-log') {
      while (log.length > 0 && log[0]! <= now - windowMs) log.shift();
      const ok = log.length < limit;
      if (ok) log.push(now);
      return answer(ok, limit - log.length, log.length === 0 ? 0 : (log[0]! + windowMs - now) / 1000);
    }
    if (model === 'sliding-counter') {
      const i = Math.floor(now / windowMs);
      if (i !== index) {
        before = i === index + 1 ? count : 0;
        count = 0;
        index = i;
      }
      const end = (i + 1) * windowMs;
      const weight = (end - now) / windowMs;
      const ok = before * weight + count < limit;
      if (ok) count++;
      const estimate = before * weight + count;
      // One more fits once the window before weighs `over` less, or at the next window.
      const over = estimate + 1 - limit;
      const fits = over <= 0 ? 0 : before > 0 ? Math.min(end - now, (over / before) * windowMs) : end - now;
      return answer(ok, Math.max(0, Math.floor(limit - estimate)), Math.max(fits, 1) / 1000);
    }
    if (model === 'counter') {
      if (now >= expiresAt) {
        expiresAt = now + windowMs;
        count = 0;
      }
    } else {
      const i = Math.floor(now / windowMs);
      if (i !== index) {
        index = i;
        count = 0;
        expiresAt = (i + 1) * windowMs;
      }
    }
    const ok = count < limit;
    if (ok) count++;
    return answer(ok, limit - count, (expiresAt - now) / 1000);
  };
}

interface Drive {
  readonly model: Model;
  readonly vendorLimit: number;
  readonly clientRate: number;
  readonly clientBurst: number;
  /** A round trip, the vendor counting the request 2 ms after it left; or one drawn per request. */
  readonly rttMs: number | (() => number);
  /** Offered load, a multiple of the vendor's quota. */
  readonly load: number;
  /** `none`: the vendor sends no quota header, only 429s (with Retry-After in seconds, or bare). */
  readonly headers?: 'x-ratelimit' | 'ietf' | 'remaining-only' | 'none' | 'none-retry-after';
  /** Virtual time claims arrive for. @default 30_000 */
  readonly endMs?: number;
  /** The first part, not measured. @default 5000 */
  readonly warmupMs?: number;
  /** The vendor's window; `vendorLimit` is what it allows in one. @default 1000 */
  readonly windowMs?: number;
  /** Each signal says its round trip (`roundTripMs`), as the router's do. @default false */
  readonly roundTrip?: boolean;
  /** The vendor counts a request 2 ms after it left, or half its round trip after (a symmetric path). @default 'short' */
  readonly wayThere?: 'short' | 'half';
  /** Before `load`: claims at `load` (this one) until `untilMs`, then none for `idleMs`. */
  readonly before?: { readonly load: number; readonly untilMs: number; readonly idleMs: number };
  /** A refusal's Retry-After, always the same (seconds), not the time to the reset. */
  readonly retryAfterSeconds?: number;
  /** X-RateLimit headers without the Limit. @default false */
  readonly withoutLimit?: boolean;
}

/** Claims arrive evenly at `load` times the quota for 30 s, each with an hour of budget, as the router sends them. */
async function drive(d: Drive): Promise<{
  goodput: number;
  throttled: number;
  refused: number;
  deadLettered: number;
  episodes: number;
  /** The rate in force at the end. */
  ratePerSecond: number;
}> {
  const clock = new VirtualClock();
  const limiter: Limiter = createLimiter({
    account: { ratePerSecond: d.clientRate, burst: d.clientBurst },
    clock,
  });
  const windowMs = d.windowMs ?? 1000;
  const perSecond = (d.vendorLimit * 1000) / windowMs;
  const arrive = vendor(d.model, d.vendorLimit, windowMs, d.retryAfterSeconds);
  const warmup = d.warmupMs ?? 5000;
  const end = d.endMs ?? 30_000;
  const headers = d.headers ?? 'x-ratelimit';
  let ok = 0;
  let refused = 0;
  let deadLettered = 0;
  // Refusals over the whole run, those within a second of the one before taken together.
  let episodes = 0;
  let refusedAt = Number.NEGATIVE_INFINITY;
  const attempt = (deadline: number): void => {
    limiter.acquire({ key: 'payer', lane: 'batch', deadline }).then(
      (lease) => {
        const rttMs = typeof d.rttMs === 'number' ? d.rttMs : d.rttMs();
        const upMs = d.wayThere === 'half' ? rttMs / 2 : 2;
        clock.setTimer(upMs, () => {
          const answer = arrive(clock.now());
          if (!answer.ok) {
            if (clock.now() - refusedAt > 1000) episodes++;
            refusedAt = clock.now();
          }
          if (clock.now() >= warmup && clock.now() < end) {
            if (answer.ok) ok++;
            else refused++;
          }
          clock.setTimer(rttMs - upMs, () => {
            lease.release();
            const q = answer.signal;
            if (headers === 'x-ratelimit') {
              // As the router: the reset was measured half a round trip ago.
              const { limit: _, ...withoutLimit } = q;
              limiter.observe({
                ...(d.withoutLimit === true ? withoutLimit : q),
                resetSeconds: Math.max(0, q.resetSeconds! - rttMs / 2000),
                ...(d.roundTrip ? { roundTripMs: rttMs } : {}),
              });
            } else if (headers === 'ietf') {
              // RateLimit-Policy q and w; RateLimit r and t, t in whole seconds rounded up.
              limiter.observe({
                ...q,
                resetSeconds: Math.max(0, Math.ceil(q.resetSeconds! - 1e-9) - rttMs / 2000),
                windowSeconds: windowMs / 1000,
                ...(d.roundTrip ? { roundTripMs: rttMs } : {}),
              });
            } else if (headers === 'remaining-only') {
              // Limit and Remaining, no reset; a refusal says Retry-After (whole seconds).
              limiter.observe({
                ...(answer.ok
                  ? { limit: q.limit!, remaining: q.remaining! }
                  : { limit: q.limit!, remaining: 0, throttled: true, retryAfterMs: q.retryAfterMs! }),
                ...(d.roundTrip ? { roundTripMs: rttMs } : {}),
              });
            } else if (!answer.ok) {
              limiter.observe(
                headers === 'none' ? { throttled: true } : { throttled: true, retryAfterMs: q.retryAfterMs! },
              );
            }
            if (!answer.ok && clock.now() < end) attempt(deadline);
          });
        });
      },
      (e: unknown) => {
        if (isDeadlineExceededError(e)) deadLettered++;
      },
    );
  };
  const b = d.before;
  let t = 0;
  if (b !== undefined) {
    for (; t < b.untilMs; t += 1000 / (perSecond * b.load))
      clock.setTimer(t, () => attempt(clock.now() + 3_600_000));
    t = b.untilMs + b.idleMs;
  }
  for (const every = 1000 / (perSecond * d.load); t < end; t += every)
    clock.setTimer(t, () => attempt(clock.now() + 3_600_000));
  await clock.advance(end);
  const { ratePerSecond } = await limiter.snapshot();
  limiter.close();
  await clock.runAll();
  return {
    ratePerSecond,
    goodput: ok / ((perSecond * (end - warmup)) / 1000),
    throttled: refused / Math.max(1, ok + refused),
    refused,
    deadLettered,
    episodes,
  };
}

/**
 * Round trips that vary as a slow vendor's do (median about 135 ms, one in a hundred over
 * 650 ms), seeded: most between 60 and 180 ms, one in five between 180 and 700 ms.
 */
function variedRoundTrips(seed: number): () => number {
  const r = seededRandom(seed);
  return () => (r() < 0.8 ? 60 + 120 * r() : 180 + 520 * r());
}

/**
 * Runs of a Remaining-only vendor, round trips said: seeds 1-6 (or those given), the limiter at
 * 10/s and 40/s, burst its rate (or the rates and bursts given), 1.5x and 3x, measured from 10 s
 * to 70 s (or over the span given).
 */
async function remainingOnlyRuns(o: {
  readonly model: Model;
  readonly vendorLimit: number;
  readonly windowMs: number;
  readonly rtt: (seed: number) => () => number;
  readonly wayThere?: 'short' | 'half';
  readonly seeds?: readonly number[];
  readonly clients?: readonly (readonly [rate: number, burst: number])[];
  readonly warmupMs?: number;
  readonly endMs?: number;
  readonly retryAfterSeconds?: number;
  /** What the vendor says. @default 'remaining-only' */
  readonly headers?: 'x-ratelimit' | 'remaining-only';
}): Promise<{ run: string; r: Awaited<ReturnType<typeof drive>> }[]> {
  const out: { run: string; r: Awaited<ReturnType<typeof drive>> }[] = [];
  for (const seed of o.seeds ?? [1, 2, 3, 4, 5, 6])
    for (const [clientRate, clientBurst] of o.clients ?? [
      [10, 10],
      [40, 40],
    ])
      for (const load of [1.5, 3]) {
        const r = await drive({
          model: o.model,
          vendorLimit: o.vendorLimit,
          windowMs: o.windowMs,
          clientRate,
          clientBurst,
          rttMs: o.rtt(seed),
          roundTrip: true,
          wayThere: o.wayThere ?? 'short',
          load,
          headers: o.headers ?? 'remaining-only',
          warmupMs: o.warmupMs ?? 10_000,
          endMs: o.endMs ?? 70_000,
          ...(o.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: o.retryAfterSeconds }),
        });
        const run = `seed ${seed}, limit ${clientRate}, ${load}x: ${(r.goodput * 100).toFixed(1)} %, ${(r.throttled * 100).toFixed(2)} % throttled, ${r.episodes} throttles`;
        out.push({ run, r });
      }
  return out;
}

/**
 * Runs of a Remaining-only vendor of 100 per 10 s at round trips of a slow API (p50 120 ms, p99
 * 600 ms said; seeds 1-6 unless told, limits 5 and 20, 1.5x and 3x), measured from 20 s to 140 s.
 */
function hundredPerTenSeconds(
  model: Model,
  o: {
    readonly seeds?: readonly number[];
    readonly warmupMs?: number;
    readonly retryAfterSeconds?: number;
  } = {},
): ReturnType<typeof remainingOnlyRuns> {
  return remainingOnlyRuns({
    model,
    ...(o.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: o.retryAfterSeconds }),
    vendorLimit: 100,
    windowMs: 10_000,
    rtt: (seed) => logNormalRoundTrips(seed, 120, 600),
    ...(o.seeds === undefined ? {} : { seeds: o.seeds }),
    clients: [
      [5, 5],
      [20, 10],
    ],
    warmupMs: o.warmupMs ?? 20_000,
    endMs: 140_000,
  });
}

/**
 * The runs under a floor: goodput under `goodput`, throttled over `throttled`, more refused than
 * `refused` or more throttles than `episodes` (each where given), or anybody dead-lettered.
 */
function missedRuns(
  runs: readonly { readonly run: string; readonly r: Awaited<ReturnType<typeof drive>> }[],
  floor: {
    readonly goodput?: number;
    readonly throttled?: number;
    readonly refused?: number;
    readonly episodes?: number;
  },
): string[] {
  return runs
    .filter(
      ({ r }) =>
        r.goodput < (floor.goodput ?? 0) ||
        r.throttled > (floor.throttled ?? 1) ||
        r.refused > (floor.refused ?? Number.POSITIVE_INFINITY) ||
        r.episodes > (floor.episodes ?? Number.POSITIVE_INFINITY) ||
        r.deadLettered > 0,
    )
    .map(({ run }) => run);
}

/**
 * Runs of a Remaining-only vendor at slow round trips (p50 300 ms, p99 1.5 s said; seeds 1-8,
 * limits 10 and 40, 1.5x and 3x) held to a floor in every run (goodput, and throttled where given;
 * nobody dead-lettered) and to the goal (>= 98 %, <= 0.5 %) in `met` of the 32 at least.
 */
async function slowRunsHold(
  vendor: { readonly model: Model; readonly vendorLimit: number; readonly windowMs: number },
  floor: { readonly goodput: number; readonly throttled?: number; readonly met: number },
): Promise<void> {
  const runs = await remainingOnlyRuns({
    ...vendor,
    rtt: (seed) => logNormalRoundTrips(seed, 300, 1500),
    seeds: [1, 2, 3, 4, 5, 6, 7, 8],
  });
  assert.deepEqual(missedRuns(runs, floor), []);
  const met = runs.filter(({ r }) => r.goodput >= 0.98 && r.throttled <= 0.005).length;
  assert.ok(met >= floor.met, `${met} of 32 runs at the goal`);
}

/**
 * A bucket of 10 refilled at 20/s, Remaining only, round trips of a slow API said, counted as a
 * request leaves (`short`) or half way: seeds 1-6, the limiter at 10/s and 40/s, 1.5x and 3x.
 */
const bucketRuns = (wayThere: 'short' | 'half') =>
  remainingOnlyRuns({
    model: 'bucket',
    vendorLimit: 10,
    windowMs: 500,
    rtt: (seed) => logNormalRoundTrips(seed),
    wayThere,
  });

/** A limiter (10/s) on a virtual clock, and `at`: another answer of a vendor of 10 at a time. */
function answeredAt() {
  const clock = new VirtualClock();
  const limiter = createLimiter({ account: { ratePerSecond: 10, burst: 10 }, clock });
  const at = async (t: number, signal: QuotaSignal) => {
    await clock.advanceTo(t);
    limiter.observe({ limit: 10, ...signal });
  };
  return { clock, limiter, at };
}

/**
 * A limiter (10/s) told twice that a `Remaining: 0` is followed, once its reset passed, by the
 * whole quota back (a fixed window), the last answer at 750 ms with `last` added; `at` tells it
 * another answer at a time.
 */
async function fixedWindowLearned(last: Partial<QuotaSignal> = {}) {
  const { clock, limiter, at } = answeredAt();
  await at(0, { remaining: 9, resetSeconds: 0.99 });
  await at(100, { remaining: 0, resetSeconds: 0.3 });
  await at(450, { remaining: 9, resetSeconds: 0.95 });
  await at(500, { remaining: 0, resetSeconds: 0.2 });
  await at(750, { remaining: 9, resetSeconds: 0.9, ...last });
  return { clock, limiter, at };
}

describe('issue #14: the limiter against the quotas real vendors keep', () => {
  /**
   * A 1 s sliding log of `vendorLimit` saying `headers`, counting a request half its round trip
   * after it left, round trips of a fast API (5-15 ms, one in ten 15-50 ms), each seed at 1.5x
   * and 3x for each configured limit and burst: at least `least` of the quota, at most 0.5 %
   * throttled, nothing dead-lettered.
   */
  async function jitteredLog(
    headers: 'x-ratelimit' | 'remaining-only',
    vendorLimit: number,
    seeds: readonly number[],
    clients: readonly (readonly [number, number])[],
    least: number,
  ): Promise<void> {
    for (const seed of seeds)
      for (const load of [1.5, 3])
        for (const [clientRate, clientBurst] of clients) {
          const r = seededRandom(seed);
          const rtt = () => (r() < 0.9 ? 5 + 10 * r() : 15 + 35 * r());
          const out = await drive({
            model: 'sliding-log',
            vendorLimit,
            clientRate,
            clientBurst,
            load,
            rttMs: rtt,
            wayThere: 'half',
            roundTrip: true,
            headers,
            endMs: 120_000,
            warmupMs: 30_000,
          });
          const run = `seed ${seed}, ${load}x, limit ${clientRate}`;
          assert.ok(out.goodput >= least, `${run}: ${(out.goodput * 100).toFixed(1)} % of the quota`);
          assert.ok(out.throttled <= 0.005, `${run}: ${(out.throttled * 100).toFixed(2)} % throttled`);
          assert.equal(out.deadLettered, 0, run);
        }
  }

  it('a sliding log that counts a request half a round trip after it left (a symmetric path), round trips of a fast API: the margin is learned between throttles, >= 95 %, <= 0.5 % throttled', async () => {
    // Before: 63.4-65.7 % of the quota, 2.47-2.73 % throttled. The way there varies by a few to
    // twenty milliseconds, more than the 10 ms a 99 % pace leaves of a 1 s window, so a throttle
    // came every few seconds, each a second's pause, and five windows after a pause never came:
    // no throttle counted as one at a steady pace, and the margin never moved.
    await jitteredLog('x-ratelimit', 20, [1, 2, 3], [[40, 20]], 0.95);
  });

  it('the same log saying only Limit and Remaining: the margin is learned from throttles soon after pauses too, >= 95 %, <= 0.5 % throttled', async () => {
    // Before: 63.4-66.8 % of the quota, 0.42-2.73 % throttled. The window read from our sends
    // stood at 99 %; throttled 1-3 s after each pause's quiet second, never at a pace that held
    // for five windows, so the margin never moved, and the second such throttle in a row dropped
    // the window, read again at 99 % a second later.
    await jitteredLog(
      'remaining-only',
      20,
      [1, 2, 3],
      [
        [10, 10],
        [40, 20],
      ],
      0.95,
    );
  });

  it("a log of 50 saying only Limit and Remaining, the same path: a throttle at the window's own pace is the path's jitter even after our start-up burst was throttled under it, >= 94 %, <= 0.5 % throttled", async () => {
    // Before: seed 4, 3x, limit 25/s (burst 25): 71.7 %. The start-up burst's throttle, its
    // bound 48/s (what went over the second before it), was the least of the throttles kept, and
    // each later throttle at 49.25/s was judged against it: not at the window's pace, so the
    // window was dropped, the rate halved, and read again, again and again.
    await jitteredLog(
      'remaining-only',
      50,
      [1, 2, 3, 4],
      [
        [25, 25],
        [100, 50],
      ],
      0.94,
    );
  });

  it('a 1 s sliding window of 20/s gets >= 98 % of its quota whatever the configured limit, with <= 0.5 % throttled', async () => {
    for (const clientRate of [10, 20, 25, 40]) {
      const r = await drive({
        model: 'sliding-log',
        vendorLimit: 20,
        clientRate,
        clientBurst: clientRate,
        rttMs: 120,
        load: 3,
      });
      assert.ok(r.goodput >= 0.98, `--limit ${clientRate}: ${(r.goodput * 100).toFixed(1)} % of the quota`);
      assert.ok(r.throttled <= 0.005, `--limit ${clientRate}: ${(r.throttled * 100).toFixed(2)} % throttled`);
      assert.equal(r.deadLettered, 0);
    }
  });

  it('Remaining without a reset, the limit set above the quota: one throttle ends the search, the rate stays under the rate throttled', async () => {
    // Before: each throttle capped the rate at what the vendor seemed to accept (a fixed
    // window's accepted + remaining moves in steps) and that cap never rose again: a fixed
    // window of 20/s stuck at 10/s after one throttle (78.6 % in the zoo).
    for (const model of ['fixed-window', 'sliding-log'] as const) {
      const r = await drive({
        model,
        vendorLimit: 20,
        clientRate: 40,
        clientBurst: 20,
        rttMs: 30,
        load: 1.5,
        headers: 'remaining-only',
        warmupMs: 10_000,
        endMs: 60_000,
      });
      assert.ok(r.goodput >= 0.97, `${model}: ${(r.goodput * 100).toFixed(1)} % of the quota`);
      assert.ok(r.throttled <= 0.005, `${model}: ${(r.throttled * 100).toFixed(2)} % throttled`);
      assert.equal(r.deadLettered, 0);
    }
  });

  it("Remaining without a reset from a bucket (20/s, 10 at most), round trips of a slow API (p50 120 ms, p99 600 ms) said: what it frees is read where each answered request was counted (>= 98 %, <= 0.5 %, three throttles at most: the start-up burst's, the one that ends the drain, one more)", async () => {
    // Before: what the vendor freed was read from the answers in the order they came back, each
    // against what had come back by then: an answer 450 ms late put 3 more on the last reading,
    // and a drain of 20/s read 23.2/s; paced at 98.5 % of that, the bucket throttled again.
    // 15 of these 24 runs had three or four throttles, three under 98 % (96.6 % at worst). Now
    // 98.7-100.6 %, three throttles in one run.
    const misses = missedRuns(await bucketRuns('short'), { goodput: 0.98, throttled: 0.005, episodes: 3 });
    assert.deepEqual(misses, []);
  });

  it('the same bucket counting each request half way (a symmetric path): the way there that fits the answers best is read (>= 96.5 % in every run, >= 98 % in 20 of 24, <= 0.5 % throttled)', async () => {
    // Before: 12 of these 24 runs under 98 % (94.3 % at worst). Now 2 (96.8 and 97.0 %): the
    // way there is read, but requests still on their way are not in the count.
    const runs = await bucketRuns('half');
    const misses = missedRuns(runs, { goodput: 0.965, throttled: 0.005 });
    const under = runs.filter(({ r }) => r.goodput < 0.98).length;
    assert.deepEqual(misses, []);
    assert.ok(under <= 4, `${under} of 24 runs under 98 %`);
  });

  it('Remaining without a reset from a fixed window of 20 a second, round trips of p50 300 ms and p99 1.5 s said: resets read in the order sent, timed half way between the sends read either side (the goal, >= 98 % and <= 0.5 %, in every run)', async () => {
    // Before: resets were weighed against the least rise that counts as one (5 of 20), not the
    // rise each showed (shortestResetWindowMs), and answers out of order read as a window far
    // shorter than 1 s: seed 8 at 3x, limit 10, 86.8 % and 2.16 % throttled (now 91.0 %, 0.82 %);
    // limit 40, 93.7 % and 1.32 % (now 97.4 %, 0.09 %). Where the goal is missed, one throttle
    // ends the climb just before the measured minute (a second's pause, 1.7 % of it) and the pace
    // is held at 98.5 % of the rate throttled: 97.4 %, in 17 of these 32 runs. Session 24: read
    // as they came back, answers out of order were taken for resets (12 in the first 8 s of seed
    // 8), timed up to a round trip late, never clustered in phase, and a run of answers off by
    // up to 9 of 20 stood as a 500 ms window: paced at 39.6/s, five throttles (91.0 %). Read in
    // the order sent, the window is read in the first seconds: 15 -> 32 of 32 at the goal.
    await slowRunsHold(
      { model: 'fixed-window', vendorLimit: 20, windowMs: 1000 },
      { goodput: 0.98, throttled: 0.005, met: 32 },
    );
  });

  it('Remaining without a reset from a counter with an expiry (20 a window), round trips of p50 300 ms and p99 1.5 s said: the goal in every run', async () => {
    // Read as they came back, 16 of 32 (the worst 94.5 %); in the order sent, 32.
    await slowRunsHold(
      { model: 'counter', vendorLimit: 20, windowMs: 1000 },
      { goodput: 0.98, throttled: 0.005, met: 32 },
    );
  });

  it("Remaining without a reset from a sliding log of 50 a second, round trips of p50 300 ms and p99 1.5 s said: a throttle's bound that Remaining then shows stale does not hold the pace (>= 90 % and <= 0.5 % in every run; the goal in 28 of 32)", async () => {
    // Before: seeds 4 and 8 at limit 40, 1.5x, were throttled at 20/s while the start-up burst
    // (40/s) was still in the log, and held at 19.7/s for good with 30 of 50 left at every answer
    // for a minute: 39.4 % (now 93.4 % and 90.9 %: the bound goes once Remaining has sat still
    // long enough to be sure, 15.6 s and 17.3 s in). Where the goal is missed, the climb after the
    // start-up throttle ends after the measured minute began (seed 1 at limit 40: 96.9 % and
    // 97.0 %); not fixed.
    await slowRunsHold(
      { model: 'sliding-log', vendorLimit: 50, windowMs: 1000 },
      { goodput: 0.9, throttled: 0.005, met: 28 },
    );
  });

  it('Remaining without a reset from a bucket of 50 refilled at 20/s (Retry-After until full), round trips of p50 300 ms and p99 1.5 s said: no fixed window read from resets its pauses made slower than its drain (>= 90 % in every run; the goal in 11 of 32, a known limit)', async () => {
    // Before: seed 2, limit 10, 1.5x read 50 per 5 s after its drain was read at 20.06/s, paced
    // at 9.9/s for 16 s: 75.8 % (now 93.9 %). The goal is missed where a throttle falls in the
    // measured minute: its Retry-After (until the bucket is full) is 3 s, 5 % of it; not fixed.
    // Session 24: the probe over a drain's bound spends what the bucket stored (8 -> 11 at the
    // goal), and resets read in the order sent (the worst 80.3 -> 91.0 %).
    await slowRunsHold({ model: 'bucket', vendorLimit: 50, windowMs: 2500 }, { goodput: 0.9, met: 11 });
  });

  it('a vendor quota (5/s) below the client limit: a reset that frees one request gives one back, not the burst', async () => {
    const r = await drive({
      model: 'sliding-log',
      vendorLimit: 5,
      clientRate: 10,
      clientBurst: 10,
      rttMs: 60,
      load: 3,
    });
    assert.ok(r.throttled <= 0.005, `${(r.throttled * 100).toFixed(2)} % throttled`);
    assert.ok(r.goodput >= 0.98, `${(r.goodput * 100).toFixed(1)} %`);
  });

  it('property: sliding log or fixed window, any configured limit, burst and round trip: >= 98 % of the quota, <= 0.5 % throttled, nobody dead-lettered', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Model>('sliding-log', 'fixed-window'),
        // (At 5/s a request is 0.8 % of the 25 s measured: the 5/s vendor has its own test.)
        fc.constantFrom(10, 20),
        fc.integer({ min: 2, max: 60 }),
        fc.integer({ min: 1, max: 30 }),
        // Round trips shorter than the vendor's interval between requests. (Longer, a request
        // in flight across a fixed window's reset is counted against the window it left, and up
        // to one request a window is lost: 97.4 % at 88 ms on 20/s, 94.8 % at 182 ms on 10/s.
        // The zoo's slow vendors, p50 120 ms, still reach 98.3 %: their round trips vary.)
        fc.integer({ min: 5, max: 45 }),
        fc.constantFrom(1.5, 3),
        async (model, vendorLimit, clientRate, clientBurst, rttMs, load) => {
          const r = await drive({ model, vendorLimit, clientRate, clientBurst, rttMs, load });
          assert.ok(r.goodput >= 0.98, `${(r.goodput * 100).toFixed(1)} % of the quota`);
          assert.ok(r.throttled <= 0.005, `${(r.throttled * 100).toFixed(2)} % throttled`);
          assert.equal(r.deadLettered, 0, 'claims with budget left dead-lettered');
        },
      ),
      { numRuns: 12 },
    );
  });

  it("a fixed window at round trips that vary (p50 ~135 ms, p99 ~650 ms): with each answer's round trip, Remaining is not counted twice and a pause at 0 ends where the answers bound the window (>= 97 %, <= 0.5 %)", async () => {
    // The runs that lost most before: 92.5-95.0 % each, the requests in flight that went
    // before an answer counted again against its Remaining, and each pause at 0 ending at one
    // answer's guess of the reset (half its round trip late, or more).
    const runs: readonly [
      seed: number,
      vendorLimit: number,
      load: number,
      clientRate: number,
      clientBurst: number,
    ][] = [
      [2, 10, 1.5, 5, 5],
      [2, 10, 3, 5, 5],
      [2, 20, 3, 10, 10],
      [3, 10, 1.5, 20, 10],
      [3, 10, 3, 5, 5],
      [5, 10, 1.5, 5, 5],
      [5, 20, 1.5, 40, 20],
    ];
    for (const [seed, vendorLimit, load, clientRate, clientBurst] of runs) {
      const r = await drive({
        model: 'fixed-window',
        vendorLimit,
        clientRate,
        clientBurst,
        rttMs: variedRoundTrips(seed),
        load,
        roundTrip: true,
        endMs: 60_000,
        warmupMs: 10_000,
      });
      const run = `seed ${seed}, ${vendorLimit}/s, ${load}x, limit ${clientRate}`;
      assert.ok(r.goodput >= 0.97, `${run}: ${(r.goodput * 100).toFixed(1)} % of the quota`);
      assert.ok(r.throttled <= 0.005, `${run}: ${(r.throttled * 100).toFixed(2)} % throttled`);
      assert.equal(r.deadLettered, 0);
    }
  });

  it('learns whether Remaining 0 means full until the reset: a fixed window then holds the next request back until it', async () => {
    const { limiter, at } = await fixedWindowLearned();
    // Now one left, one in flight: nothing for us until the reset, 300 ms away.
    const lease = await limiter.acquire({ key: 'p' });
    await at(800, { remaining: 1, resetSeconds: 0.3 });
    assert.equal((await limiter.snapshot()).pausedUntil, 1100);
    assert.equal(await limiter.tryAcquire({ key: 'p' }), undefined);
    lease.release();
  });

  it('a whole-second reset back after a round trip of that reset or more is from a window that is over: no pause at 0, until a refusal of a request admitted while it said nothing was left', async () => {
    const { limiter, at } = await fixedWindowLearned();
    const lease = await limiter.acquire({ key: 'p' });
    // t = 1, back after 1.1 s: the reset reads 0.45 s, one left and one in flight. Counted as it
    // arrived, that window ended 0.1 s ago: no pause.
    await at(800, { remaining: 1, resetSeconds: 1 - 1.1 / 2, roundTripMs: 1100 });
    assert.ok((await limiter.snapshot()).pausedUntil <= 800, 'not paused');
    // A request admitted at 850, within the 0.45 s that answer spoke of, refused: the vendor
    // counts later than on arrival, and that window was in force.
    await at(900, { remaining: 0, resetSeconds: 0.1, throttled: true, retryAfterMs: 1000, roundTripMs: 50 });
    await at(2100, { remaining: 1, resetSeconds: 1 - 1.1 / 2, roundTripMs: 1100 });
    assert.ok((await limiter.snapshot()).pausedUntil > 2100, 'taken at its word now');
    lease.release();
  });

  it('a fixed window that starts at the first request after the last one ended (a counter with an expiry), round trips that vary: with the round trips said, >= 98 %, <= 0.5 % throttled', async () => {
    // 87.4-90.2 % without round trips. With them, a pause at 0 that ended where the answers
    // bound the window started the next window late by the shortest way back: 89.6-93.2 %. It
    // ends where a request sent then is counted after the end (WindowEnd's `due`): 98.6-99.0 %.
    for (const seed of [1, 2, 3, 5])
      for (const load of [1.5, 3]) {
        const d = {
          model: 'counter' as const,
          vendorLimit: 10,
          clientRate: 5,
          clientBurst: 5,
          load,
          endMs: 60_000,
          warmupMs: 10_000,
        };
        const without = await drive({ ...d, rttMs: variedRoundTrips(seed) });
        const said = await drive({ ...d, rttMs: variedRoundTrips(seed), roundTrip: true });
        const run = `seed ${seed}, ${load}x`;
        assert.ok(said.goodput >= without.goodput, `${run}: ${said.goodput} < ${without.goodput}`);
        assert.ok(said.goodput >= 0.98, `${run}: ${(said.goodput * 100).toFixed(1)} %`);
        assert.ok(said.throttled <= 0.005, `${run}: ${(said.throttled * 100).toFixed(2)} % throttled`);
        assert.equal(said.deadLettered, 0, run);
      }
  });

  it('a counter with an expiry after an idle spell (0.9x, 5 s of nothing, then 1.5x or 3x): a throttle that no early pause end caused leaves the pause at 0 ending where a request sent then is counted after the end (>= 98 %, <= 0.5 %)', async () => {
    // After the idle spell a late answer of a window can reopen its budget, and a few requests
    // are throttled (old rule and new alike). Before, any throttle at a fixed window sent every
    // later pause back to the latest bound on the window's end: 96.3 % (20/s, seed 1, 3x; a
    // review's own harness, 0.9x then 3x: 95.7-96.7 %). Now only a refusal of a request admitted
    // between a pause's `due` and its window's `high` does (WindowEnd's `refused`).
    for (const vendorLimit of [10, 20])
      for (const seed of [1, 2, 3])
        for (const load of [1.5, 3]) {
          const r = await drive({
            model: 'counter',
            vendorLimit,
            clientRate: 2 * vendorLimit,
            clientBurst: vendorLimit,
            load,
            rttMs: logNormalRoundTrips(seed),
            roundTrip: true,
            before: { load: 0.9, untilMs: 15_000, idleMs: 5000 },
            warmupMs: 25_000,
            endMs: 85_000,
          });
          const run = `${vendorLimit}/s, seed ${seed}, ${load}x`;
          assert.ok(r.goodput >= 0.98, `${run}: ${(r.goodput * 100).toFixed(1)} %`);
          assert.ok(r.throttled <= 0.005, `${run}: ${(r.throttled * 100).toFixed(2)} % throttled`);
          assert.equal(r.deadLettered, 0, run);
        }
  });

  it('with round trips said: requests admitted with the answered one, in the same pass, are not in its Remaining (the caller reads its clock a little later)', async () => {
    // A fixed window, learned as in the test above; from the last answer on, each says its
    // round trip (the limiter logs its admissions).
    const { clock, limiter, at } = await fixedWindowLearned({ roundTripMs: 1 });
    // Four admitted at once at 1200 (the tokens of the 450 ms before); the first one's answer
    // at 1300 says 3 left, the window ending at 1650. The caller read its clock half a
    // millisecond after the admission (its round trip: 99.5 ms). The other three went with it
    // and are not in that 3: nothing is left until the reset.
    await clock.advanceTo(1200);
    const leases = [];
    for (let i = 0; i < 4; i++) {
      const l = await limiter.tryAcquire({ key: 'p' });
      assert.ok(l !== undefined, `admission ${i + 1} at once`);
      leases.push(l);
    }
    await at(1300, { remaining: 3, resetSeconds: 0.3, roundTripMs: 99.5 });
    assert.ok((await limiter.snapshot()).pausedUntil > 1300, 'paused until the reset');
    assert.equal(await limiter.tryAcquire({ key: 'p' }), undefined);
    for (const l of leases) l.release();
  });

  it('what is left before a near reset, once the requests in flight land, is all that goes before it (the wait predicted so)', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 10, burst: 10 }, clock });
    limiter.observe({ limit: 10, remaining: 9, resetSeconds: 0.99 });
    const out = await limiter.acquire({ key: 'p' });
    // 3 left, 1 of ours in flight: 2 more may go before the reset in 300 ms; the next waits for it.
    limiter.observe({ limit: 10, remaining: 3, resetSeconds: 0.3 });
    const times: number[] = [];
    const all = [0, 1, 2].map(() => limiter.acquire({ key: 'p' }).then(() => times.push(clock.now())));
    assert.equal(await limiter.predictWait({ key: 'p' }), 300);
    await clock.runAll();
    await Promise.all(all);
    assert.deepEqual(times, [0, 0, 300]);
    out.release();
  });

  it('a vendor whose Remaining 0 does not mean full (a sliding counter) is paused once, then paced', async () => {
    const { limiter, at } = answeredAt();
    await at(0, { remaining: 9, resetSeconds: 0.99 });
    await at(100, { remaining: 0, resetSeconds: 0.3 });
    assert.equal((await limiter.snapshot()).pausedUntil, 400, 'the first 0: wait and see');
    await at(450, { remaining: 1, resetSeconds: 0.5 });
    await at(500, { remaining: 0, resetSeconds: 0.3 });
    assert.equal((await limiter.snapshot()).pausedUntil, 0, 'learned: 0 is not full here');
  });

  it('a reset of 0.001 s said without a round trip (nothing taken off it) is no window of 1 ms', async () => {
    // Before (9b36b15): read as 100 per 1 ms, the rate went to 99,000/s.
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 5, burst: 5 }, clock });
    for (let i = 0; i < 60; i++) {
      limiter.observe({ limit: 100, remaining: 99 - i, resetSeconds: 0.001 });
      await clock.advance(100);
    }
    assert.ok(
      (await limiter.snapshot()).ratePerSecond <= 20,
      `${(await limiter.snapshot()).ratePerSecond}/s`,
    );
    limiter.close();
  });

  it('a bucket that says Remaining and a reset but no Limit keeps the configured rate as its ceiling, whatever its first resets read', async () => {
    // A full bucket's first answers read a reset of 0 (its time to full less half a round trip),
    // and Remaining was read over time from them. Before, that reading stayed once the bucket's
    // resets said a window, and with no Limit to make a ceiling its rate became one: 40 -> 20/s.
    const rates: string[] = [];
    for (const seed of [1, 2, 3]) {
      const r = await drive({
        model: 'bucket',
        vendorLimit: 20,
        clientRate: 40,
        clientBurst: 20,
        rttMs: logNormalRoundTrips(seed, 300, 1500),
        roundTrip: true,
        load: 1.5,
        withoutLimit: true,
      });
      if (r.ratePerSecond !== 40) rates.push(`seed ${seed}: ${r.ratePerSecond}/s`);
    }
    assert.deepEqual(rates, []);
  });

  it('a fixed window whose first answers all come from its last moments (a reset of 0 with half or less left) is read as a window once a reset with room says one', async () => {
    // A backlog sent 150 ms before a window's end, round trips of 200 ms: every answer of that
    // window reads a reset of 0 (less half the round trip), as a next-fit reset does. Before
    // (9b36b15) the vendor stayed marked for good and its resets were never read as a window.
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 40, burst: 20 }, clock });
    await clock.advance(850);
    for (let i = 0; i < 20; i++) {
      limiter.observe({ limit: 20, remaining: 19 - i, resetSeconds: 0, roundTripMs: 200 });
      await clock.advance(2);
    }
    await clock.advance(300);
    limiter.observe({ limit: 20, remaining: 19, resetSeconds: 0.95, roundTripMs: 200 });
    // 20 per 1 s (the reset rounded up to the window vendors configure), at 99 %.
    assert.equal((await limiter.snapshot()).ratePerSecond, 19.8);
    limiter.close();
  });

  it('a sliding counter of 100 per 10 s (Remaining only, round trips of a slow API) read as a bucket at a throttle is not held under that drain: >= 95 % in every run', async () => {
    // At a throttle after a pause, Remaining had fallen while the counter's windows took unequal
    // counts, and its level (accepted + left) rose at what the window before took, as a bucket's
    // refill would: read as a bucket of 7/s, then held there for a minute (90.2 %, seed 6; 94.8
    // and 95.1 % on seeds 3 and 5; now 95.6-96.6 % in those).
    const runs = await hundredPerTenSeconds('sliding-counter');
    assert.deepEqual(missedRuns(runs, { goodput: 0.95, throttled: 0.005 }), []);
  });

  it('an X-RateLimit sliding counter whose reset is the time until one more fits (0.001 s while there is room), 100 per 10 s and 600 per 60 s, round trips of a slow API: read from Remaining, >= 96 %, <= 0.5 % throttled but one run', async () => {
    // Before: at 5/s configured exactly 50.0 % in every run (no reset said a window while there
    // was room, so the advertised limit never became the ceiling and nothing lifted the
    // configured rate); at 20/s 93.9-99.6 % but 6.1-14.8 % throttled (once spent, the reset is the
    // time to the next request, read as a window of a few hundred ms). Now read as the same vendor
    // saying Limit and Remaining alone is (the same runs to the decimal, compared by hand; not
    // asserted here): 96.3-99.0 %. One run, 600 per 60 s at 5/s and 3x on seed 3, is throttled
    // 1.82 % (34 throttles), as without the reset: its first window, a fixed one (no window
    // before it to weigh), was spent in 20 s, and the rate read from Remaining then (74/s) came
    // down 1.5 % a throttle after the pause.
    const runs: Awaited<ReturnType<typeof remainingOnlyRuns>> = [];
    for (const windowMs of [10_000, 60_000])
      for (const { run, r } of await remainingOnlyRuns({
        model: 'sliding-counter',
        headers: 'x-ratelimit',
        vendorLimit: windowMs / 100,
        windowMs,
        rtt: (seed) => logNormalRoundTrips(seed, 120, 600),
        seeds: [1, 2, 3],
        clients: [
          [5, 5],
          [20, 10],
        ],
        // A window of warm-up: the counter's first window has none before it to weigh.
        warmupMs: windowMs === 60_000 ? 60_000 : 20_000,
        endMs: windowMs === 60_000 ? 360_000 : 140_000,
      }))
        runs.push({ run: `${windowMs / 1000} s, ${run}`, r });
    assert.deepEqual(missedRuns(runs, { goodput: 0.96, throttled: 0.02 }), []);
    const over = runs.filter(({ r }) => r.throttled > 0.005).map(({ run }) => run);
    assert.ok(over.length <= 1, over.join('; '));
  });

  it('a fixed window or an expiring counter of 100 per 10 s (Remaining only, round trips of a slow API) is not sent to once what it has left is spent by the requests in flight: half the refusals', async () => {
    // The bucket's refill went on sending at the rate in force until the first refusal came
    // back: 2-4 refused at each window's end until the window was read from its resets (169
    // refused in the 32 runs' measured spans, 0.25-0.61 % each; now 79, 0.08-0.61 %). Since the
    // window is read from the second window's refusal (refusal-window.ts), none is refused after
    // 20 s either way, so the runs are measured from their start: 186 refused without the hold,
    // 76 with it.
    let refused = 0;
    const misses: string[] = [];
    for (const model of ['fixed-window', 'counter'] as const) {
      const runs = await hundredPerTenSeconds(model, { seeds: [1, 2, 3, 4], warmupMs: 0 });
      for (const { r } of runs) refused += r.refused;
      for (const run of missedRuns(runs, { throttled: 0.0065 })) misses.push(`${model}, ${run}`);
    }
    assert.deepEqual(misses, []);
    assert.ok(refused <= 100, `${refused} refused`);
  });

  it("a counter with an expiry of 100 per 10 s (Remaining only, round trips of a slow API): its window is read from a window's start and a refusal's Retry-After, not four resets later: no refusal once measured, >= 97 % in every run, the goal in 14 of 24", async () => {
    // Each window starts at our first request after the last one ended; a refusal's Retry-After
    // (whole seconds, rounded up) pauses us past that end, so its resets drift against any phase
    // and their intervals run up to a second over the window. Read from four of them (40 s and
    // more), each window until then cost that second: 94.3-98.2 %, 0.17-0.61 % throttled, the
    // goal in 3 of 24 (now 97.2-98.8 %, none refused after 20 s, the goal in 15). What is left:
    // the first window's start is not seen (a fixed window began before our first request), so
    // the second window's refusal reads it, and its Retry-After, whole seconds, overshoots.
    const runs = await hundredPerTenSeconds('counter');
    assert.deepEqual(missedRuns(runs, { goodput: 0.97, refused: 0 }), []);
    const met = runs.filter(({ r }) => r.goodput >= 0.98).length;
    assert.ok(met >= 14, `${met} of 24 runs at the goal`);
  });

  it('a fixed window or an expiring counter of 100 per 10 s whose Retry-After is always 1 s (Remaining only, round trips of a slow API): a probe refused while the vendor is spent still says nothing of the rate (>= 97 %, <= 0.5 % in every run)', async () => {
    // Many gateways answer every 429 with `Retry-After: 1`, whatever is left of the window. Each
    // probe after such a pause, refused while the window was spent, was read as a throttle at the
    // rate in force and halved it: 2-5/s at the window's reset, where nothing refuses a rate that
    // low to say otherwise (24.3-99.0 %, 74 % on average, 0 throttled once measured). Now such a
    // refusal leaves the rate alone, and the window is read from where the vendor last refused
    // and first accepted again (97.7-99.0 %, <= 0.26 % throttled; a hold of one request after each such pause was
    // tried, and changed nothing the window read did not).
    const misses: string[] = [];
    for (const model of ['fixed-window', 'counter'] as const) {
      const runs = await hundredPerTenSeconds(model, { seeds: [1, 2, 3, 4], retryAfterSeconds: 1 });
      for (const run of missedRuns(runs, { goodput: 0.97, throttled: 0.005 }))
        misses.push(`${model}, ${run}`);
    }
    assert.deepEqual(misses, []);
  });

  it('spent and freeing nothing, a probe answered late: that one request goes until its answer, not the tokens banked meanwhile', async () => {
    // A fixed window of 100 (Limit and Remaining only) with 80 left, our requests answered 50 ms
    // after they leave; from the first that finds nothing left on, 2 s after. The limiter at
    // 20/s, burst 10, 100 claims waiting. Without a hold, one every 50 ms went into the spent
    // window until the first refusal came back; held a second, then a probe alone for 500 ms (a
    // first form), the 9 tokens banked meanwhile went at once after it.
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 20, burst: 10 }, clock });
    const sent: number[] = [];
    let counted = 20;
    let spentAt = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 100; i++)
      void limiter.acquire({ key: 'p', lane: 'batch', deadline: 3_600_000 }).then(
        (lease) => {
          const at = clock.now();
          sent.push(at);
          const ok = counted < 100;
          if (ok) counted++;
          if (!ok) spentAt = Math.min(spentAt, at);
          const rtt = at >= spentAt ? 2000 : 50;
          clock.setTimer(rtt, () => {
            lease.release();
            limiter.observe(
              ok
                ? { limit: 100, remaining: 100 - counted, roundTripMs: rtt }
                : { limit: 100, remaining: 0, throttled: true, retryAfterMs: 60_000, roundTripMs: rtt },
            );
          });
        },
        () => {},
      );
    await clock.advance(10_000);
    const after = sent.filter((t) => t >= spentAt);
    limiter.close();
    await clock.runAll();
    assert.ok(Number.isFinite(spentAt), 'the window was spent');
    // The first request that found it spent is the probe; its refusal (2 s later) pauses a minute.
    assert.ok(
      after.length <= 3,
      `sent after the window was spent: ${after.map((t) => t - spentAt).join(', ')} ms`,
    );
  });

  it('a vendor that sends no quota header, only 429s (bare, or with Retry-After): >= 90 % of its quota, <= 3 % throttled', async () => {
    for (const model of ['sliding-log', 'fixed-window'] as const) {
      for (const headers of ['none', 'none-retry-after'] as const) {
        // The user guessed twice the quota.
        const r = await drive({
          model,
          vendorLimit: 20,
          clientRate: 40,
          clientBurst: 20,
          rttMs: 120,
          load: 3,
          headers,
          endMs: 70_000,
          warmupMs: 10_000,
        });
        const label = `${model}, ${headers}`;
        assert.ok(r.goodput >= 0.9, `${label}: ${(r.goodput * 100).toFixed(1)} % of the quota`);
        assert.ok(r.throttled <= 0.03, `${label}: ${(r.throttled * 100).toFixed(2)} % throttled`);
        assert.equal(r.deadLettered, 0);
      }
    }
  });

  it('no quota headers, bare 429s, a long window (600 per 60 s): a wall of throttles is waited out and probed, not cut to the floor (>= 90 %, <= 3 %)', async () => {
    const got: string[] = [];
    for (const model of ['sliding-log', 'fixed-window'] as const) {
      for (const load of process.env.P ? [1.5] : [1.5, 3]) {
        // The user guessed twice the quota.
        const r = await drive({
          model,
          vendorLimit: 600,
          windowMs: 60_000,
          clientRate: 20,
          clientBurst: 10,
          rttMs: 120,
          load,
          headers: 'none',
          endMs: 660_000,
          warmupMs: 60_000,
        });
        got.push(
          `${model} ${load}x: ${(r.goodput * 100).toFixed(1)} % / ${(r.throttled * 100).toFixed(2)} %`,
        );
        assert.equal(r.deadLettered, 0);
        if (r.goodput < 0.9 || r.throttled > 0.03) got.push('MISS');
      }
    }
    if (process.env.SHOW) console.log(got.join('; '));
    assert.ok(!got.includes('MISS'), got.join('; '));
  });

  it('no quota headers, a Retry-After in whole seconds on a 1 s window, a fast vendor: paused again before the climb was over, the rate climbs slowly (>= 90 %, <= 3 %)', async () => {
    const got: string[] = [];
    for (const model of ['sliding-log', 'fixed-window'] as const) {
      for (const load of process.env.P ? [1.5] : [1.5, 3]) {
        const r = await drive({
          model,
          vendorLimit: 20,
          clientRate: 40,
          clientBurst: 20,
          rttMs: 10,
          load,
          headers: 'none-retry-after',
          endMs: 70_000,
          warmupMs: 10_000,
        });
        got.push(
          `${model} ${load}x: ${(r.goodput * 100).toFixed(1)} % / ${(r.throttled * 100).toFixed(2)} %`,
        );
        assert.equal(r.deadLettered, 0);
        if (r.goodput < 0.9 || r.throttled > 0.03) got.push('MISS');
      }
    }
    assert.ok(!got.includes('MISS'), got.join('; '));
  });

  it('no dead-letter storm: Remaining of 1..7 while the limiter holds more never makes an hour of budget look too short', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 7 }),
        fc.integer({ min: 1, max: 10 }).map((x) => x / 10),
        async (remaining, resetSeconds) => {
          const clock = new VirtualClock();
          const limiter = createLimiter({ account: { ratePerSecond: 5, burst: 10 }, clock });
          let deadLettered = 0;
          // The answer comes while the limiter holds its 10 tokens; then the batch arrives.
          limiter.observe({ limit: 5, remaining, resetSeconds });
          const all = Array.from({ length: 60 }, () =>
            limiter.acquire({ key: 'p', lane: 'batch', deadline: 3_600_000 }).then(
              (l) => l.release(),
              (e: unknown) => {
                if (isDeadlineExceededError(e)) deadLettered++;
              },
            ),
          );
          await clock.advance(1000);
          assert.equal(deadLettered, 0, `${deadLettered} of 60 dead-lettered`);
          await clock.runAll();
          await Promise.all(all);
          assert.equal(deadLettered, 0);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('one header cannot stop the limiter for days: a pause is capped at maxPauseMs, then one request probes', async () => {
    for (const signal of [
      { retryAfterMs: 600_000_000, throttled: true },
      { remaining: 0, resetSeconds: 86_400, throttled: true },
    ] satisfies QuotaSignal[]) {
      const clock = new VirtualClock();
      const limiter = createLimiter({ account: { ratePerSecond: 5, burst: 5 }, clock });
      limiter.observe(signal);
      const times: number[] = [];
      let deadLettered = 0;
      const all = Array.from({ length: 3 }, () =>
        limiter.acquire({ key: 'p', lane: 'batch', deadline: 3_600_000 }).then(
          () => times.push(clock.now()),
          (e: unknown) => {
            if (isDeadlineExceededError(e)) deadLettered++;
          },
        ),
      );
      await clock.runAll();
      await Promise.all(all);
      assert.equal(deadLettered, 0);
      // Five minutes (the default cap), then one, then the pace.
      assert.deepEqual(times, [300_000, 300_200, 300_400]);
    }
  });

  it('a window the vendor declares (IETF RateLimit-Policy w) sets the rate from the first answer, whatever its reset says', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 40, burst: 10 }, clock });
    // 100 per 10 s, 2 s to the end of its window: 100 in 2 s is no rate of this vendor's.
    await limiter.observe({ limit: 100, remaining: 99, resetSeconds: 2, windowSeconds: 10 });
    assert.ok(Math.abs((await limiter.snapshot()).ratePerSecond - 9.9) < 1e-9);
    // Later resets, read short or long, do not move it.
    await limiter.observe({ limit: 100, remaining: 98, resetSeconds: 11, windowSeconds: 10 });
    assert.ok(Math.abs((await limiter.snapshot()).ratePerSecond - 9.9) < 1e-9);
    limiter.close();
  });

  it('IETF fields on a fixed window of 100 per 10 s (t in whole seconds): the phase of the declared window, not the coarse t, ends each window (>= 98 %, <= 0.5 %)', async () => {
    const got: string[] = [];
    for (const [clientRate, clientBurst] of [
      [5, 5],
      [20, 10],
    ] as const) {
      for (const load of process.env.P ? [1.5] : [1.5, 3]) {
        const r = await drive({
          model: 'fixed-window',
          vendorLimit: 100,
          windowMs: 10_000,
          clientRate,
          clientBurst,
          rttMs: 120,
          load,
          headers: 'ietf',
          endMs: 140_000,
          warmupMs: 20_000,
        });
        got.push(
          `limit ${clientRate} ${load}x: ${(r.goodput * 100).toFixed(1)} % / ${(r.throttled * 100).toFixed(2)} %`,
        );
        assert.equal(r.deadLettered, 0);
        if (r.goodput < 0.98 || r.throttled > 0.005) got.push('MISS');
      }
    }
    if (process.env.SHOW) console.log(got.join('; '));
    assert.ok(!got.includes('MISS'), got.join('; '));
  });

  it('IETF fields on a 1 s fixed window of 20 (t in whole seconds), round trips of p50 300 ms and p99 1.5 s: an answer counted in a window that has ended does not pause the next one (>= 98 %, <= 0.5 %)', async () => {
    // Before: 83.6-89.7 % at limit 10 (0.65-0.99 % throttled), for the fixed window and the
    // counter alike. With t always 1 on a 1 s window, an answer a second or more on its way read
    // a reset of 0.4-0.5 s (1 less half its round trip) with little left, and paused that long
    // at the start of a window that was whole.
    const got: string[] = [];
    for (const model of ['fixed-window', 'counter'] as const)
      for (const seed of [1, 2, 3])
        for (const [clientRate, clientBurst] of [
          [10, 10],
          [40, 20],
        ] as const)
          for (const load of [1.5, 3]) {
            const r = await drive({
              model,
              vendorLimit: 20,
              clientRate,
              clientBurst,
              rttMs: logNormalRoundTrips(seed, 300, 1500),
              load,
              headers: 'ietf',
              roundTrip: true,
              endMs: 70_000,
              warmupMs: 10_000,
            });
            const run = `${model} seed ${seed} limit ${clientRate} ${load}x`;
            got.push(`${run}: ${(r.goodput * 100).toFixed(1)} % / ${(r.throttled * 100).toFixed(2)} %`);
            assert.equal(r.deadLettered, 0, run);
            if (r.goodput < 0.98 || r.throttled > 0.005) got.push('MISS');
          }
    if (process.env.SHOW) console.log(got.join('\n'));
    assert.ok(!got.includes('MISS'), got.join('; '));
  });

  it('slows down on Remaining alone (a vendor that sends Limit and Remaining, no Reset)', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 50, burst: 20 }, clock });
    limiter.observe({ limit: 20, remaining: 2 });
    assert.ok((await limiter.snapshot()).tokens <= 2, `holds ${(await limiter.snapshot()).tokens}`);
  });

  it('Remaining is a budget net of the requests in flight', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 10, burst: 10 }, clock });
    limiter.observe({ limit: 20, remaining: 19, resetSeconds: 1 });
    const leases = [];
    for (let i = 0; i < 4; i++) leases.push(await limiter.acquire({ key: 'p' }));
    // The vendor has 8 left; the 3 still out will spend 3 of them: 5 may go now.
    leases[0]!.release();
    limiter.observe({ limit: 20, remaining: 8, resetSeconds: 0.9 });
    assert.ok(
      Math.abs((await limiter.snapshot()).tokens - 5) < 1e-9,
      `holds ${(await limiter.snapshot()).tokens}`,
    );
  });

  it('a keyed quota signal adapts that key only', async () => {
    const clock = new VirtualClock();
    const limiter = createLimiter({
      account: { ratePerSecond: 50, burst: 50 },
      perKey: { default: { ratePerSecond: 5, burst: 5 } },
      clock,
    });
    limiter.observe({ limit: 20, remaining: 3, resetSeconds: 1 }, { key: 'a' });
    assert.ok(Math.abs((await limiter.snapshot('a')).ratePerSecond - 19.8) < 1e-9);
    assert.ok((await limiter.snapshot('a')).tokens <= 3);
    assert.equal((await limiter.snapshot('b')).ratePerSecond, 5);
    assert.equal((await limiter.snapshot('b')).tokens, 5);
    assert.equal((await limiter.snapshot()).ratePerSecond, 50);
    assert.equal((await limiter.snapshot()).tokens, 50);
  });

  it('a keyed signal for a key with no limit configured gives that key a level of its own', async () => {
    // Before: observe({ key }) found no level for the key and dropped the signal, so a
    // payer's own sub-quota was never followed (and the router sent it to the account).
    const clock = new VirtualClock();
    const limiter = createLimiter({ account: { ratePerSecond: 20, burst: 20 }, clock });
    await limiter.acquire({ key: 'a' });
    limiter.observe({ throttled: true, retryAfterMs: 5000, limit: 2, remaining: 0 }, { key: 'a' });
    assert.equal(await limiter.tryAcquire({ key: 'a' }), undefined, 'the throttled payer waits');
    assert.ok((await limiter.predictWait({ key: 'a' })) >= 4999);
    assert.notEqual(await limiter.tryAcquire({ key: 'b' }), undefined, 'another payer does not');
    assert.equal((await limiter.snapshot()).pausedUntil, 0);
    const admitted: number[] = [];
    void limiter.acquire({ key: 'a', lane: 'batch' }).then(() => admitted.push(clock.now()));
    await clock.advance(6000);
    assert.deepEqual(admitted, [5000]);
  });
});
