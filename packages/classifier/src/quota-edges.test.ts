// The edges of the quota headers as vendors send them, checked against what the headers mean
// (RFC 9651 and the RateLimit drafts, X-RateLimit-* as the big APIs spell them), not against
// how quota.ts reads them: a number read by a regular expression, resets by their units, the
// most restrictive of several policies by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseQuota, resetToSeconds } from './quota.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const q = (headers: Record<string, string>) => parseQuota(headers, { now: NOW });

// A header number as the X-RateLimit-* vendors write it: optional blanks, digits, at most one
// decimal part with digits on both sides, optional blanks, then the end or a comma (a repeated
// header joined by undici). Anything else is not a number.
function referenceNumber(v: string): number | undefined {
  const m = /^[ \t]*([0-9]+(?:\.[0-9]+)?)[ \t]*(?:,.*)?$/s.exec(v);
  if (m === null) return undefined;
  const x = Number(m[1]);
  return Number.isFinite(x) ? x : undefined;
}

describe('a quota number in a header', () => {
  it('is read exactly when it is a plain decimal, with blanks and a comma after it allowed', () => {
    const unit = fc.constantFrom(' ', '\t', '0', '1', '7', '9', '.', ',', 'x', '-', '+', 'e');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (v) => {
        assert.equal(q({ 'x-ratelimit-limit': v })?.limit, referenceNumber(v), JSON.stringify(v));
      }),
    );
  });

  it('the cases by name', () => {
    const limit = (v: string) => q({ 'x-ratelimit-limit': v })?.limit;
    assert.equal(limit('10'), 10);
    assert.equal(limit(' \t10 \t'), 10);
    assert.equal(limit('10, 20'), 10, 'a repeated header, joined: the first');
    assert.equal(limit('2.5'), 2.5);
    assert.equal(limit('10.'), undefined, 'a trailing dot');
    assert.equal(limit('.5'), undefined, 'a leading dot');
    assert.equal(limit('1.2.3'), undefined);
    assert.equal(limit('10 x'), undefined);
    assert.equal(limit('1e3'), undefined);
    assert.equal(limit('-1'), undefined);
    assert.equal(limit(''), undefined);
    assert.equal(limit('   '), undefined);
    assert.equal(limit('9'.repeat(400)), undefined, 'not a finite number');
  });
});

describe('resetToSeconds reads a reset by its size', () => {
  const EPOCH_MS = 1_800_000_000_000; // an epoch clock, in milliseconds
  it('up to a day: seconds; up to a day in milliseconds: milliseconds; more: nothing', () => {
    assert.equal(resetToSeconds(0, EPOCH_MS), 0);
    assert.equal(resetToSeconds(86_400, EPOCH_MS), 86_400, 'exactly a day, in seconds');
    assert.equal(resetToSeconds(86_401, EPOCH_MS), 86.401, 'just over a day: milliseconds');
    assert.equal(resetToSeconds(86_400_000, EPOCH_MS), 86_400, 'a day in milliseconds');
    assert.equal(resetToSeconds(86_400_001, EPOCH_MS), undefined, 'over a day in milliseconds');
    assert.equal(resetToSeconds(999_999_999, EPOCH_MS), undefined, 'below an epoch in seconds');
  });

  it('epoch seconds from 1e9, epoch milliseconds from 1e12, and only against an epoch clock', () => {
    const nowS = EPOCH_MS / 1000;
    assert.equal(resetToSeconds(nowS + 30, EPOCH_MS), 30);
    assert.equal(resetToSeconds(1e9, EPOCH_MS), 0, 'an epoch second in the past: now');
    assert.equal(resetToSeconds(1e9, 1e12), 1e9 - 1e9, 'now at 1e12 ms is an epoch clock');
    assert.equal(resetToSeconds(1e9, 1e12 - 1), undefined, 'a clock below 1e12 ms is no epoch');
    assert.equal(resetToSeconds(EPOCH_MS + 1500, EPOCH_MS), 1.5);
    assert.equal(resetToSeconds(1e12, EPOCH_MS), 0, '1e12 is an epoch in milliseconds (past)');
    assert.equal(resetToSeconds(1e12, 1e12 - 1), undefined);
    assert.equal(resetToSeconds(EPOCH_MS - 5000, EPOCH_MS), 0, 'an epoch in the past: now');
  });

  it('milliseconds when the header says so; never a negative or infinite value', () => {
    assert.equal(resetToSeconds(500, EPOCH_MS, 'ms'), 0.5);
    assert.equal(resetToSeconds(86_401, EPOCH_MS, 'ms'), 86.401);
    assert.equal(resetToSeconds(-1, EPOCH_MS), undefined);
    assert.equal(resetToSeconds(-0.001, EPOCH_MS, 'ms'), undefined);
    assert.equal(resetToSeconds(Number.POSITIVE_INFINITY, EPOCH_MS), undefined);
    assert.equal(resetToSeconds(Number.NaN, EPOCH_MS), undefined);
  });
});

