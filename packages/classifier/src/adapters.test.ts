import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifierAdapters } from './adapters.js';
import { classify } from './classify.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const a = classifierAdapters({ now: () => NOW });
const fetchLike = (status: number, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers(headers),
});
const undiciLike = (statusCode: number, headers: Record<string, string> = {}) => ({ statusCode, headers });

describe('classifierAdapters', () => {
  it('breaker: a resolved 503 fails, a 429 is ignored, a 200 succeeds, an abort is ignored', () => {
    assert.equal(a.breaker.classifyResult(fetchLike(503)), 'failure');
    assert.equal(a.breaker.classifyResult(undiciLike(503)), 'failure');
    assert.equal(a.breaker.classifyResult(fetchLike(429)), 'ignore');
    assert.equal(a.breaker.classifyResult(fetchLike(200)), 'success');
    assert.equal(a.breaker.classifyResult('not a response'), 'success');
    assert.equal(a.breaker.classifyError(new DOMException('x', 'AbortError')), 'ignore');
    assert.equal(
      a.breaker.classifyError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })),
      'failure',
    );
  });

  it('retry: Retry-After in seconds and as an HTTP-date, from the verdict', () => {
    assert.deepEqual(a.retry({ ok: true, value: undiciLike(429, { 'retry-after': '3' }) }), {
      retry: true,
      retryAfterMs: 3000,
      reason: 'http-429',
    });
    const date = new Date(NOW + 7000).toUTCString();
    assert.equal(a.retry({ ok: true, value: fetchLike(503, { 'retry-after': date }) }).retryAfterMs, 7000);
  });

  it('retry: never what may have been committed, unless asked; never a definitive answer', () => {
    assert.equal(a.retry({ ok: true, value: fetchLike(500) }).retry, false);
    assert.equal(a.retry({ ok: true, value: fetchLike(200) }).retry, false);
    assert.equal(a.retry({ ok: false, error: new Error('socket hang up') }).retry, false);
    assert.equal(
      a.retry({ ok: false, error: Object.assign(new Error('x'), { code: 'ECONNREFUSED' }) }).retry,
      true,
    );
    assert.equal(
      classifierAdapters({ retryMaybeCommitted: true }).retry({ ok: true, value: fetchLike(502) }).retry,
      true,
    );
  });

  it('quotaOf: the verdict’s quota signal for the limiter; a verdict passes through as is', () => {
    assert.deepEqual(a.quotaOf(undiciLike(429, { 'retry-after': '2' })), {
      retryAfterMs: 2000,
      throttled: true,
    });
    const v = classify({ status: 503 }, { now: NOW });
    assert.equal(a.verdictOf({ ok: true, value: v }), v);
  });
});
