// The run's decisions as tables: the scenario per mode, the client's credentials and token
// margin, a claim's deadline, the lateness tolerated, which claims a worker sends, when the
// traffic ends. Expected values from the README and the CLI help, not from run-plan.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  claimLimit,
  clientCredentialsFor,
  deadlineMs,
  fileClaimLane,
  lateToleranceMs,
  nextArrival,
  phiOf,
  posBudgetMs,
  scenarioForMode,
  sendsClaim,
  seriesBucketMs,
  tokenMarginMs,
  trafficOver,
} from './run-plan.js';
import { loadScenario, parseScenario, type Scenario } from './scenario.js';

const steady = await loadScenario('steady');
const storm = await loadScenario('429-storm');
const withBudgets = (pos: Record<string, number>): Scenario =>
  parseScenario({ ...steady, client: { ...steady.client, budgets: { ...steady.client.budgets, pos } } });
const withTraffic = (traffic: Record<string, unknown>): Scenario =>
  parseScenario({ ...steady, traffic: { ...steady.traffic, ...traffic } });

describe('scenarioForMode', () => {
  it('virtual and loopback runs keep the scenario as it is', () => {
    for (const mode of ['virtual', 'loopback'] as const)
      assert.equal(scenarioForMode(storm, mode, {}), storm);
  });
  it('against a target no fault is injected; its bursts stay with generated traffic', () => {
    const s = scenarioForMode(storm, 'target', {});
    assert.deepEqual(s.faults, []);
    assert.deepEqual(s.traffic, storm.traffic);
    assert.ok(storm.faults.length > 0, 'the storm has faults to drop');
  });
  it('against a target with a claims file the bursts go too', () => {
    const bursty = withTraffic({ bursts: [{ atMs: 32_400_000, count: 50 }] });
    const s = scenarioForMode(bursty, 'target', { claims: [{}] });
    assert.deepEqual(s.traffic.bursts, []);
    assert.equal(s.traffic.ratePerSecond, bursty.traffic.ratePerSecond);
  });
  it('a worker of a shared run keeps the whole scenario, target or not', () => {
    assert.equal(scenarioForMode(storm, 'target', { share: { worker: 0, of: 2 } }), storm);
  });
});

describe('client credentials and the token margin', () => {
  const mine = { clientId: 'me', clientSecret: 's3' };
  const cases: [string, Parameters<typeof clientCredentialsFor>, ReturnType<typeof clientCredentialsFor>][] =
    [
      ['a target with credentials', ['target', mine, undefined], mine],
      ['a target without', ['target', undefined, 300], undefined],
      [
        'the vendor model issuing tokens',
        ['virtual', mine, 60],
        { clientId: 'rxgate-sim', clientSecret: 'sim-secret' },
      ],
      [
        'loopback, tokens',
        ['loopback', undefined, 60],
        { clientId: 'rxgate-sim', clientSecret: 'sim-secret' },
      ],
      ['the vendor model without tokens', ['virtual', mine, undefined], undefined],
    ];
  for (const [name, args, expected] of cases)
    it(name, () => assert.deepEqual(clientCredentialsFor(...args), expected));

  const margins: [number | undefined, number][] = [
    [60, 6000],
    [300, 30_000],
    [600, 60_000],
    [3600, 60_000],
    [undefined, 30_000],
  ];
  for (const [ttl, ms] of margins)
    it(`tokens of ${ttl ?? 'unknown (300)'} s are refreshed ${ms} ms early: a tenth, at most 60 s`, () =>
      assert.equal(tokenMarginMs(ttl), ms));
});

describe('deadlines and lateness', () => {
  const s = withBudgets({ retail: 600, specialty: 1500 });
  const cases: [string, Scenario, 'pos' | 'batch', string, number][] = [
    ['pos retail', s, 'pos', 'retail', 600],
    ['pos specialty', s, 'pos', 'specialty', 1500],
    ['pos of a segment with no budget: retail', s, 'pos', 'ltc', 600],
    ['batch: no deadline', s, 'batch', 'retail', Number.POSITIVE_INFINITY],
    ['no pos budgets at all: 800 ms', withBudgets({}), 'pos', 'retail', 800],
  ];
  for (const [name, sc, lane, segment, ms] of cases)
    it(name, () => assert.equal(deadlineMs(sc, lane, segment), ms));
  it('posBudgetMs is the pos deadline', () => assert.equal(posBudgetMs(s, 'specialty'), 1500));
  it('1 ms on the virtual clock, 25 ms on real timers', () => {
    assert.equal(lateToleranceMs(true), 1);
    assert.equal(lateToleranceMs(false), 25);
  });
});

