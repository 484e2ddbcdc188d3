import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { isDeadlineExceededError } from './errors.js';
import { createLimiter } from './limiter.js';
import type { QuotaSignal } from './quota-signal.js';
import { logNormalRoundTrips } from './test-support/round-trips.js';

// A gateway that keeps two quotas at once (20 a second and 600 a minute, as Kong's
// rate-limiting plugin is often configured), written here from scratch: fixed windows aligned
// to the clock, each request counted against both when it arrives. On each answer it reports
// the quota with the least left (ties: the larger limit), as Kong's RateLimit-Limit,
// -Remaining and -Reset do: the reset in whole seconds to that window's end. A refusal says the
// quota it hit, Remaining 0, and a Retry-After in whole seconds to that window's end.

interface Quota {
  readonly limit: number;
  readonly windowMs: number;
}

/**
 * What the gateway declares besides Limit, Remaining and Reset: nothing (`none`); the window of
 * the quota reported (`reported`, as an IETF `RateLimit-Policy` of that quota would); every quota
 * with its window on every answer (`all`, as Kong's X-RateLimit-Limit-Second/-Minute do).
 */
type Declare = 'none' | 'reported' | 'all';

function gateway(quotas: readonly Quota[], declare: Declare) {
  const windowOf = quotas.map(() => Number.NaN);
  const used = quotas.map(() => 0);
  return (now: number): { ok: boolean; signal: QuotaSignal } => {
    quotas.forEach((q, i) => {
      const w = Math.floor(now / q.windowMs);
      if (w !== windowOf[i]) {
        windowOf[i] = w;
        used[i] = 0;
      }
    });
    const toEnd = (i: number) => (windowOf[i]! + 1) * quotas[i]!.windowMs - now;
    const declared = (i: number) => ({
      ...(declare === 'none' ? {} : { windowSeconds: quotas[i]!.windowMs / 1000 }),
      ...(declare === 'all'
        ? { quotas: quotas.map((q) => ({ limit: q.limit, windowSeconds: q.windowMs / 1000 })) }
        : {}),
    });
    const hit = quotas.findIndex((q, i) => used[i]! >= q.limit);
    if (hit >= 0) {
      const seconds = Math.max(1, Math.ceil(toEnd(hit) / 1000));
      return {
        ok: false,
        signal: {
          limit: quotas[hit]!.limit,
          remaining: 0,
          resetSeconds: seconds,
          retryAfterMs: seconds * 1000,
          throttled: true,
          ...declared(hit),
        },
      };
    }
    let least = -1;
    quotas.forEach((q, i) => {
      used[i]!++;
      const left = q.limit - used[i]!;
      const best = least < 0 ? Number.POSITIVE_INFINITY : quotas[least]!.limit - used[least]!;
      if (left < best || (left === best && q.limit > quotas[least]!.limit)) least = i;
    });
    return {
      ok: true,
      signal: {
        limit: quotas[least]!.limit,
        remaining: quotas[least]!.limit - used[least]!,
        resetSeconds: Math.max(1, Math.ceil(toEnd(least) / 1000)),
        ...declared(least),
      },
    };
  };
}

/** Claims at `load` times the sustained quota, each with an hour of budget; the gateway counts a request 2 ms after it left. */
async function run(o: {
  quotas: readonly Quota[];
  declare: Declare;
  clientRate: number;
  load: number;
  rtt: () => number;
  warmupMs: number;
  endMs: number;
}) {
  const clock = new VirtualClock();
  const limiter = createLimiter({ account: { ratePerSecond: o.clientRate, burst: o.clientRate / 2 }, clock });
  const sustained = Math.min(...o.quotas.map((q) => (q.limit * 1000) / q.windowMs));
  const answer = gateway(o.quotas, o.declare);
  let ok = 0;
  let refused = 0;
  let deadLettered = 0;
  const attempt = (deadline: number): void => {
    limiter.acquire({ key: 'payer', lane: 'batch', deadline }).then(
      (lease) => {
        const rttMs = o.rtt();
        clock.setTimer(2, () => {
          const a = answer(clock.now());
          if (clock.now() >= o.warmupMs && clock.now() < o.endMs) {
            if (a.ok) ok++;
            else refused++;
          }
          clock.setTimer(rttMs - 2, () => {
            lease.release();
            // As the router hands it on: the reset less half the round trip, the round trip said.
            limiter.observe({
              ...a.signal,
              resetSeconds: Math.max(0, a.signal.resetSeconds! - rttMs / 2000),
              roundTripMs: rttMs,
            });
            if (!a.ok && clock.now() < o.endMs) attempt(deadline);
          });
        });
      },
      (e: unknown) => {
        if (isDeadlineExceededError(e)) deadLettered++;
      },
    );
  };
  for (let t = 0; t < o.endMs; t += 1000 / (sustained * o.load))
    clock.setTimer(t, () => attempt(clock.now() + 3_600_000));
  await clock.advance(o.endMs);
  limiter.close();
  await clock.runAll();
  return {
    goodput: ok / ((sustained * (o.endMs - o.warmupMs)) / 1000),
    throttled: refused / Math.max(1, ok + refused),
    deadLettered,
  };
}