describe('X-RateLimit-* and the RateLimit-* draft headers, one at a time', () => {
  it('each header alone is a quota signal', () => {
    assert.deepEqual(q({ 'x-ratelimit-limit': '10' }), { limit: 10 });
    assert.deepEqual(q({ 'x-ratelimit-remaining': '3' }), { remaining: 3 });
    assert.deepEqual(q({ 'x-ratelimit-reset': '4' }), { resetSeconds: 4 });
    assert.deepEqual(q({ 'x-rate-limit-reset': '4' }), { resetSeconds: 4 });
    assert.deepEqual(q({ 'x-ratelimit-reset-ms': '250' }), { resetSeconds: 0.25 });
    assert.deepEqual(q({ 'ratelimit-limit': '10' }), { limit: 10 });
    assert.deepEqual(q({ 'ratelimit-remaining': '3' }), { remaining: 3 });
    assert.deepEqual(q({ 'ratelimit-reset': '4' }), { resetSeconds: 4 });
    assert.deepEqual(q({ 'ratelimit-reset': String(NOW / 1000 + 20) }), { resetSeconds: 20 });
  });

  it('X-RateLimit-Reset-Ms wins over X-RateLimit-Reset; remaining never exceeds the limit', () => {
    assert.deepEqual(q({ 'x-ratelimit-reset-ms': '1500', 'x-ratelimit-reset': '9' }), { resetSeconds: 1.5 });
    assert.deepEqual(q({ 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '50' }), {
      limit: 10,
      remaining: 10,
    });
  });

  it('a header that is not a number adds nothing; a reset out of range is dropped', () => {
    assert.equal(
      q({ 'ratelimit-limit': 'many', 'ratelimit-remaining': '', 'ratelimit-reset': 'x' }),
      undefined,
    );
    assert.deepEqual(q({ 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': '90000000' }), { remaining: 2 });
  });
});

describe('Retry-After beside the quota headers', () => {
  const date = 'Mon, 30 Nov 2026 12:01:00 GMT'; // the server's clock, 60 s ahead of ours
  it('a delay in seconds is read as it is, whatever the Date header says', () => {
    assert.deepEqual(q({ 'retry-after': '5', date }), { retryAfterMs: 5000 });
    assert.deepEqual(q({ 'retry-after': ' 5', date }), { retryAfterMs: 5000 });
  });
  it('an HTTP-date is measured against the Date header', () => {
    assert.deepEqual(q({ 'retry-after': 'Mon, 30 Nov 2026 12:01:05 GMT', date }), { retryAfterMs: 5000 });
    assert.deepEqual(q({ 'retry-after': 'Mon, 30 Nov 2026 12:01:05 GMT' }), { retryAfterMs: 65_000 });
  });
  it('joins the quota the other headers report', () => {
    assert.deepEqual(q({ 'x-ratelimit-remaining': '0', 'retry-after': '3' }), {
      remaining: 0,
      retryAfterMs: 3000,
    });
    assert.deepEqual(q({ 'x-ratelimit-remaining': '0', 'retry-after': 'soon' }), { remaining: 0 });
  });
});

describe('the most restrictive of several policies', () => {
  it('of two exhausted policies, the one that stays exhausted longer', () => {
    assert.deepEqual(q({ ratelimit: '"short";r=0;t=2, "long";r=0;t=9' }), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'long',
    });
  });

  it('a policy without remaining counts its limit as left; one without reset, its window', () => {
    // "a": 20 left (its limit) over 10 s = 2/s; "b": 30 over 10 s = 3/s.
    assert.deepEqual(q({ ratelimit: '"a";t=10, "b";r=30;t=10', 'ratelimit-policy': '"a";q=20' }), {
      limit: 20,
      resetSeconds: 10,
      policy: 'a',
    });
    // "a": 50 left over a window of 100 s = 0.5/s; "b": 10 over 10 s = 1/s.
    assert.deepEqual(q({ ratelimit: '"a";r=50, "b";r=10;t=10', 'ratelimit-policy': '"a";q=100;w=100' }), {
      limit: 100,
      remaining: 50,
      windowSeconds: 100,
      policy: 'a',
    });
    // "a": 5 left of 10 over 10 s = 0.5/s; "b": 8 over 10 s = 0.8/s.
    assert.deepEqual(q({ ratelimit: '"a";r=5;t=10, "b";r=8;t=10', 'ratelimit-policy': '"a";q=10' }), {
      limit: 10,
      remaining: 5,
      resetSeconds: 10,
      policy: 'a',
    });
  });

  it('a policy that says nothing is passed over', () => {
    assert.deepEqual(q({ ratelimit: '"empty";x=1, "b";r=5;t=10' }), {
      remaining: 5,
      resetSeconds: 10,
      policy: 'b',
    });
    assert.deepEqual(q({ ratelimit: '"b";r=5;t=10, "empty";x=1' }), {
      remaining: 5,
      resetSeconds: 10,
      policy: 'b',
    });
  });

  it('a policy with only a remaining, or only a limit, still counts (per second: no window known)', () => {
    // X-RateLimit-Remaining 2, no limit, no reset: 2 left over an unknown window, taken as 1 s:
    // 2/s; "a": 50 over 10 s = 5/s. The remaining-only policy is the more restrictive.
    assert.deepEqual(q({ 'x-ratelimit-remaining': '2', ratelimit: '"a";r=50;t=10' }), { remaining: 2 });
    // X-RateLimit-Limit 3 alone: 3 left (its limit) per second; "a": 5/s.
    assert.deepEqual(q({ 'x-ratelimit-limit': '3', ratelimit: '"a";r=50;t=10' }), { limit: 3 });
  });

  it('policies that give only a reset still give one of them', () => {
    // Nothing is known to be left in either: neither is less sustainable; a signal all the same.
    for (const headers of [
      { ratelimit: '"a";t=5, "b";t=9' },
      { 'x-ratelimit-reset': '5', ratelimit: '"b";t=9' },
    ]) {
      const s = q(headers);
      assert.ok(s?.resetSeconds === 5 || s?.resetSeconds === 9, JSON.stringify(s));
    }
  });

  it('an inner list, an empty name and a byte sequence name no policy', () => {
    for (const first of ['("x" "y");r=0;t=9', '"";r=0;t=9', ':aGk=:;r=0;t=9'])
      assert.deepEqual(
        q({ ratelimit: `${first}, "c";r=5;t=1` }),
        { remaining: 5, resetSeconds: 1, policy: 'c' },
        first,
      );
  });

  it('a number sent as a string parameter is read; a token or a flag is not a number', () => {
    assert.deepEqual(q({ ratelimit: '"a";r="4";t=2' }), { remaining: 4, resetSeconds: 2, policy: 'a' });
    assert.deepEqual(q({ ratelimit: '"a";r=four;t=2' }), { resetSeconds: 2, policy: 'a' });
    assert.deepEqual(q({ ratelimit: '"a";r;t=2' }), { resetSeconds: 2, policy: 'a' });
  });

  describe('X-RateLimit-* and RateLimit spelling one policy twice', () => {
    const x = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': '7' };
    it('count once, with the more precise reset (under a second apart)', () => {
      // Taken as two policies, 10 left in 7 s (X-RateLimit) would be the tighter one.
      assert.deepEqual(
        q({ ...x, ratelimit: '"default";r=10;t=6.4', 'ratelimit-policy': '"default";q=100' }),
        {
          limit: 100,
          remaining: 10,
          resetSeconds: 6.4,
          policy: 'default',
        },
      );
      // The same without a limit on the IETF side: still the same policy.
      assert.deepEqual(q({ ...x, ratelimit: '"default";r=10;t=6.4' }), {
        remaining: 10,
        resetSeconds: 6.4,
        policy: 'default',
      });
    });
    it('count once the other way round: the IETF spelling without a limit, X-RateLimit more precise', () => {
      // As two policies the IETF one (5 in 7.4 s) would be the tighter; it is X-RateLimit's twin.
      assert.deepEqual(q({ ...x, 'x-ratelimit-remaining': '5', ratelimit: '"d";r=5;t=7.4' }), {
        limit: 100,
        remaining: 5,
        resetSeconds: 7,
      });
    });
    it('with the same reset, one of the two is reported (neither is the more precise)', () => {
      const s = q({ ...x, ratelimit: '"default";r=10;t=7', 'ratelimit-policy': '"default";q=100' });
      assert.deepEqual(
        { ...s, policy: undefined },
        { limit: 100, remaining: 10, resetSeconds: 7, policy: undefined },
      );
    });
    it('are two policies when their resets are a second or more apart', () => {
      assert.deepEqual(q({ ...x, ratelimit: '"default";r=10;t=6' }), {
        limit: 100,
        remaining: 10,
        resetSeconds: 7,
      });
    });
    it('are two policies when their limits or remaining differ', () => {
      assert.deepEqual(q({ ...x, ratelimit: '"default";r=10;t=6.4', 'ratelimit-policy': '"default";q=50' }), {
        limit: 100,
        remaining: 10,
        resetSeconds: 7,
      });
      assert.deepEqual(q({ ...x, ratelimit: '"default";r=11;t=6.4' }), {
        limit: 100,
        remaining: 10,
        resetSeconds: 7,
      });
    });
    it('a policy with no reset has no twin, and is no twin', () => {
      // X-RateLimit: 1 left (no reset: per second) is tighter than 10 in 2 s.
      assert.deepEqual(
        q({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '1', ratelimit: '"d";r=10;t=2' }),
        {
          limit: 100,
          remaining: 1,
        },
      );
      assert.deepEqual(q({ ...x, ratelimit: '"default";r=10' }), {
        limit: 100,
        remaining: 10,
        resetSeconds: 7,
      });
    });
  });
});

describe('a RateLimit value that gives no number says nothing', () => {
  // parseQuota: "undefined when the answer says nothing about the quota"; "malformed values are
  // ignored". A policy name or a window alone is no limit, remaining or reset.
  it('is no signal, alone or with a Retry-After', () => {
    for (const ratelimit of [
      'limit=abc',
      'limit=abc, remaining=, reset=soon',
      '"default"',
      '"default";r=abc;t=later',
      '"default"; r = abc',
      'default;pk=:cHJvZ3JhbTE=:',
      '"a";r=abc, "b";t=later',
    ]) {
      assert.equal(q({ ratelimit }), undefined, ratelimit);
      assert.equal(
        q({ ratelimit, 'ratelimit-policy': '"default";w=10' }),
        undefined,
        `${ratelimit} with a window`,
      );
      assert.deepEqual(
        q({ ratelimit, 'retry-after': '3' }),
        { retryAfterMs: 3000 },
        `${ratelimit} with Retry-After`,
      );
    }
  });
});

describe('the RateLimit drafts and near-misses of RFC 9651', () => {
  it('draft 07 dictionaries, with or without blanks', () => {
    assert.deepEqual(q({ ratelimit: 'limit=10,remaining=4' }), { limit: 10, remaining: 4 });
    assert.deepEqual(q({ ratelimit: ' limit = 10 , remaining = 4 ' }), { limit: 10, remaining: 4 });
    assert.deepEqual(q({ ratelimit: 'remaining=3' }), { remaining: 3 });
    assert.deepEqual(q({ ratelimit: 'reset=5, remaining=0' }), { remaining: 0, resetSeconds: 5 });
  });

  it('a lenient list: flags, quoted values and empty parameters are read as the vendor meant', () => {
    assert.deepEqual(q({ ratelimit: '"a"; r = 2; flag; t = 4' }), {
      remaining: 2,
      resetSeconds: 4,
      policy: 'a',
    });
    assert.deepEqual(q({ ratelimit: '"a"; r = "3";; t = 1' }), {
      remaining: 3,
      resetSeconds: 1,
      policy: 'a',
    });
    assert.deepEqual(q({ ratelimit: 'a ; r = 3 ; t = 1' }), { remaining: 3, resetSeconds: 1, policy: 'a' });
  });

  it('a quoted comma in a lenient list keeps the policy whole', () => {
    assert.deepEqual(q({ ratelimit: '"x,y"; r = 0; t = 9, "c"; r = 5; t = 1' }), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'x,y',
    });
  });

  it('a lenient name with a blank or "=" in it is no name', () => {
    assert.deepEqual(q({ ratelimit: 'a b; r = 0; t = 9, "c"; r = 5; t = 1' }), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
    assert.deepEqual(q({ ratelimit: 'a=b; r = 0; t = 9, "c"; r = 5; t = 1' }), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
  });
});