describe('traffic', () => {
  it('a worker sends every n-th claim from its own offset, together all of them once', () => {
    const sent = [0, 1, 2].map((worker) =>
      [...Array(9).keys()].filter((i) => sendsClaim(i, { worker, of: 3 })),
    );
    assert.deepEqual(sent, [
      [0, 3, 6],
      [1, 4, 7],
      [2, 5, 8],
    ]);
    assert.ok([...Array(9).keys()].every((i) => sendsClaim(i, undefined)));
  });

  const over: [string, Parameters<typeof trafficOver>, boolean][] = [
    ['claims left, no duration', [4, 5, 1e9, undefined], false],
    ['every claim generated', [5, 5, 0, undefined], true],
    ['duration passed', [1, Number.POSITIVE_INFINITY, 60_000, 60_000], true],
    ['a millisecond before the end', [1, Number.POSITIVE_INFINITY, 59_999, 60_000], false],
  ];
  for (const [name, args, expected] of over)
    it(`over: ${name}`, () => assert.equal(trafficOver(...args), expected));

  const arrivals: [string, Parameters<typeof nextArrival>, ReturnType<typeof nextArrival>][] = [
    ['fired when due: the gap', [1000, 125, 1000], { dueAt: 1125, delayMs: 125 }],
    ['fired 40 ms late: the next sooner', [1000, 125, 1040], { dueAt: 1125, delayMs: 85 }],
    ['fired past the next one: at once', [1000, 125, 1300], { dueAt: 1125, delayMs: 0 }],
    ['a gap of nothing: at once', [1000, 0, 1000], { dueAt: 1000, delayMs: 0 }],
  ];
  for (const [name, args, expected] of arrivals)
    it(`next arrival: ${name}`, () => assert.deepEqual(nextArrival(...args), expected));

  it('next arrival: in virtual time the delay is the gap to the bit, so a virtual run is unchanged', () => {
    // Timers fire exactly when due there: an epoch-sized due time plus a fractional gap, taken back.
    let due = 1_798_761_600_000;
    for (const gap of [125, 1000 / 7, 0.1 + 0.2, 1e-3, 86_400_000 / 3]) {
      const next = nextArrival(due, gap, due);
      assert.equal(due + next.delayMs, due + gap);
      due = next.dueAt;
    }
  });

  it('the claims file bounds the traffic, then the scenario, else nothing', () => {
    assert.equal(claimLimit(withTraffic({ claims: 900 }), [{}, {}]), 2);
    assert.equal(claimLimit(withTraffic({ claims: 900 }), undefined), 900);
    const timed = withTraffic({ claims: undefined, durationMs: 60_000 });
    assert.equal(claimLimit(timed, undefined), Number.POSITIVE_INFINITY);
  });

  it('about 300 buckets over the span, a whole second at least', () => {
    assert.equal(seriesBucketMs(withTraffic({ claims: undefined, durationMs: 86_400_000 })), 288_000);
    assert.equal(
      seriesBucketMs(withTraffic({ claims: 100, durationMs: undefined, ratePerSecond: 10 })),
      1000,
    );
    assert.equal(
      seriesBucketMs(withTraffic({ claims: 30_000, durationMs: undefined, ratePerSecond: 10 })),
      10_000,
    );
  });

  it("a file's claims go in the scenario's main lane", () => {
    assert.equal(fileClaimLane(withTraffic({ lanes: { pos: 0.7, batch: 0.3 } })), 'pos');
    assert.equal(fileClaimLane(withTraffic({ lanes: { pos: 0.5, batch: 0.5 } })), 'pos');
    assert.equal(fileClaimLane(withTraffic({ lanes: { pos: 0.2, batch: 0.8 } })), 'batch');
  });

  it('the PHI of a wire claim: cardholder id, names, date of birth, a number included', () => {
    assert.deepEqual(
      phiOf({
        '302-C2': 'ZX9',
        '310-CA': 'Ana',
        '311-CB': 'Łoś',
        '304-C4': 19800101,
        '402-D2': 'RX1',
        '407-D7': 5,
      }),
      ['ZX9', 'Ana', 'Łoś', '19800101'],
    );
    assert.deepEqual(phiOf({ '302-C2': null, '304-C4': { y: 1980 } }), []);
  });
});