const GATEWAYS: ReadonlyArray<{ name: string; quotas: Quota[]; warmupMs: number; endMs: number }> = [
  {
    name: '20 a second and 600 a minute',
    quotas: [
      { limit: 20, windowMs: 1000 },
      { limit: 600, windowMs: 60_000 },
    ],
    warmupMs: 60_000,
    endMs: 360_000,
  },
  {
    name: '20 a second and 100 per 10 s',
    quotas: [
      { limit: 20, windowMs: 1000 },
      { limit: 100, windowMs: 10_000 },
    ],
    warmupMs: 20_000,
    endMs: 140_000,
  },
];

async function runs(gw: (typeof GATEWAYS)[number], declare: Declare) {
  const out: { label: string; goodput: number; throttled: number; deadLettered: number }[] = [];
  for (const [median, p99] of [
    [10, 40],
    [120, 600],
  ] as const)
    for (const load of [1.5, 3])
      for (const clientRate of [5, 20]) {
        const r = await run({ ...gw, declare, clientRate, load, rtt: logNormalRoundTrips(1, median, p99) });
        out.push({ label: `p50 ${median} ms, ${load}x, configured ${clientRate}/s`, ...r });
      }
  return out;
}

// Every run of `runs` at >= 98 % of the quota, at most `throttledAtMost` throttled, nobody dead-lettered.
async function assertMeets(gw: (typeof GATEWAYS)[number], declare: Declare, throttledAtMost: number) {
  for (const r of await runs(gw, declare)) {
    assert.ok(r.goodput >= 0.98, `${r.label}: goodput ${(100 * r.goodput).toFixed(1)} %`);
    assert.ok(r.throttled <= throttledAtMost, `${r.label}: throttled ${(100 * r.throttled).toFixed(2)} %`);
    assert.equal(r.deadLettered, 0, `${r.label}: dead-lettered`);
  }
}

describe('issue #14: a gateway that keeps two quotas and reports the one with least left', () => {
  for (const gw of GATEWAYS) {
    it(`${gw.name}, its windows read from resets: the least of the two rates, not one limit over the other's window (>= 98 %, <= 3 % throttled, nobody dead-lettered)`, async () => {
      // Before: the Limit said last over the longest reset of any, 20 per 60 s (9.5 %, every
      // claim dead-lettered) and 20 per 10 s (39.7 %). Now 100 %, 0.17-2.44 % throttled: the long
      // window is read from resets only late in it (the gateway reports it once it has least
      // left), so read short, and spent early in each window at the second's pace.
      await assertMeets(gw, 'none', 0.03);
    });
    it(`${gw.name}, the window of the quota reported declared: paced at the lesser rate from the answer that reports it (>= 98 %, <= 0.5 % throttled)`, async () => {
      // Measured 98.3-99.2 %, <= 0.08 % throttled.
      await assertMeets(gw, 'reported', 0.005);
    });
    it(`${gw.name}, every quota declared on every answer (as Kong's X-RateLimit-Limit-Second/-Minute): paced at the lesser rate from the first answer (>= 98 %, <= 0.5 % throttled)`, async () => {
      // Measured 98.8-99.1 %, none throttled.
      await assertMeets(gw, 'all', 0.005);
    });
  }
});
