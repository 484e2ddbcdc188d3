import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from '@rxgate/classifier';
import fc from 'fast-check';
import {
  expiringCounter,
  fixedWindow,
  gcra,
  QUOTA_MODELS,
  quotaModel,
  slidingCounter,
  slidingLog,
  tokenBucket,
} from './quota-models.js';
import { answerOf, HEADER_STYLES } from './vendor-headers.js';
import { runZoo, type ZooRunResult, type ZooVendor } from './zoo-run.js';

/** Admission times a model gives to arrivals at the given times. */
const admittedAt = (arrive: (t: number) => { admitted: boolean }, times: readonly number[]): number[] =>
  times.filter((t) => arrive(t).admitted);

/** A run meets a cell's goal: at least `least` % of the quota, at most `most` % throttled, nobody dead-lettered. */
function assertMeets(r: ZooRunResult, label: string, least: number, most = 0.5): void {
  assert.ok(r.goodputPct >= least, `${label}: ${r.goodputPct.toFixed(1)} %`);
  assert.ok(r.throttledPct <= most, `${label}: ${r.throttledPct.toFixed(2)} % throttled`);
  assert.equal(r.deadLettered, 0, label);
}

const arrivals = fc.array(fc.integer({ min: 0, max: 200 }), { minLength: 1, maxLength: 300 }).map((gaps) => {
  let t = 0;
  return gaps.map((g) => (t += g));
});

describe('vendor zoo: the quota models keep their own definitions', () => {
  it('property: a sliding log admits at most `limit` in any window ending at an admission', () => {
    fc.assert(
      fc.property(arrivals, (ts) => {
        const got = admittedAt(slidingLog(5, 1000).arrive, ts);
        for (const [i, t] of got.entries())
          assert.ok(got.filter((u, j) => j <= i && u > t - 1000).length <= 5);
      }),
    );
  });

  it('property: a fixed window admits at most `limit` per aligned window, and all of them when they come', () => {
    fc.assert(
      fc.property(arrivals, (ts) => {
        const got = admittedAt(fixedWindow(5, 1000).arrive, ts);
        const per = new Map<number, number>();
        for (const t of got) per.set(Math.floor(t / 1000), (per.get(Math.floor(t / 1000)) ?? 0) + 1);
        for (const [w, n] of per) {
          const offered = ts.filter((t) => Math.floor(t / 1000) === w).length;
          assert.equal(n, Math.min(5, offered));
        }
      }),
    );
  });

  it('property: an expiring counter admits the first `limit` of each window, a window starting at the first arrival after the last one ended', () => {
    fc.assert(
      fc.property(arrivals, (ts) => {
        const got = admittedAt(expiringCounter(5, 1000).arrive, ts);
        // Read another way: walk the arrivals, each window opened by the first one past the last.
        const want: number[] = [];
        let opened = Number.NEGATIVE_INFINITY;
        let inWindow = 0;
        for (const t of ts) {
          if (t - opened >= 1000) {
            opened = t;
            inWindow = 0;
          }
          if (++inWindow <= 5) want.push(t);
        }
        assert.deepEqual(got, want);
      }),
    );
  });

  it('property: a token bucket and GCRA admit at most burst + rate·t in any interval', () => {
    fc.assert(
      fc.property(arrivals, fc.constantFrom('tb', 'gcra'), (ts, kind) => {
        const model = kind === 'tb' ? tokenBucket(5, 10) : gcra(10, 5);
        const got = admittedAt(model.arrive, ts);
        for (let i = 0; i < got.length; i++)
          for (let j = i; j < got.length; j++)
            assert.ok(j - i + 1 <= 5 + (10 * (got[j]! - got[i]!)) / 1000 + 1e-9);
      }),
    );
  });

  it("a sliding log's reset frees one request; a fixed window's frees them all", () => {
    const log = slidingLog(3, 1000);
    for (const t of [0, 100, 200]) assert.ok(log.arrive(t).admitted);
    const full = log.arrive(300);
    assert.equal(full.admitted, false);
    assert.equal(full.report.resetMs, 700);
    assert.equal(log.arrive(1000).admitted, true);
    assert.equal(log.arrive(1001).admitted, false, 'only the oldest left');
    const fw = fixedWindow(3, 1000);
    for (const t of [0, 100, 200]) fw.arrive(t);
    assert.equal(fw.arrive(300).report.resetMs, 700);
    for (const t of [1000, 1001, 1002]) assert.ok(fw.arrive(t).admitted);
  });

  it("property: a next-fit sliding counter's reset is when one more request would be admitted, found by trying", () => {
    // The reference replays the arrivals on a fresh counter and tries one more request just
    // before and just after the reset said (0 while there is room: one more is admitted now).
    fc.assert(
      fc.property(arrivals, (ts) => {
        const counter = slidingCounter(5, 1000, 'next-fit');
        for (const [i, t] of ts.entries()) {
          const { resetMs } = counter.arrive(t).report;
          const tryAt = (at: number): boolean => {
            const replay = slidingCounter(5, 1000, 'next-fit');
            for (const u of ts.slice(0, i + 1)) replay.arrive(u);
            return replay.arrive(at).admitted;
          };
          if (resetMs === 0) assert.ok(tryAt(t), `at ${t}: room, so one more now`);
          else {
            // (Time only moves on: no try before this arrival.)
            if (resetMs > 0.01) assert.ok(!tryAt(t + resetMs - 0.01), `at ${t}: not before ${resetMs} ms`);
            assert.ok(tryAt(t + resetMs + 0.01), `at ${t}: one more at ${resetMs} ms`);
          }
        }
      }),
      { numRuns: 50 },
    );
  });

  it("a token bucket's reset is its time to full", () => {
    const tb = tokenBucket(10, 5);
    for (let i = 0; i < 4; i++) tb.arrive(0);
    assert.equal(tb.arrive(0).report.resetMs, 1000);
  });

  it('every header style reads back through the classifier as the model reported it', () => {
    const now = Date.UTC(2026, 11, 1, 8);
    for (const name of QUOTA_MODELS) {
      const { admitted, report } = quotaModel(name).arrive(now);
      for (const style of HEADER_STYLES) {
        const a = answerOf(admitted, report, style, '429-seconds', now);
        const q = classify({ status: a.status, headers: a.headers, body: { '112-AN': 'P' } }, { now }).quota;
        if (style === 'none') assert.equal(q, undefined);
        else assert.equal(q?.remaining, report.remaining, `${name} ${style}`);
        if (style === 'x-ratelimit') assert.equal(q?.limit, report.limit);
      }
      const refused = answerOf(false, report, 'none', '503-date', now);
      const v = classify({ status: refused.status, headers: refused.headers }, { now });
      assert.equal(v.kind, 'throttled', `${name}: a 503 with an HTTP-date Retry-After and Remaining 0`);
    }
  });
});

