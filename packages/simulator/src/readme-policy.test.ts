// The README's "your own policy configuration" example, verbatim (readme.test.ts checks they match).
import { test } from 'node:test';
import { parseScenario } from '@rxgate/simulator';
import { assertInvariants, runScenario, scenarioArbitrary } from '@rxgate/simulator/testing';
import fc from 'fast-check';

// What we run in production: our limiter, breaker and deadlines (not the generated ones).
const ours = {
  limiter: { ratePerSecond: 8, burst: 4 },
  breaker: {
    windowMs: 30_000,
    minimumCalls: 10,
    failureRate: 0.5,
    openMs: 5_000,
    maxProbes: 1,
    successesToClose: 2,
  },
  readTimeoutMs: 1_500,
  budgets: { pos: { retail: 800, specialty: 1200 }, batchMs: 60_000 },
};

test('our policy configuration keeps the invariants under any vendor and fault schedule', async () => {
  const withOurs = scenarioArbitrary({ maxDurationMs: 10_000 }).map((s) =>
    parseScenario({ ...s, name: 'ours', client: { ...s.client, ...ours } }),
  );
  await fc.assert(
    fc.asyncProperty(withOurs, async (scenario) => {
      assertInvariants(await runScenario(scenario), {
        scenarioFile: `.rxgate/failing-${scenario.seed}.json`,
      });
    }),
    { numRuns: 10, seed: 7 },
  );
});
