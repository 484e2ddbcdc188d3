import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { kongQuotas, listedWindow, windowOfReported } from './declared-windows.js';
import { headerReader } from './headers.js';
import { parseQuota } from './quota.js';

const NOW = Date.parse('2026-12-05T12:00:00Z');
// Every quota the gateway declares goes with the one reported.
const quotas = [
  { limit: 20, windowSeconds: 1 },
  { limit: 600, windowSeconds: 60 },
];

// Headers as a Kong gateway with `second: 20, minute: 600` configured writes them.
const kong = (second: number, minute: number, withRateLimit = true) => {
  const least = minute < second ? { l: 600, r: minute, t: 37 } : { l: 20, r: second, t: 1 };
  return {
    'X-RateLimit-Limit-Second': '20',
    'X-RateLimit-Remaining-Second': String(second),
    'X-RateLimit-Limit-Minute': '600',
    'X-RateLimit-Remaining-Minute': String(minute),
    ...(withRateLimit
      ? {
          'RateLimit-Limit': String(least.l),
          'RateLimit-Remaining': String(least.r),
          'RateLimit-Reset': String(least.t),
        }
      : {}),
  };
};

describe('windows gateways declare outside RateLimit-Policy', () => {
  it('Kong: the window of the quota its RateLimit-* report, from the unit that says the same limit and what is left', () => {
    assert.deepEqual(parseQuota(kong(12, 590), { now: NOW }), {
      limit: 20,
      remaining: 12,
      resetSeconds: 1,
      windowSeconds: 1,
      quotas,
    });
    assert.deepEqual(parseQuota(kong(15, 9), { now: NOW }), {
      limit: 600,
      remaining: 9,
      resetSeconds: 37,
      windowSeconds: 60,
      quotas,
    });
  });

  it('Kong without RateLimit-* (hidden or an older plugin): the unit with the least left, its window declared', () => {
    const q = (second: number, minute: number) => parseQuota(kong(second, minute, false), { now: NOW });
    assert.deepEqual(q(12, 590), { limit: 20, remaining: 12, windowSeconds: 1, quotas });
    assert.deepEqual(q(15, 9), { limit: 600, remaining: 9, windowSeconds: 60, quotas });
    // A tie goes to the larger limit, as Kong's own pick.
    assert.deepEqual(q(9, 9), { limit: 600, remaining: 9, windowSeconds: 60, quotas });
    // One unit alone: its window, no list.
    assert.deepEqual(
      parseQuota({ 'X-RateLimit-Limit-Minute': '600', 'X-RateLimit-Remaining-Minute': '599' }, { now: NOW }),
      { limit: 600, remaining: 599, windowSeconds: 60 },
    );
  });

  it('Kong units read: second to year; a limit of 0, a word or a negative is no quota', () => {
    const h = headerReader({
      'x-ratelimit-limit-hour': '1000',
      'x-ratelimit-remaining-hour': '1200',
      'x-ratelimit-limit-day': '0',
      'x-ratelimit-limit-month': 'lots',
      'x-ratelimit-limit-year': '-5',
    });
    // What is left is never more than the limit.
    assert.deepEqual(kongQuotas(h), [{ limit: 1000, remaining: 1000, windowSeconds: 3600 }]);
  });

  it("Kong's rate-limiting-advanced: a window named by its seconds, from a record or a Headers", () => {
    const advanced = {
      'X-RateLimit-Limit-10': '100',
      'X-RateLimit-Remaining-10': '37',
      'X-RateLimit-Limit-Second': '20',
      'X-RateLimit-Remaining-Second': '40',
      'RateLimit-Limit': '20',
      'RateLimit-Remaining': '20',
      'RateLimit-Reset': '1',
    };
    const want = {
      limit: 20,
      remaining: 20,
      resetSeconds: 1,
      windowSeconds: 1,
      quotas: [
        { limit: 20, windowSeconds: 1 },
        { limit: 100, windowSeconds: 10 },
      ],
    };
    assert.deepEqual(parseQuota(advanced, { now: NOW }), want);
    assert.deepEqual(parseQuota(new Headers(advanced), { now: NOW }), want);
    assert.deepEqual(parseQuota(Object.entries(advanced), { now: NOW }), want);
    // A get() without keys() reads the named units only.
    const getOnly = { get: (n: string) => new Headers(advanced).get(n) };
    assert.deepEqual(parseQuota(getOnly, { now: NOW }), {
      limit: 20,
      remaining: 20,
      resetSeconds: 1,
      windowSeconds: 1,
    });
    // A window of 0 seconds is none.
    assert.deepEqual(kongQuotas(headerReader({ 'x-ratelimit-limit-0': '5' })), []);
  });

  it('the list form of the early IETF drafts and of Envoy: the window of the policy whose quota is the limit in force', () => {
    const table: ReadonlyArray<[string | undefined, number | undefined, number | undefined]> = [
      ['10, 10;w=1, 600;w=60', 10, 1],
      ['600, 10;w=1, 600;w=60', 600, 60],
      ['5, 5;w=60', 5, 60],
      ['100, 100;window=60', 100, 60],
      ['100, 100;W=60', 100, 60],
      ['100, 100;w=1, 100;w=60', 100, 60],
      ['100', 100, undefined],
      ['100, 50;w=60', 100, undefined],
      ['100, 100;w=0', 100, undefined],
      ['100, 100;w=abc', 100, undefined],
      ['100, 100;q=5', 100, undefined],
      [undefined, 100, undefined],
      ['100, 100;w=60', undefined, undefined],
    ];
    for (const [value, limit, want] of table)
      assert.equal(listedWindow(value, limit), want, `${value} @ ${limit}`);
    assert.deepEqual(
      parseQuota(
        { 'x-ratelimit-limit': '5, 5;w=60', 'x-ratelimit-remaining': '4', 'x-ratelimit-reset': '17' },
        { now: NOW },
      ),
      { limit: 5, remaining: 4, resetSeconds: 17, windowSeconds: 60 },
    );
  });

  it('windowOfReported: the unit with that limit and what is left; of several alike, the longest window', () => {
    const qs = [
      { limit: 100, remaining: 40, windowSeconds: 60 },
      { limit: 100, remaining: 40, windowSeconds: 3600 },
      { limit: 20, remaining: 5, windowSeconds: 1 },
    ];
    assert.equal(windowOfReported(qs, 100, 40), 3600);
    assert.equal(windowOfReported(qs, 20, 5), 1);
    assert.equal(windowOfReported(qs, 20, 6), undefined);
    assert.equal(windowOfReported(qs, 20, undefined), 1);
    assert.equal(windowOfReported(qs, 50, 5), undefined);
  });

  it('never throws, whatever the Kong headers hold (property)', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.constantFrom(
            'x-ratelimit-limit-second',
            'x-ratelimit-remaining-second',
            'x-ratelimit-limit-minute',
            'x-ratelimit-remaining-minute',
            'ratelimit-limit',
            'ratelimit-remaining',
            'x-ratelimit-limit',
          ),
          fc.string(),
        ),
        (headers) => {
          const q = parseQuota(headers, { now: NOW });
          return q === undefined || q.windowSeconds === undefined || q.windowSeconds > 0;
        },
      ),
    );
  });
});
