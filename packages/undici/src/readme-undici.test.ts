import assert from 'node:assert/strict';
import { breakerPolicy, CircuitBreaker } from '@rxgate/breaker';
import { classifierAdapters } from '@rxgate/classifier';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';
import { breaker, classify, limit, retry } from '@rxgate/undici';
import { Agent, request } from 'undici';
import { hits, url } from './test-support/readme-vendor.js'; // not in the README

const judge = classifierAdapters();
const seen: string[] = [];
const agent = new Agent().compose(
  // undici: the last interceptor is the outermost
  breaker(breakerPolicy(new CircuitBreaker({ ...judge.breaker }))), // every attempt
  limit(limiterPolicy(createLimiter({ account: { ratePerSecond: 10, burst: 10 } }))), // paces each attempt
  retry(
    retryPolicy({ maxRetries: 4, backoff: { kind: 'full', baseMs: 10, capMs: 1000 }, judge: judge.retry }),
  ),
  classify({ verdictOf: judge.verdictOf, onVerdict: (v) => seen.push(`${v.status} ${v.breaker}`) }), // what the caller gets
);
const res = await request(url, { dispatcher: agent });
assert.equal(res.statusCode, 200);
assert.equal(hits(), 3);
assert.deepEqual(seen, ['200 success']);
await agent.close();
