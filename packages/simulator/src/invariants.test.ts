// The invariants as tables, on hand-made columns and series: exactly one outcome per claim, pos
// deadlines, faults that never fired, throughput back within the
// allowed time after the last fault (90 % of what traffic and quota allow in a bucket), and the
// report's lists of broken and slowest claims.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  brokenTraces,
  checkLiveness,
  deadlineMisses,
  faultsNeverFired,
  notExactlyOnce,
  slowestClaims,
} from './invariants.js';
import { loadScenario, parseScenario, type Scenario } from './scenario.js';
import { Series } from './series.js';

describe('exactly once', () => {
  const cases: [string, number[], number, number[]][] = [
    ['every claim once', [1, 1, 1], 3, []],
    ['one never settled, one twice', [1, 0, 2, 1], 4, [1, 2]],
    ['a claim submitted but missing from the counts', [1], 2, [1]],
    ['nothing submitted', [], 0, []],
  ];
  for (const [name, counts, total, expected] of cases)
    it(name, () => assert.deepEqual(notExactlyOnce(counts, total), expected));
});

describe('deadline misses', () => {
  const budget = (seg: string) => (seg === 'specialty' ? 1500 : 600);
  it('pos claims past budget + tolerance only; batch never; an unsettled claim is no miss here', () => {
    const lanes = ['pos', 'pos', 'pos', 'batch', 'pos', 'pos'] as const;
    const segments = ['retail', 'retail', 'specialty', 'retail', 'retail', 'retail'];
    const elapsed = [601, 602, 1501, 99_999, undefined, 0];
    assert.deepEqual(deadlineMisses(6, [...lanes], segments, elapsed, budget, 1), [1]);
    assert.deepEqual(deadlineMisses(6, [...lanes], segments, elapsed, budget, 0), [0, 1, 2]);
    assert.deepEqual(
      deadlineMisses(2, [...lanes], segments, elapsed, budget, 0),
      [0, 1],
      'only the submitted',
    );
  });
});

describe('faults never fired', () => {
  it('windows with no firing', () => assert.deepEqual(faultsNeverFired([3, 0, 1, 0]), [1, 3]));
});

const base = await loadScenario('503-maintenance');
describe('liveness after the last fault', () => {
  // One fault healed at 10 s, quota and limiter 10/s, 1 s buckets: a bucket's capacity is 10.
  const scenario = (over: Record<string, unknown> = {}): Scenario =>
    parseScenario({
      ...base,
      faults: [{ ...base.faults[0]!, startMs: 2000, endMs: 10_000 }],
      liveness: { withinMs: 3000 },
      client: { ...base.client, limiter: { ...base.client.limiter, ratePerSecond: 10 } },
      ...over,
    });
  const series = (rows: [submitted: number, adjudicated: number][]) => {
    const s = new Series(1000);
    rows.forEach(([submitted, adjudicated], i) => {
      const b = s.at(i * 1000);
      b.submitted = submitted;
      b.adjudicated = adjudicated;
    });
    return s;
  };
  const before = Array.from({ length: 10 }, () => [10, 0] as [number, number]);
  it('back in the bucket where 90 % of the capacity was adjudicated', () => {
    const s = series([...before, [10, 5], [10, 8], [10, 9], [10, 10]]);
    assert.deepEqual(checkLiveness(scenario(), s, 10, 14_000), {
      applicable: true,
      recoveredAfterMs: 2000,
      withinMs: 3000,
      ok: true,
    });
  });
  it('back too late fails', () => {
    const s = series([...before, [10, 0], [10, 0], [10, 0], [10, 0], [10, 9], [10, 9]]);
    assert.deepEqual(checkLiveness(scenario(), s, 10, 16_000), {
      applicable: true,
      recoveredAfterMs: 4000,
      withinMs: 3000,
      ok: false,
    });
  });
  it('never back fails, with no recovery time', () => {
    const s = series([...before, [10, 1], [10, 1], [10, 1]]);
    assert.deepEqual(checkLiveness(scenario(), s, 10, 13_000), {
      applicable: true,
      recoveredAfterMs: undefined,
      withinMs: 3000,
      ok: false,
    });
  });
  it('light traffic is judged against what was offered, a tighter quota against the quota', () => {
    assert.equal(
      checkLiveness(scenario(), series([...before, [2, 2], [2, 2]]), 10, 12_000).recoveredAfterMs,
      0,
    );
    assert.equal(
      checkLiveness(scenario(), series([...before, [10, 5], [10, 5]]), 5, 12_000).recoveredAfterMs,
      0,
    );
    assert.equal(checkLiveness(scenario(), series([...before, [10, 4], [10, 5]]), 10, 12_000).ok, false);
  });
  it('a bucket still filling at the end of the span does not count', () => {
    const s = series([...before, [10, 0], [10, 0], [10, 10]]);
    assert.deepEqual(
      checkLiveness(scenario(), s, 10, 12_500),
      { applicable: true, recoveredAfterMs: undefined, withinMs: 3000, ok: false },
      'the recovered bucket ends after the span: not seen',
    );
    assert.equal(checkLiveness(scenario(), s, 10, 13_000).recoveredAfterMs, 2000);
  });
  it('no faults, or under two busy buckets after the last one: not applicable, ok', () => {
    const none = { applicable: false, recoveredAfterMs: undefined, withinMs: 3000, ok: true };
    assert.deepEqual(checkLiveness(scenario({ faults: [] }), series(before), 10, 10_000), none);
    assert.deepEqual(
      checkLiveness(scenario(), series([...before, [10, 0], [0, 0], [0, 0]]), 10, 13_000),
      none,
    );
  });
});