describe('vendor zoo against the limiter (virtual time)', () => {
  it('every vendor that sends quota headers with a reset: >= 98 % of the quota, <= 0.5 % throttled, nobody dead-lettered', async () => {
    for (const model of QUOTA_MODELS) {
      for (const headers of ['x-ratelimit', 'ietf'] as const) {
        // The bench's clients: a user who guessed half the quota, or twice it.
        for (const [ratePerSecond, burst] of [
          [10, 10],
          [40, 20],
        ] as const) {
          const r = await runZoo({
            vendor: { model, headers, throttle: '429-seconds' },
            client: { kind: 'rxgate', ratePerSecond, burst },
            load: 3,
            latency: 'slow',
          });
          const label = `${model} / ${headers} / limit ${ratePerSecond}`;
          // An expiring counter with exact resets at slow round trips: a pause at 0 that ended
          // where the answers bound the window ended late by the shortest way back among them,
          // and started the next window that late (96.3 %); it ends where a request sent then
          // is counted after the end (WindowEnd's `due`).
          assertMeets(r, label, 98);
        }
      }
    }
  });

  it('a fixed window with X-RateLimit at slow round trips: Remaining is not counted twice, a pause at 0 ends where the answers bound the window (>= 98 %, <= 0.5 %)', async () => {
    // Before: the requests in flight that went before an answer were taken off its Remaining
    // again, so a pause at 0 began a request or two early, and it ended at that answer's guess
    // of the reset, half its round trip late: 94.5 % (20/s, seed 2, 503 + HTTP-date, 3x, limit
    // 10); 96.0 % and 96.0 % (held out: 7/s, seeds 1 and 3, 1.5x, limit 3.5).
    for (const [vendor, ratePerSecond, burst, load, seed] of [
      [{ model: 'fixed-window', headers: 'x-ratelimit', throttle: '503-date' }, 10, 10, 3, 2],
      [
        { model: 'fixed-window', headers: 'x-ratelimit', throttle: '429-seconds', ratePerSecond: 7 },
        3.5,
        3.5,
        1.5,
        1,
      ],
      [
        { model: 'fixed-window', headers: 'x-ratelimit', throttle: '429-seconds', ratePerSecond: 7 },
        3.5,
        3.5,
        1.5,
        3,
      ],
    ] as const) {
      const r = await runZoo({
        vendor,
        client: { kind: 'rxgate', ratePerSecond, burst },
        load,
        latency: 'slow',
        seed,
      });
      const label = `${vendor.throttle}, ${vendor.ratePerSecond ?? 20}/s, seed ${seed}`;
      assertMeets(r, label, 98);
    }
  });

  it('a sliding log whose gateway counts a request half a round trip after it left (a symmetric path), fast round trips: the margin is learned between throttles (>= 93 %, <= 0.5 %)', async () => {
    // Before: 70.8 % / 1.96 % throttled (seed 1, worst of limit 10 and 40). The way there varies
    // by up to ~20 ms, more than a 99 % pace leaves of a 1 s window; a throttle every few
    // seconds, each pausing a second, and none counted toward the margin (five windows after a
    // pause never came). The zoo's table has the gateway count 1-3 ms after the send.
    for (const [ratePerSecond, burst] of [
      [10, 10],
      [40, 20],
    ] as const) {
      const r = await runZoo({
        vendor: { model: 'sliding-log', headers: 'x-ratelimit', throttle: '429-seconds' },
        client: { kind: 'rxgate', ratePerSecond, burst },
        load: 1.5,
        latency: 'fast',
        wayThere: 'half',
      });
      const label = `limit ${ratePerSecond}`;
      assertMeets(r, label, 93);
    }
  });

  it('a per-payer sub-quota (IETF "per-payer") observed at the payer key: >= 98 % of the account, <= 0.5 % throttled', async () => {
    // Observed at the account, as the router did before quotaScope, the payer's 5/s paces
    // every payer: 40-66 % of the account's quota.
    for (const model of QUOTA_MODELS) {
      for (const payerPolicy of ['payer', 'account'] as const) {
        const r = await runZoo({
          vendor: { model, headers: 'ietf', throttle: '429-seconds', payerQuotaPerSecond: 5 },
          client: { kind: 'rxgate', ratePerSecond: 40, burst: 20, payerPolicy },
          load: 3,
          latency: 'slow',
        });
        if (payerPolicy === 'payer') {
          assertMeets(r, model, 98);
        } else assert.ok(r.goodputPct < 70, `${model} at the account: ${r.goodputPct.toFixed(1)} %`);
      }
    }
  });

  it('Remaining-only vendors (Limit and Remaining, no reset): <= 0.7 % throttled, nobody dead-lettered', async () => {
    // Before: a throttle cut the rate read from Remaining by 0.9 and it climbed straight back
    // to where it was throttled (1.0-2.3 % throttled on buckets and GCRA). Now the least rate
    // throttled (or, for a bucket, the rate it refilled at while draining) caps it.
    // (Goodput: 92-100 %, short of the 98 % goal in most cells.)
    for (const model of QUOTA_MODELS) {
      for (const [ratePerSecond, burst] of [
        [10, 10],
        [40, 20],
      ] as const) {
        for (const latency of ['fast', 'slow'] as const) {
          const r = await runZoo({
            vendor: { model, headers: 'remaining-only', throttle: '429-seconds' },
            client: { kind: 'rxgate', ratePerSecond, burst },
            load: 3,
            latency,
          });
          const label = `${model} / limit ${ratePerSecond} / ${latency}`;
          assertMeets(r, label, 75, 0.7);
        }
      }
    }
  });

  it('a Remaining-only fixed window at slow round trips (answers out of order): its window read, >= 98 % at 1.5x, >= 97 % at 3x', async () => {
    // Before: four consecutive reset intervals had to agree, which answers out of order rarely
    // let happen: 94.6 % and 94.4 % (seed 1, limit 10 and 40, worst).
    for (const [load, least] of [
      [1.5, 98],
      [3, 97],
    ] as const) {
      for (const [ratePerSecond, burst] of [
        [10, 10],
        [40, 20],
      ] as const) {
        const r = await runZoo({
          vendor: { model: 'fixed-window', headers: 'remaining-only', throttle: '429-seconds' },
          client: { kind: 'rxgate', ratePerSecond, burst },
          load,
          latency: 'slow',
        });
        const label = `${load}x, limit ${ratePerSecond}`;
        assertMeets(r, label, least);
      }
    }
  });

  it('Remaining-only windows throttled just above 20/s: paced at 99 % of 20/s after it, >= 98 % / <= 0.5 %', async () => {
    // Before: a throttle at 20.4/s left the pace at 98.5 % of it, 20.1/s, over the quota, and
    // the next throttle (a second of Retry-After) came in the measured minute: 97.0-97.6 % (seed
    // 3). The last (seed 1) was paced so by a window misread as 500 ms: 97.3 %.
    for (const [model, load, latency, seed] of [
      ['sliding-counter', 1.5, 'fast', 3],
      ['sliding-counter', 3, 'slow', 3],
      ['fixed-window', 1.5, 'slow', 3],
      ['fixed-window', 3, 'slow', 3],
      ['fixed-window', 3, 'slow', 1],
    ] as const) {
      const r = await runZoo({
        vendor: { model, headers: 'remaining-only', throttle: '429-seconds' },
        client: { kind: 'rxgate', ratePerSecond: 40, burst: 20 },
        load,
        latency,
        seed,
      });
      const label = `${model}, ${load}x ${latency}, seed ${seed}`;
      assert.ok(r.goodputPct >= 98, `${label}: ${r.goodputPct.toFixed(1)} %`);
      assert.ok(r.throttledPct <= 0.5, `${label}: ${r.throttledPct.toFixed(2)} % throttled`);
    }
  });

  describe('held out, 20/s at round trips of p50 300 ms, 3x, limit 40: no vendor misread into a rate far under its quota (>= 90 %, <= 0.5 %)', () => {
    const table: [string, ZooVendor, number][] = [
      // Before: Remaining back after each throttle's pause clustered on 2 s, read as a fixed
      // window of 10 per 2 s and paced at 4.95/s, which nothing throttles: 26.6 %.
      [
        'a Remaining-only GCRA (limit 10), seed 2: no fixed window the vendor was seen to exceed',
        { model: 'gcra', headers: 'remaining-only', throttle: '429-seconds' },
        2,
      ],
      // Before: the answer after a Remaining-0 pause came after a throttle's Retry-After of 1 s
      // as well, showed the quota back (any window empties while nothing is sent), and the log
      // was taken for a fixed window: paused at every Remaining 0 after that, 76.9 %.
      [
        "a sliding log with IETF headers, seed 3: a throttle's pause is no evidence that Remaining 0 means full",
        { model: 'sliding-log', headers: 'ietf', throttle: '429-seconds' },
        3,
      ],
    ];
    for (const [name, vendor, seed] of table)
      it(name, async () => {
        const r = await runZoo({
          vendor,
          client: { kind: 'rxgate', ratePerSecond: 40, burst: 20 },
          load: 3,
          latency: 'slower',
          seed,
        });
        assert.ok(r.goodputPct >= 90, `${r.goodputPct.toFixed(1)} %`);
        assert.ok(r.throttledPct <= 0.5, `${r.throttledPct.toFixed(2)} % throttled`);
      });
  });

  it('a Remaining-only fixed window of 20/s at round trips of p50 300 ms (held out, seed 2, 3x, limit 10): no window read from resets that could not have given back what they did (>= 98 %, <= 0.5 %)', async () => {
    // Before: seven resets in the first 5 s, four of them in phase on 250 ms (answers out of
    // order), each having given back 5-17 at 4-13/s, were read as 20 per 250 ms under a floor
    // of 194 ms: paced at 79.2/s, halved thrice by throttles to 10.2/s, climbing back: 93.8 %.
    const r = await runZoo({
      vendor: { model: 'fixed-window', headers: 'remaining-only', throttle: '429-seconds' },
      client: { kind: 'rxgate', ratePerSecond: 10, burst: 10 },
      load: 3,
      latency: 'slower',
      seed: 2,
    });
    assert.ok(r.goodputPct >= 98, `${r.goodputPct.toFixed(1)} %`);
    assert.ok(r.throttledPct <= 0.5, `${r.throttledPct.toFixed(2)} % throttled`);
  });

  it('a sliding counter of 100 per 10 s whose X-RateLimit-Reset is the time until one more fits (held out), slow round trips: read from Remaining, >= 95 %, <= 0.5 % throttled', async () => {
    // Before: 50.0 % configured at half the quota (no reset said a window while there was room,
    // so the advertised limit never lifted the configured rate), 6.1-14.5 % throttled at twice it
    // (once spent, the reset is the time to the next request, read as a window).
    const misses: string[] = [];
    for (const seed of [1, 2, 3])
      for (const [ratePerSecond, burst] of [
        [5, 5],
        [20, 10],
      ] as const)
        for (const load of [1.5, 3]) {
          const r = await runZoo({
            vendor: {
              model: 'sliding-counter-next-fit',
              headers: 'x-ratelimit',
              throttle: '429-seconds',
              ratePerSecond: 10,
              windowMs: 10_000,
            },
            client: { kind: 'rxgate', ratePerSecond, burst },
            load,
            latency: 'slow',
            seed,
            warmupMs: 20_000,
            durationMs: 140_000,
          });
          if (r.goodputPct < 95 || r.throttledPct > 0.5 || r.deadLettered > 0)
            misses.push(
              `seed ${seed}, limit ${ratePerSecond}, ${load}x: ${r.goodputPct.toFixed(1)} %, ${r.throttledPct.toFixed(2)} %`,
            );
        }
    assert.deepEqual(misses, []);
  });

  it("a gateway of two quotas, 20 a second and 600 a minute, that reports the one with the least left (held out): the least of their rates, through the classifier (>= 98 %; <= 0.5 % throttled with Kong's headers or IETF policies, <= 1 % from resets alone)", async () => {
    // Before: the Limit said last over the longest reset of any, 20 per 60 s: under 10 % of the
    // quota, the claims waiting dead-lettered. Kong's X-RateLimit-Limit-Second/-Minute say every
    // quota with its window on every answer; IETF policies the window of each.
    const misses: string[] = [];
    for (const headers of ['kong', 'ietf', 'x-ratelimit'] as const)
      for (const [ratePerSecond, burst] of [
        [5, 5],
        [20, 10],
      ] as const)
        for (const load of [1.5, 3]) {
          const r = await runZoo({
            vendor: {
              model: 'two-tier',
              headers,
              throttle: '429-seconds',
              ratePerSecond: 10,
              windowMs: 60_000,
            },
            client: { kind: 'rxgate', ratePerSecond, burst },
            load,
            latency: 'slow',
            warmupMs: 60_000,
            durationMs: 360_000,
          });
          const throttled = headers === 'x-ratelimit' ? 1 : 0.5;
          if (r.goodputPct < 98 || r.throttledPct > throttled || r.deadLettered > 0)
            misses.push(
              `${headers}, limit ${ratePerSecond}, ${load}x: ${r.goodputPct.toFixed(1)} %, ${r.throttledPct.toFixed(2)} %, ${r.deadLettered} dead-lettered`,
            );
        }
    assert.deepEqual(misses, []);
  });

  it('a Remaining-only sliding counter of 7/s (held out): its 1 s window read from the few answers that leave something, >= 98 % at 1.5x', async () => {
    // Before: 12 answers leaving something had to read the window; paced near 7/s, most answers
    // said Remaining 0 and 10 came in 6.6 s, then none for 13 s: 95.5 % (seed 1, limit 3.5 and 14).
    for (const [ratePerSecond, burst] of [
      [3.5, 3.5],
      [14, 7],
    ] as const) {
      const r = await runZoo({
        vendor: {
          model: 'sliding-counter',
          headers: 'remaining-only',
          throttle: '429-seconds',
          ratePerSecond: 7,
          windowMs: 1000,
        },
        client: { kind: 'rxgate', ratePerSecond, burst },
        load: 1.5,
        latency: 'slow',
      });
      const label = `limit ${ratePerSecond}`;
      assert.ok(r.goodputPct >= 98, `${label}: ${r.goodputPct.toFixed(1)} %`);
      assert.ok(r.throttledPct <= 0.5, `${label}: ${r.throttledPct.toFixed(2)} % throttled`);
    }
  });

  it('vendors that send no quota header: >= 90 % / <= 3 %, above the AWS adaptive reference on a sliding log', async () => {
    for (const model of QUOTA_MODELS) {
      const r = await runZoo({
        vendor: { model, headers: 'none', throttle: '429' },
        client: { kind: 'rxgate', ratePerSecond: 40, burst: 20 },
        load: 3,
        latency: 'slow',
      });
      assertMeets(r, model, 90, 3);
    }
    const vendor = { model: 'sliding-log', headers: 'none', throttle: '429' } as const;
    const ours = await runZoo({
      vendor,
      client: { kind: 'rxgate', ratePerSecond: 40, burst: 20 },
      load: 3,
      latency: 'slow',
    });
    const aws = await runZoo({ vendor, client: { kind: 'aws-adaptive' }, load: 3, latency: 'slow' });
    assert.ok(ours.goodputPct > aws.goodputPct, `${ours.goodputPct} vs AWS ${aws.goodputPct}`);
    assert.ok(ours.throttledPct < aws.throttledPct);
  });
});
