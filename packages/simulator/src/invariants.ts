// The run's invariants and its report lists, as pure functions of what the observers recorded:
// every claim ends exactly once, pos claims meet their deadline, nothing is paid twice,
// throughput comes back after the last fault, every fault fired. Tested as tables in
// invariants.test.ts.
import type { ClaimTrace, Invariants } from './run-types.js';
import type { Scenario } from './scenario.js';
import type { Series } from './series.js';

/** Claims (by index) that did not end in exactly one outcome. */
export function notExactlyOnce(settleCount: readonly number[], total: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < total; i++) if (settleCount[i] !== 1) out.push(i);
  return out;
}

/** pos claims (by index) that took longer than their budget plus the tolerance. */
export function deadlineMisses(
  total: number,
  lanes: readonly ('pos' | 'batch')[],
  segments: readonly string[],
  elapsed: readonly (number | undefined)[],
  budgetOf: (segment: string) => number,
  toleranceMs: number,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < total; i++) {
    if (lanes[i] !== 'pos') continue;
    if ((elapsed[i] ?? 0) > budgetOf(segments[i]!) + toleranceMs) out.push(i);
  }
  return out;
}

/** Fault windows (by index) that never fired. */
export function faultsNeverFired(fired: readonly number[]): number[] {
  return fired.flatMap((n, i) => (n === 0 ? [i] : []));
}

/** After the last fault window healed: when throughput was back, and whether within the allowed time. */
export function checkLiveness(
  s: Scenario,
  series: Pick<Series, 'buckets' | 'bucketMs'>,
  quota: number | undefined,
  spanMs: number,
): Invariants['liveness'] {
  const withinMs = s.liveness.withinMs;
  if (s.faults.length === 0) return { applicable: false, recoveredAfterMs: undefined, withinMs, ok: true };
  const healedAt = Math.max(...s.faults.map((f) => f.endMs));
  const after = series.buckets.filter((b) => b.t >= healedAt && b.t + series.bucketMs <= spanMs);
  // Throughput "returns to the quota": adjudicated answers reach 90 % of what the traffic and
  // the quota allow in a bucket (the lesser of the claims offered and the quota).
  const capacity =
    Math.min(quota ?? Number.POSITIVE_INFINITY, s.client.limiter.ratePerSecond) * (series.bucketMs / 1000);
  const busy = after.filter((b) => b.submitted >= 1);
  if (busy.length < 2) return { applicable: false, recoveredAfterMs: undefined, withinMs, ok: true };
  for (const b of busy) {
    const expected = Math.min(capacity, b.submitted);
    if (b.adjudicated >= 0.9 * expected) {
      const recoveredAfterMs = Math.max(0, b.t - healedAt);
      return { applicable: true, recoveredAfterMs, withinMs, ok: recoveredAfterMs <= withinMs };
    }
  }
  return { applicable: true, recoveredAfterMs: undefined, withinMs, ok: false };
}

/** What the run knows of each claim by index, for the report's lists. */
export interface ClaimColumns {
  readonly lanes: readonly ('pos' | 'batch')[];
  readonly elapsed: readonly (number | undefined)[];
  readonly correlation: readonly (string | undefined)[];
  readonly kinds: readonly (string | undefined)[];
}

/** The claims that broke an invariant (the first 50) and the traced ones, with their audit trail. */
export function brokenTraces(
  c: ClaimColumns,
  broken: readonly number[],
  traced: ReadonlySet<string>,
  auditOf: (correlationId: string) => ClaimTrace['records'] | undefined,
): ClaimTrace[] {
  const brokenIdx = [...new Set(broken)].slice(0, 50);
  const tracedIdx = [...c.correlation.keys()].filter((i) => traced.has(c.correlation[i] ?? ''));
  return [...new Set([...brokenIdx, ...tracedIdx])].map((i) => ({
    index: i,
    correlationId: c.correlation[i] ?? '',
    lane: c.lanes[i]!,
    records: auditOf(c.correlation[i] ?? '') ?? [],
  }));
}

/** The ten slowest claims (ties by index), times to the hundredth of a millisecond. */
export function slowestClaims(c: ClaimColumns, n = 10) {
  // One pass keeping the n slowest in order (a day holds 500,000 claims: no sort of them all).
  const top: number[] = [];
  for (let i = 0; i < c.elapsed.length; i++) {
    const e = c.elapsed[i];
    if (e === undefined) continue;
    // Scanned in index order, a tie never beats a claim already kept.
    if (top.length === n && !(e > c.elapsed[top[n - 1]!]!)) continue;
    let at = top.length;
    while (at > 0 && e > c.elapsed[top[at - 1]!]!) at--;
    top.splice(at, 0, i);
    if (top.length > n) top.pop();
  }
  return top.map((i) => ({
    correlationId: c.correlation[i]!,
    lane: c.lanes[i]!,
    elapsedMs: Math.round(c.elapsed[i]! * 100) / 100,
    kind: c.kinds[i]!,
  }));
}
