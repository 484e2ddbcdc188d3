import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadScenario, parseScenario, SCENARIO_NAMES, ScenarioError, scenarioHash } from './scenario.js';

describe('scenarios', () => {
  it('every named scenario loads and validates', async () => {
    for (const name of SCENARIO_NAMES) {
      const s = await loadScenario(name);
      assert.equal(s.name, name);
    }
    const day = await loadScenario('pharmacy-day');
    assert.ok((day.traffic.claims ?? 0) >= 500_000);
    assert.ok(new Set(day.faults.map((f) => f.kind)).size >= 10, 'a little of every fault');
  });

  it('bad scenarios are refused with errors naming the field', () => {
    const bad = {
      name: 'x',
      traffic: { ratePerSecond: -1, payers: [{ bin: '12', pcn: 'A' }] },
      vendor: { quota: { kind: 'window', limit: 10, windowMs: 1000 } },
      client: { limiter: { ratePerSecond: 10, burst: 5 } },
      faults: [{ kind: 'meteor', startMs: 10, endMs: 5 }],
      thresholds: ['fast please'],
    };
    assert.throws(
      () => parseScenario(bad, 'bad.json'),
      (e) => {
        assert.ok(e instanceof ScenarioError);
        const paths = e.issues.map((i) => i.path);
        for (const p of ['traffic.ratePerSecond', 'traffic.payers.0.bin', 'faults.0.kind', 'thresholds.0'])
          assert.ok(paths.includes(p), `${p} in ${paths}`);
        assert.match(e.message, /bad\.json/);
        return true;
      },
    );
  });

  it('an unknown name or file says what exists', async () => {
    await assert.rejects(loadScenario('nope'), (e) => e instanceof ScenarioError && /steady/.test(e.message));
  });

  it('the hash changes with the scenario and not with key order', async () => {
    const a = await loadScenario('steady');
    const reordered = parseScenario(
      JSON.parse(
        JSON.stringify({
          thresholds: a.thresholds,
          client: a.client,
          vendor: a.vendor,
          traffic: a.traffic,
          description: a.description,
          name: a.name,
          seed: a.seed,
        }),
      ),
    );
    assert.equal(scenarioHash(reordered), scenarioHash(a));
    assert.notEqual(scenarioHash({ ...a, seed: 2 }), scenarioHash(a));
  });
});
