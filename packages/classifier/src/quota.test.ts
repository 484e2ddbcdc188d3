import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuota, resetToSeconds } from './quota.js';
import { parseRetryAfter } from './retry-after.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');

describe('parseQuota', () => {
  it('reads X-RateLimit-* and the X-Rate-Limit-* spelling', () => {
    assert.deepEqual(
      parseQuota(
        { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '42', 'x-ratelimit-reset': '7' },
        { now: NOW },
      ),
      {
        limit: 100,
        remaining: 42,
        resetSeconds: 7,
      },
    );
    assert.deepEqual(parseQuota({ 'X-Rate-Limit-Limit': '5', 'X-Rate-Limit-Remaining': '1' }, { now: NOW }), {
      limit: 5,
      remaining: 1,
    });
  });

  it('detects a reset in seconds, milliseconds, epoch seconds and epoch milliseconds', () => {
    const q = (reset: string) =>
      parseQuota({ 'x-ratelimit-remaining': '1', 'x-ratelimit-reset': reset }, { now: NOW })?.resetSeconds;
    assert.equal(q('30'), 30);
    assert.equal(q('90000'), 90, 'over a day in seconds: read as milliseconds');
    assert.equal(q(String(NOW / 1000 + 12)), 12);
    assert.equal(q(String(NOW + 2500)), 2.5);
    assert.equal(parseQuota({ 'x-ratelimit-reset-ms': '1500' }, { now: NOW })?.resetSeconds, 1.5);
    assert.equal(resetToSeconds(NOW / 1000 + 5, 0), undefined, 'an epoch needs an epoch clock');
  });

  it('reads the IETF structured fields and reports the most restrictive policy', () => {
    const headers = {
      'ratelimit-policy': '"burst";q=20;w=1, "daily";q=1000;w=86400',
      ratelimit: '"burst";r=15;t=1, "daily";r=3;t=3600',
    };
    // 3 left for an hour is tighter than 15 left for a second.
    assert.deepEqual(parseQuota(headers, { now: NOW }), {
      limit: 1000,
      remaining: 3,
      resetSeconds: 3600,
      windowSeconds: 86400,
      policy: 'daily',
    });
    assert.deepEqual(
      parseQuota(
        { 'ratelimit-policy': '"default";q=100;w=10', ratelimit: '"default";r=42;t=7' },
        { now: NOW },
      ),
      {
        limit: 100,
        remaining: 42,
        resetSeconds: 7,
        windowSeconds: 10,
        policy: 'default',
      },
    );
  });

  it('an exhausted policy is the most restrictive', () => {
    const q = parseQuota({ ratelimit: '"a";r=50;t=1, "b";r=0;t=9' }, { now: NOW });
    assert.deepEqual(q, { remaining: 0, resetSeconds: 9, policy: 'b' });
  });

  it('reads the older IETF drafts', () => {
    assert.deepEqual(parseQuota({ ratelimit: 'limit=10, remaining=4, reset=3' }, { now: NOW }), {
      limit: 10,
      remaining: 4,
      resetSeconds: 3,
    });
    assert.deepEqual(
      parseQuota(
        { 'ratelimit-limit': '10', 'ratelimit-remaining': '2', 'ratelimit-reset': '5' },
        { now: NOW },
      ),
      {
        limit: 10,
        remaining: 2,
        resetSeconds: 5,
      },
    );
  });

  describe('RateLimit and RateLimit-Policy as RFC 9651 structured fields', () => {
    const q = (ratelimit: string, policy?: string) =>
      parseQuota(
        { ratelimit, ...(policy === undefined ? {} : { 'ratelimit-policy': policy }) },
        { now: NOW },
      );

    it('a quoted parameter holding ";" and "=" is one string, not more parameters', () => {
      // A splitter on ";" reads t from the comment ('1"'), loses it, and keeps 42 remaining.
      assert.deepEqual(q('"default";r=42;t=7;note="r=0;t=1"', '"default";q=100;w=10'), {
        limit: 100,
        remaining: 42,
        resetSeconds: 7,
        windowSeconds: 10,
        policy: 'default',
      });
    });

    it('an escaped quote in a policy name does not swallow the next policy', () => {
      // A splitter that flips "quoted" at every '"' joins the two items, and the second one's
      // r=50 overwrites the first one's r=0: an exhausted quota read as 50 left.
      assert.deepEqual(q('"tier \\"gold\\"";r=0;t=9, "burst";r=50;t=1'), {
        remaining: 0,
        resetSeconds: 9,
        policy: 'tier "gold"',
      });
    });

    it('a quoted comma in a parameter of the policy keeps the policies apart', () => {
      assert.deepEqual(
        q('"a";r=5;t=60, "b";r=40;t=1', '"a";q=10;w=60;comment="per user, per hour", "b";q=50;w=1'),
        { limit: 10, remaining: 5, resetSeconds: 60, windowSeconds: 60, policy: 'a' },
      );
    });

    it('reports the window the chosen policy declares (w), so a limiter need not guess it', () => {
      assert.equal(q('"default";r=42;t=7', '"default";q=100;w=10')?.windowSeconds, 10);
      // The window of the policy reported, not of another one.
      assert.equal(q('"a";r=5;t=60, "b";r=40;t=1', '"a";q=10;w=60, "b";q=50;w=1')?.windowSeconds, 60);
      // No window declared, or one that is no length: none reported.
      assert.equal(q('"default";r=42;t=7', '"default";q=100')?.windowSeconds, undefined);
      assert.equal(q('"default";r=42;t=7', '"default";q=100;w=0')?.windowSeconds, undefined);
    });

    it('reads token names, decimals, boolean and byte-sequence parameters, and a partition key', () => {
      assert.deepEqual(q('default;r=3;t=2.5;pk=:cHJvZ3JhbTE=:;x', 'default;q=10;w=10'), {
        limit: 10,
        remaining: 3,
        resetSeconds: 2.5,
        windowSeconds: 10,
        policy: 'default',
      });
    });

    it('what the parser refuses is still read leniently, as before', () => {
      // Upper-case keys and spaces around "=" are not RFC 9651, but vendors send them.
      assert.deepEqual(q('"default"; R=1; r = 4; t = 3'), {
        remaining: 4,
        resetSeconds: 3,
        policy: 'default',
      });
      assert.equal(q(';;;'), undefined);
    });
  });

  it('ignores malformed values and never throws', () => {
    assert.equal(
      parseQuota({ 'x-ratelimit-remaining': 'lots', ratelimit: ';;;', 'retry-after': 'soon' }, { now: NOW }),
      undefined,
    );
    assert.equal(parseQuota(undefined, { now: NOW }), undefined);
    assert.deepEqual(parseQuota({ 'x-ratelimit-remaining': '-3', 'x-ratelimit-limit': '10' }, { now: NOW }), {
      limit: 10,
    });
  });

  it('includes Retry-After', () => {
    assert.deepEqual(parseQuota({ 'retry-after': '2' }, { now: NOW }), { retryAfterMs: 2000 });
  });
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds', () => {
    assert.equal(parseRetryAfter('120', { now: NOW }), 120_000);
    assert.equal(parseRetryAfter(' 0 ', { now: NOW }), 0);
  });

  it('reads an HTTP-date in all three forms', () => {
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 12:00:05 GMT', { now: NOW }), 5000);
    assert.equal(parseRetryAfter('Monday, 30-Nov-26 12:00:06 GMT', { now: NOW }), 6000);
    assert.equal(parseRetryAfter('Mon Nov 30 12:00:07 2026', { now: NOW }), 7000);
  });

  it('corrects an HTTP-date by the Date header against clock skew', () => {
    // The server's clock is 60 s ahead of ours; it asks for 5 s.
    const date = 'Mon, 30 Nov 2026 12:01:00 GMT';
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 12:01:05 GMT', { now: NOW, date }), 5000);
  });

  it('a date in the past is 0; malformed, negative or absurd values are undefined', () => {
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', { now: NOW }), 0);
    for (const bad of ['-5', 'soon', '', '1e3', 'Mon, 30 Nov 2026', '99999999999', undefined, 12]) {
      assert.equal(parseRetryAfter(bad, { now: NOW }), undefined, String(bad));
    }
  });
});
