// headers.ts on its own: every shape a client hands over (a record as undici gives it, a
// Headers object, pairs), names in any case, values as strings, numbers and lists. Read through
// parseQuota, which is what every caller sees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headerReader } from './headers.js';
import { parseQuota } from './quota.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const quota = (headers: Parameters<typeof parseQuota>[0]) => parseQuota(headers, { now: NOW });

describe('header names', () => {
  it('are read whatever their case, one upper-case letter is enough', () => {
    assert.deepEqual(quota({ 'retry-After': '5' }), { retryAfterMs: 5000 });
    assert.deepEqual(quota({ 'RETRY-AFTER': '5' }), { retryAfterMs: 5000 });
    assert.deepEqual(quota({ 'x-ratelimit-Limit': '9', 'x-ratelimit-remaining': '3' }), {
      limit: 9,
      remaining: 3,
    });
    // A lower-case quota name before an upper-case one: both are read.
    assert.deepEqual(quota({ 'x-ratelimit-limit': '9', 'X-RateLimit-Remaining': '3' }), {
      limit: 9,
      remaining: 3,
    });
  });

  it('every quota header is found in lower case, among others', () => {
    const other = { 'content-type': 'application/json', date: 'Mon, 30 Nov 2026 12:00:00 GMT' };
    assert.deepEqual(quota({ ...other, 'x-rate-limit-limit': '4' }), { limit: 4 });
    assert.deepEqual(quota({ ...other, 'x-ratelimit-reset-ms': '100' }), { resetSeconds: 0.1 });
    assert.deepEqual(quota({ ...other, 'ratelimit-remaining': '2' }), { remaining: 2 });
    assert.deepEqual(quota({ ...other, ratelimit: '"p";r=1;t=2' }), {
      remaining: 1,
      resetSeconds: 2,
      policy: 'p',
    });
    assert.deepEqual(quota({ ...other, 'retry-after': '1' }), { retryAfterMs: 1000 });
    assert.equal(quota(other), undefined);
  });
});

describe('header values', () => {
  it('a finite number is its decimal text; anything else that is not text is no value', () => {
    assert.deepEqual(quota({ 'x-ratelimit-limit': 10, 'x-ratelimit-remaining': 4 }), {
      limit: 10,
      remaining: 4,
    });
    assert.equal(quota({ 'x-ratelimit-limit': Number.NaN }), undefined);
    assert.equal(quota({ 'x-ratelimit-limit': Number.POSITIVE_INFINITY }), undefined);
    assert.equal(quota({ 'x-ratelimit-limit': null, 'x-ratelimit-remaining': undefined }), undefined);
  });

  it('a list is its text values joined by ", " (a repeated header), other items left out', () => {
    assert.deepEqual(quota({ 'x-ratelimit-limit': ['10', '20'] }), { limit: 10 });
    assert.deepEqual(quota({ ratelimit: ['"a";r=5;t=1', '"b";r=0;t=9'] }), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
    assert.deepEqual(quota({ 'x-ratelimit-limit': [7 as unknown as string, '8'] }), { limit: 8 });
    assert.equal(quota({ 'x-ratelimit-limit': [] }), undefined);
    assert.equal(quota({ 'x-ratelimit-limit': [7 as unknown as string] }), undefined);
  });
});

describe('header shapes', () => {
  it('a Headers object', () => {
    assert.deepEqual(quota(new Headers({ 'Retry-After': '3', 'X-RateLimit-Remaining': '0' })), {
      remaining: 0,
      retryAfterMs: 3000,
    });
  });

  it('pairs, a malformed pair among them left out', () => {
    const pairs = [['Retry-After', '2'], ['x-ratelimit-limit'], 'junk', ['x-ratelimit-remaining', '1']];
    assert.deepEqual(quota(pairs as unknown as [string, string][]), { remaining: 1, retryAfterMs: 2000 });
  });

  it('no headers, or something that is no header collection, reads nothing and never throws', () => {
    for (const input of [undefined, null, 'retry-after: 5', 5, true] as const) {
      const h = headerReader(input as never);
      assert.equal(h('retry-after'), undefined, String(input));
      assert.equal(h.quota, false);
      assert.equal(quota(input as never), undefined);
    }
  });

  it('a record whose reading throws reads nothing', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('no');
        },
      },
    );
    assert.equal(headerReader(hostile)('retry-after'), undefined);
  });
});

describe('headerValue', () => {
  it('is record[name], for every name read by name and any other, any record (property)', async () => {
    const fc = (await import('fast-check')).default;
    const { NAMED_HEADERS, headerValue } = await import('./headers.js');
    const name = fc.oneof(
      fc.constantFrom(...NAMED_HEADERS),
      fc.constantFrom('content-type', 'x', '__proto__'),
      fc.string(),
    );
    const value = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.constant(undefined),
    );
    fc.assert(
      fc.property(fc.dictionary(name, value), name, (record, n) => {
        assert.equal(headerValue(record, n), record[n]);
      }),
      { numRuns: 3000 },
    );
    // Every name present with a value of its own: each read under its own name.
    const all: Record<string, unknown> = Object.fromEntries(NAMED_HEADERS.map((n, i) => [n, `${i}`]));
    for (const n of NAMED_HEADERS) assert.equal(headerValue(all, n), all[n], n);
  });
});