describe('the report lists', () => {
  const columns = {
    lanes: ['pos', 'batch', 'pos', 'pos'] as ('pos' | 'batch')[],
    elapsed: [120.456, 9000, undefined, 120.456],
    correlation: ['c0', 'c1', undefined, 'c3'],
    kinds: ['paid', 'paid', undefined, 'rejected'],
  };
  it('slowest first, ties by index, to the hundredth of a millisecond, unsettled left out', () => {
    assert.deepEqual(slowestClaims(columns), [
      { correlationId: 'c1', lane: 'batch', elapsedMs: 9000, kind: 'paid' },
      { correlationId: 'c0', lane: 'pos', elapsedMs: 120.46, kind: 'paid' },
      { correlationId: 'c3', lane: 'pos', elapsedMs: 120.46, kind: 'rejected' },
    ]);
    assert.equal(slowestClaims(columns, 1).length, 1);
  });
  it('broken claims once each, then the traced ones, with their audit trail', () => {
    const audit = new Map([['c3', [{ correlationId: 'c3' } as never]]]);
    const traces = brokenTraces(columns, [3, 2, 3], new Set(['c1']), (id) => audit.get(id));
    assert.deepEqual(
      traces.map((t) => [t.index, t.correlationId, t.lane, t.records.length]),
      [
        [3, 'c3', 'pos', 1],
        [2, '', 'pos', 0],
        [1, 'c1', 'batch', 0],
      ],
    );
  });
  it('at most 50 broken claims, traced ones besides', () => {
    const many = {
      lanes: Array.from({ length: 80 }, () => 'pos' as const),
      elapsed: [],
      correlation: Array.from({ length: 80 }, (_, i) => `c${i}`),
      kinds: [],
    };
    const traces = brokenTraces(many, [...Array(80).keys()], new Set(['c79']), () => undefined);
    assert.equal(traces.length, 51);
    assert.equal(traces.at(-1)?.correlationId, 'c79');
  });
});

describe('slowestClaims, held to its definition', () => {
  it('the n slowest by elapsed time (ties by index), as sorting every claim would give', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }), { maxLength: 60 }),
        fc.integer({ min: 0, max: 12 }),
        (elapsed, n) => {
          const columns = {
            lanes: elapsed.map(() => 'pos' as const),
            elapsed,
            correlation: elapsed.map((_, i) => `c${i}`),
            kinds: elapsed.map(() => 'paid'),
          };
          const reference = [...elapsed.keys()]
            .filter((i) => elapsed[i] !== undefined)
            .sort((a, b) => elapsed[b]! - elapsed[a]! || a - b)
            .slice(0, n)
            .map((i) => `c${i}`);
          assert.deepEqual(
            slowestClaims(columns, n).map((x) => x.correlationId),
            reference,
          );
        },
      ),
    );
  });
});
