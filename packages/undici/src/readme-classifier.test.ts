import assert from 'node:assert/strict';
import { CircuitBreaker } from '@rxgate/breaker';
import { classifierAdapters } from '@rxgate/classifier';
import { url } from './test-support/readme-vendor.js'; // not in the README

// A verdict per answer (status and headers; the body is not read), as each policy takes it.
const judge = classifierAdapters();
const breaker = new CircuitBreaker({ ...judge.breaker }); // 5xx fail, 429 is ignored
const res = await breaker.execute(() => fetch(url));
assert.equal(judge.verdictOf({ ok: true, value: res })?.kind, 'transient');
assert.deepEqual(judge.retry({ ok: true, value: res }), { retry: true, reason: 'http-503' });
