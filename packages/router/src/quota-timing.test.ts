// How the router hands a vendor's quota to the limiter, and the synchronous in-process path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Lease, LimiterAcquireOptions, QuotaSignal } from '@rxgate/ratelimit';
import { VirtualClock } from '@rxgate/testkit';
import { MemoryAuditLog } from './audit.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter, type RouterLimiter } from './router.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';
import { functionTransport, type WireResponse } from './transport.js';

const paid = (reset: string): WireResponse => ({
  status: 200,
  headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': reset },
  body: JSON.stringify({ '112-AN': 'P', '509-F9': '7.34' }),
});

/** A limiter that admits at once and records what it is told. */
function recordingLimiter(withTry: boolean) {
  const seen: QuotaSignal[] = [];
  const lease: Lease = { release() {} } as Lease;
  const limiter: RouterLimiter = {
    acquire: (_: LimiterAcquireOptions) => Promise.resolve(lease),
    observe: (s) => {
      seen.push(s);
      return Promise.resolve();
    },
    ...(withTry ? { tryAcquire: () => Promise.resolve(lease) } : {}),
  };
  return { limiter, seen };
}

/** A router over one node whose every answer takes 200 ms and says a reset of 0.8 s. */
function slowVendorRouter(clock: VirtualClock, limiter: RouterLimiter) {
  return createRouter({
    ledger: new MemoryLedger(),
    nodes: [{ name: 'primary', url: 'http://p.test' }],
    idempotencySecret: SECRET,
    clock,
    limiter,
    transport: functionTransport(async () => {
      await new Promise<void>((r) => clock.setTimer(200, r));
      return paid('0.800');
    }),
    audit: new MemoryAuditLog(),
  });
}

describe('quota signals', () => {
  it('reads the reset as of half a round trip ago: the vendor measured it when it answered', async () => {
    const clock = new VirtualClock();
    const { limiter, seen } = recordingLimiter(false);
    const router = slowVendorRouter(clock, limiter);
    const outcome = router.submit(rawClaim());
    await clock.runAll();
    assert.equal((await outcome).kind, 'paid');
    assert.equal(seen.length, 1);
    // 0.8 s said by a vendor 100 ms (half of the 200 ms round trip) before we read it.
    assert.ok(Math.abs(seen[0]!.resetSeconds! - 0.7) < 1e-9, String(seen[0]!.resetSeconds));
    assert.equal(seen[0]!.remaining, 4);
  });

  it('says the round trip from the admission on: what the limiter admitted since is not in this Remaining', async () => {
    const clock = new VirtualClock();
    const seen: QuotaSignal[] = [];
    const lease: Lease = { release() {} } as Lease;
    const limiter: RouterLimiter = {
      // Admitted after 300 ms in the queue; then the request takes 200 ms.
      acquire: () => new Promise<Lease>((resolve) => clock.setTimer(300, () => resolve(lease))),
      observe: (s) => {
        seen.push(s);
        return Promise.resolve();
      },
    };
    const router = slowVendorRouter(clock, limiter);
    const outcome = router.submit(rawClaim());
    await clock.runAll();
    assert.equal((await outcome).kind, 'paid');
    assert.equal(seen[0]!.roundTripMs, 200);
    assert.ok(Math.abs(seen[0]!.resetSeconds! - 0.7) < 1e-9, String(seen[0]!.resetSeconds));
  });

  it('never reads a reset below zero, and leaves a signal alone when the answer took no time', async () => {
    const clock = new VirtualClock();
    const { limiter, seen } = recordingLimiter(true);
    let delay = 500;
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: 'http://p.test' }],
      idempotencySecret: SECRET,
      clock,
      limiter,
      transport: functionTransport((_n, _r) =>
        delay === 0
          ? paid('0.100')
          : new Promise<WireResponse>((resolve) => clock.setTimer(delay, () => resolve(paid('0.100')))),
      ),
    });
    const first = router.submit(rawClaim({ '402-D2': '1' }));
    await clock.runAll();
    await first;
    delay = 0;
    await router.submit(rawClaim({ '402-D2': '2' }));
    assert.deepEqual(
      seen.map((s) => s.resetSeconds),
      [0, 0.1],
    );
  });
});

describe('the synchronous in-process path', () => {
  it('a transport that answers at once and a limiter that admits at once: no timer, one outcome, audited', async () => {
    const clock = new VirtualClock();
    const { limiter } = recordingLimiter(true);
    const audit = new MemoryAuditLog();
    let timers = 0;
    const counting = {
      now: () => clock.now(),
      setTimer: (ms: number, fn: () => void) => {
        timers++;
        return clock.setTimer(ms, fn);
      },
    };
    const router = createRouter({
      ledger: new MemoryLedger(),
      nodes: [{ name: 'primary', url: 'http://p.test' }],
      idempotencySecret: SECRET,
      clock: counting,
      limiter,
      transport: functionTransport(() => paid('1')),
      audit,
    });
    const outcomes = await Promise.all(
      [1, 2, 3].map((i) => router.submit(rawClaim({ '402-D2': String(i) }))),
    );
    assert.deepEqual(
      outcomes.map((o) => o.kind),
      ['paid', 'paid', 'paid'],
    );
    assert.equal(timers, 0, 'a claim that never waits arms no deadline timer');
    assert.equal(audit.records.filter((r) => r.type === 'outcome').length, 3);
    assert.equal(router.inFlight, 0);
    // Metric handles write under the same names and labels as before.
    const m = router.metrics.snapshot();
    assert.equal(m.counters['rxgate_outcomes_total{kind="paid",lane="pos"}'], 3);
    assert.equal(m.counters['rxgate_attempts_total{kind="adjudicated",node="primary"}'], 3);
    assert.equal(m.gauges['rxgate_remaining_quota{node="primary"}'], 4);
    assert.equal(m.histograms['rxgate_claim_latency_ms{lane="pos"}']?.count, 3);
    assert.equal(m.histograms['rxgate_attempt_latency_ms{node="primary"}']?.count, 3);
    await router.close();
  });
});
