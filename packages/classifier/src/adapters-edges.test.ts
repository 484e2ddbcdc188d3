// classifierAdapters at its edges: which transport errors count as never sent (also down a
// cause chain, as undici wraps them), which results are responses (fetch's and undici's
// shapes) or verdicts, and what `retry` retries: a throttle or a transient fault that was not
// processed, a maybe-committed one only when asked, never anything else.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifierAdapters } from './adapters.js';
import { classify } from './classify.js';

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const a = classifierAdapters({ now: () => NOW });
const err = (code: unknown, cause?: unknown) =>
  Object.assign(new Error('x'), { code }, cause ? { cause } : {});

describe('transport errors', () => {
  it('each connect-phase code is not-sent: retried, and a breaker failure', () => {
    for (const code of [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'UND_ERR_CONNECT_TIMEOUT',
      'ECONNRESET_BEFORE_SEND',
    ]) {
      assert.deepEqual(a.retry({ ok: false, error: err(code) }), { retry: true, reason: 'not-sent' }, code);
      assert.equal(a.breaker.classifyError(err(code)), 'failure', code);
    }
  });

  it('a connect-phase code down the cause chain counts; a chain that loops ends', () => {
    assert.equal(
      a.retry({ ok: false, error: new Error('fetch failed', { cause: err('ENOTFOUND') }) }).retry,
      true,
    );
    assert.equal(a.retry({ ok: false, error: err('X', err('Y', err('ECONNREFUSED'))) }).retry, true);
    const loop: { code: string; cause?: unknown } = { code: 'ELOOP' };
    loop.cause = loop;
    assert.deepEqual(a.retry({ ok: false, error: loop }), { retry: false, reason: 'no-answer-after-send' });
  });

  it('anything else after sending is ambiguous: not retried; a code that is no string is no code', () => {
    assert.deepEqual(a.retry({ ok: false, error: err('ECONNRESET') }), {
      retry: false,
      reason: 'no-answer-after-send',
    });
    assert.deepEqual(a.verdictOf({ ok: false, error: err(42) }), classify({ error: err(42), phase: 'sent' }));
    assert.equal(a.retry({ ok: false, error: 'a string' }).retry, false);
    assert.deepEqual(a.retry({ ok: false, error: null }), { retry: false, reason: 'no-answer-after-send' });
  });

  it('aborts and timeouts are ours: no verdict, ignored by the breaker, never retried', () => {
    for (const name of ['AbortError', 'TimeoutError']) {
      const e = new DOMException('stop', name);
      assert.equal(a.verdictOf({ ok: false, error: e }), undefined);
      assert.equal(a.breaker.classifyError(e), 'ignore');
      assert.deepEqual(a.retry({ ok: false, error: e }), { retry: false });
    }
  });

  it('phaseOf decides when given', () => {
    const sentAlways = classifierAdapters({ now: () => NOW, phaseOf: () => 'sent' });
    assert.equal(sentAlways.retry({ ok: false, error: err('ECONNREFUSED') }).retry, false);
    const neverSent = classifierAdapters({ now: () => NOW, phaseOf: () => 'not-sent' });
    assert.equal(neverSent.retry({ ok: false, error: err('ECONNRESET') }).retry, true);
  });
});

describe('results', () => {
  it("undici's statusCode is read before a status; a result without a numeric status is no response", () => {
    assert.equal(a.breaker.classifyResult({ statusCode: 503, status: 200, headers: {} }), 'failure');
    assert.equal(a.breaker.classifyResult({ status: '503' }), 'success');
    assert.equal(a.quotaOf({ status: '429', headers: { 'retry-after': '1' } }), undefined);
    assert.deepEqual(a.retry({ ok: true, value: null }), { retry: false });
    assert.deepEqual(a.retry({ ok: true, value: { status: '503' } }), { retry: false });
    assert.equal(a.verdictOf({ ok: true, value: 503 }), undefined);
  });

  it('an object with a kind but no commit is no verdict: it is read as a response', () => {
    assert.equal(a.breaker.classifyResult({ kind: 'adjudicated', status: 503 }), 'failure');
    const verdict = classify({ status: 429 }, { now: NOW });
    assert.equal(a.breaker.classifyResult(verdict), 'ignore');
    assert.equal(a.breaker.classifyResult({ ...verdict, kind: 7, status: 200 }), 'success');
  });

  it('now is read at each answer', () => {
    let now = NOW;
    const moving = classifierAdapters({ now: () => now });
    const date = new Date(NOW + 10_000).toUTCString();
    const value = { statusCode: 429, headers: { 'retry-after': date } };
    assert.equal(moving.retry({ ok: true, value }).retryAfterMs, 10_000);
    now += 4000;
    assert.equal(moving.retry({ ok: true, value }).retryAfterMs, 6000);
  });
});

describe('retry', () => {
  it('a throttle and a 503 are retried, with their wait; a 5xx that may be committed only when asked', () => {
    assert.deepEqual(a.retry({ ok: true, value: { statusCode: 503, headers: { 'retry-after': '4' } } }), {
      retry: true,
      retryAfterMs: 4000,
      reason: 'http-503',
    });
    assert.deepEqual(a.retry({ ok: true, value: { statusCode: 500, headers: {} } }), {
      retry: false,
      reason: 'http-500',
    });
    const bold = classifierAdapters({ now: () => NOW, retryMaybeCommitted: true });
    assert.deepEqual(bold.retry({ ok: true, value: { statusCode: 500, headers: {} } }), {
      retry: true,
      reason: 'http-500',
    });
  });

  it('never a definitive or refused answer that is no throttle or fault, even when asked', () => {
    const bold = classifierAdapters({ now: () => NOW, retryMaybeCommitted: true });
    for (const value of [
      classify({ status: 200, body: { '112-AN': 'P', '509-F9': '1.00' } }, { now: NOW }),
      classify({ status: 200, body: { '112-AN': 'Z' } }, { now: NOW }),
      { statusCode: 400, headers: {} },
      { statusCode: 401, headers: {} },
    ]) {
      assert.equal(bold.retry({ ok: true, value }).retry, false, JSON.stringify(value));
      assert.equal(a.retry({ ok: true, value }).retry, false, JSON.stringify(value));
    }
  });
});
