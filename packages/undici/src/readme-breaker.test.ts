import assert from 'node:assert/strict';
import { CircuitBreaker, isBrokenCircuitError } from '@rxgate/breaker';
import { url } from './test-support/readme-vendor.js'; // not in the README

const breaker = new CircuitBreaker({
  policy: { kind: 'consecutive', threshold: 3 },
  // fetch resolves on a 503: this is what makes the 503 count as a failure.
  classifyResult: (res) => ((res as Response).status >= 500 ? 'failure' : 'success'),
});
for (let i = 0; i < 3; i++) await breaker.execute((signal) => fetch(url, { signal: signal ?? null }));
assert.equal(breaker.state, 'open'); // the fourth call is refused, never sent:
await assert.rejects(
  breaker.execute(() => fetch(url)),
  isBrokenCircuitError,
);
