// Every scenario's description is a promise; each is checked here against its own run, from
// the per-second series and the counters, so a description cannot say what the run does not do.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildReport } from './report.js';
import { type RunResult, runScenario } from './runner.js';
import { loadScenario } from './scenario.js';
import type { Bucket } from './series.js';

/** The buckets that start in [from, to): a bucket's quota and rate are read at its end. */
function during(r: RunResult, from: number, to: number): Bucket[] {
  return r.series.buckets.filter((b) => b.t >= from && b.t + r.series.bucketMs < to);
}
const total = (bs: readonly Bucket[], k: 'sent' | 'throttled' | 'adjudicated' | 'failedOver' | 'submitted') =>
  bs.reduce((s, b) => s + b[k], 0);
const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / Math.max(1, xs.length);

function passes(r: RunResult): void {
  const report = buildReport(r);
  const failed = [
    ...report.thresholds.filter((t) => !t.ok).map((t) => `${t.expression} (was ${t.actual})`),
    ...report.invariants.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`),
  ];
  assert.deepEqual(failed, []);
  assert.deepEqual(r.invariants.faultsNeverFired, []);
}

describe('each scenario does what its description says', () => {
  it('429-storm: the quota drops to a quarter, the limiter follows the headers down, pos fails fast, throughput returns', async () => {
    const s = await loadScenario('429-storm');
    const r = await runScenario(s);
    passes(r);
    const storm = s.faults[0]!;
    const inStorm = during(r, storm.startMs, storm.endMs);
    const before = during(r, 0, storm.startMs);
    // The vendor's headers: a quarter of 10 in the storm, the full quota before it.
    assert.ok(
      inStorm.every((b) => b.remaining <= 2),
      `remaining in storm ${inStorm.map((b) => b.remaining)}`,
    );
    assert.ok(before.some((b) => b.remaining === 10));
    // The limiter follows: its rate in the storm (after two seconds to learn) is at most half its own.
    const rate = mean(during(r, storm.startMs + 2000, storm.endMs).map((b) => b.limiterRate));
    assert.ok(rate <= s.client.limiter.ratePerSecond / 2, `limiter rate in the storm ${rate.toFixed(2)}/s`);
    // Point-of-sale claims fail fast instead of waiting out the storm.
    assert.ok(r.latency.pos.percentile(99) < 900, `pos p99 ${r.latency.pos.percentile(99)} ms`);
    assert.ok((r.outcomes['dead-lettered'] ?? 0) > 0);
    // Throughput returns: after the storm the vendor adjudicates at its quota again.
    const after = during(r, storm.endMs + 2000, s.traffic.durationMs!);
    assert.equal(total(after, 'throttled'), 0);
    assert.ok(total(after, 'adjudicated') >= 0.95 * total(after, 'submitted'));
    assert.ok(r.invariants.liveness.applicable && r.invariants.liveness.ok);
  });

  it('503-maintenance: 503s with Retry-After, claims fail over at once, the breaker need not open, back to the primary after', async () => {
    const s = await loadScenario('503-maintenance');
    const r = await runScenario(s);
    passes(r);
    const w = s.faults[0]!;
    const inWindow = during(r, w.startMs, w.endMs);
    assert.ok((r.statuses['503'] ?? 0) >= 1, 'the primary answered 503');
    // The router believed the Retry-After: a handful of 503s, not one per claim of the window.
    assert.ok((r.statuses['503'] ?? 0) <= 5, `${r.statuses['503']} answers 503`);
    assert.ok(
      total(inWindow, 'failedOver') >= 0.9 * total(inWindow, 'submitted'),
      `${total(inWindow, 'failedOver')} of ${total(inWindow, 'submitted')} failed over`,
    );
    assert.deepEqual(
      r.breakerTransitions.map((t) => `${t.key} ${t.to}`),
      [],
      'the description says the breaker stays closed',
    );
    assert.equal(
      total(during(r, w.endMs + 1000, s.traffic.durationMs!), 'failedOver'),
      0,
      'back to the primary',
    );
  });

  it('primary-outage-failover: refused connections open the breaker, claims move to the fallback and back after', async () => {
    const s = await loadScenario('primary-outage-failover');
    const r = await runScenario(s);
    passes(r);
    const w = s.faults[0]!;
    assert.ok(r.breakerTransitions.some((t) => t.key.startsWith('primary') && t.to === 'open'));
    const inWindow = during(r, w.startMs + 2000, w.endMs);
    assert.ok(total(inWindow, 'failedOver') >= 0.9 * total(inWindow, 'submitted'));
    assert.equal(
      total(during(r, w.endMs + 2000, s.traffic.durationMs!), 'failedOver'),
      0,
      'back to the primary',
    );
  });

  it('ambiguous-commits: answers are lost, retries recover them, nothing fails over, nothing is paid twice', async () => {
    const r = await runScenario(await loadScenario('ambiguous-commits'));
    passes(r);
    assert.ok((r.statuses.reset ?? 0) + (r.statuses.hang ?? 0) > 0, 'answers were lost');
    assert.equal(r.failovers, 0);
    assert.ok(r.invariants.paidTwiceChecked);
    assert.deepEqual(r.invariants.paidTwice, []);
  });

  it('credential-expiry: a burst of 401s, and every claim replayed', async () => {
    const r = await runScenario(await loadScenario('credential-expiry'));
    passes(r);
    const unauthorised = r.statuses['401'] ?? 0;
    assert.ok(unauthorised > 0, 'a burst of 401s');
    // Token answers are the 200s that adjudicated nothing: one at the start, one after the
    // revocation, one per lifetime after that; never one per claim.
    const tokenFetches = (r.statuses['200'] ?? 0) - r.adjudicatedAnswers;
    assert.ok(tokenFetches >= 2 && tokenFetches <= 5, `${tokenFetches} token fetches`);
    // Each 401 is replayed once, and nothing else is sent again.
    assert.ok(r.attempts <= r.claims + unauthorised, `${r.attempts} attempts, ${r.claims} claims`);
    assert.ok((r.outcomes['dead-lettered'] ?? 0) / r.claims < 0.02);
  });

  it('crosswalk-repair: a 21 repaired or passed through, an unknown product mapped to 70', async () => {
    const r = await runScenario(await loadScenario('crosswalk-repair'));
    passes(r);
    assert.ok((r.rejectCodes['21'] ?? 0) > 0, 'a 21 with no successor passes through');
    assert.ok((r.rejectCodes['70'] ?? 0) > 0, 'the unknown product maps to 70');
  });
});
