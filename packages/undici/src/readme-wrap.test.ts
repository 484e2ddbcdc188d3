import assert from 'node:assert/strict';
import { breakerPolicy, CircuitBreaker } from '@rxgate/breaker';
import { classifierAdapters } from '@rxgate/classifier';
import { wrap } from '@rxgate/core';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';
import { hits, url } from './test-support/readme-vendor.js'; // not in the README

const judge = classifierAdapters(); // the verdict, as each policy takes it
const policy = wrap(
  // outermost first: paced once, every attempt through the breaker
  limiterPolicy(createLimiter({ account: { ratePerSecond: 10, burst: 10 } }), { quotaOf: judge.quotaOf }),
  retryPolicy({ maxRetries: 4, backoff: { kind: 'full', baseMs: 10, capMs: 1000 }, judge: judge.retry }),
  breakerPolicy(new CircuitBreaker({ ...judge.breaker })),
);
const res = await policy.execute(({ signal }) => fetch(url, { signal: signal ?? null }), {
  key: '610014/ADV',
});
assert.equal(res.status, 200);
assert.equal(hits(), 3);
