import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CallOutcome, wrap } from '@rxgate/core';
import { createBreakers } from './breakers.js';
import { CircuitBreaker } from './circuit-breaker.js';
import { isBrokenCircuitError, isPermitSettledError } from './errors.js';
import { breakerPolicy } from './policy.js';

const failOn5xx = (r: unknown): CallOutcome =>
  (r as { status: number }).status >= 500 ? 'failure' : 'success';

describe('breakerPolicy and classifyResult', () => {
  it('a resolved 503 counts as a failure through classifyResult and opens the breaker', async () => {
    const breaker = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 2 },
      classifyResult: failOn5xx,
    });
    const policy = breakerPolicy(breaker);
    for (let i = 0; i < 2; i++)
      assert.deepEqual(await policy.execute(async () => ({ status: 503 })), { status: 503 });
    assert.equal(breaker.state, 'open');
    await assert.rejects(
      policy.execute(async () => ({ status: 200 })),
      (e: unknown) => isBrokenCircuitError(e),
    );
  });

  it('without classifyResult a resolution is a success (the old behaviour)', async () => {
    const breaker = new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 1 } });
    await breaker.execute(async () => ({ status: 503 }));
    assert.equal(breaker.state, 'closed');
  });

  it('a throwing classifyResult counts as a failure and the value still comes back', async () => {
    const breaker = new CircuitBreaker({
      policy: { kind: 'consecutive', threshold: 1 },
      classifyResult: () => {
        throw new Error('judge broke');
      },
    });
    assert.equal(await breaker.execute(async () => 7), 7);
    assert.equal(breaker.state, 'open');
  });

  it('keyed breakers take the context key; one key’s failures never move another', async () => {
    const breakers = createBreakers({
      defaults: { policy: { kind: 'consecutive', threshold: 1 }, classifyResult: failOn5xx },
    });
    const policy = wrap(breakerPolicy(breakers));
    await policy.execute(async () => ({ status: 500 }), { key: 'primary:retail' });
    assert.deepEqual(breakers.states(), { 'primary:retail': 'open' });
    assert.deepEqual(await policy.execute(async () => ({ status: 200 }), { key: 'primary:specialty' }), {
      status: 200,
    });
  });

  it('Permit.settle(outcome) settles by value, once', () => {
    const breaker = new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 1 } });
    const permit = breaker.tryAcquire();
    assert.equal(permit.kind, 'permit');
    if (permit.kind !== 'permit') return;
    permit.settle('failure');
    assert.equal(breaker.state, 'open');
    assert.throws(() => permit.settle('success'), isPermitSettledError);
  });
});
