// The README's ten-line example, kept verbatim as a test of ours (readme.test.ts checks they match).
import { test } from 'node:test';
import { assertInvariants, runScenario, scenarioArbitrary } from '@rxgate/simulator/testing';
import fc from 'fast-check';

test('rxgate keeps its invariants under generated chaos', async () => {
  await fc.assert(
    fc.asyncProperty(scenarioArbitrary({ maxDurationMs: 15_000 }), async (scenario) => {
      assertInvariants(await runScenario(scenario));
    }),
    { numRuns: 30, seed: 42 },
  );
});
