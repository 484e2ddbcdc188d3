// The cross-package property suite: fast-check generates scenarios (traffic, fault schedules,
// node setups) and every safety invariant holds on every one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClaim } from '@rxgate/router';
import fc from 'fast-check';
import {
  assertInvariants,
  invalidClaimArbitrary,
  runScenario,
  scenarioArbitrary,
  validClaimArbitrary,
} from './testing.js';

describe('simulator properties', () => {
  it('every invariant holds on every generated scenario', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary({ maxDurationMs: 15_000 }), async (scenario) => {
        // The substring PHI oracle over every text of the run, not a sample.
        const run = await runScenario(scenario, { phiOracleSample: Number.POSITIVE_INFINITY });
        assert.ok(run.invariants.phiOracleTexts > 0);
        assertInvariants(run);
        assert.equal(run.invariants.notExactlyOnce.length, 0);
      }),
      { numRuns: 30 },
    );
  });

  it('the claim arbitraries agree with the router', () => {
    fc.assert(fc.property(validClaimArbitrary(), (c) => void parseClaim(c)));
    fc.assert(
      fc.property(invalidClaimArbitrary(), ({ claim, badFields }) => {
        assert.throws(
          () => parseClaim(claim),
          (e: { issues?: Array<{ field: string }> }) =>
            badFields.every((f) => e.issues?.some((i) => i.field === f)),
        );
      }),
    );
  });
});
