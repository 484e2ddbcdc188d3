// retry-after.ts at its edges, as RFC 9110 §10.2.3 defines the field: delay-seconds or an
// HTTP-date (IMF-fixdate, and the obsolete RFC 850 and asctime forms), at most a week here.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { dateWait, parseHttpDate, parseRetryAfter } from './retry-after.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const after = (v: string, date?: string) => parseRetryAfter(v, { now: NOW, date });
const WEEK_S = 7 * 24 * 3600;

describe('Retry-After as delay-seconds', () => {
  it('each digit may lead; a fraction is cut off; blanks around are allowed', () => {
    assert.equal(after('9'), 9000);
    assert.equal(after('1.5'), 1000);
    assert.equal(after('1.55'), 1000);
    assert.equal(after(' 7 '), 7000);
    assert.equal(after('7.'), undefined);
    assert.equal(after('7.x'), undefined);
  });

  it('up to a week, and not a second more', () => {
    assert.equal(after(String(WEEK_S)), WEEK_S * 1000);
    assert.equal(after(String(WEEK_S + 1)), undefined);
  });

  it('a value of 64 characters is read; a longer one is not', () => {
    assert.equal(after(`5${' '.repeat(63)}`), 5000);
    assert.equal(after(`5${' '.repeat(64)}`), undefined);
  });
});

describe('Retry-After as an HTTP-date', () => {
  it('blanks around the date are allowed; text before or after it is not', () => {
    assert.equal(after('Mon, 30 Nov 2026 12:00:05 GMT  '), 5000);
    assert.equal(after('  Mon, 30 Nov 2026 12:00:05 GMT'), 5000);
    assert.equal(after('Monday, 30-Nov-26 12:00:06 GMT '), 6000);
    assert.equal(after(' Monday, 30-Nov-26 12:00:06 GMT'), 6000);
    assert.equal(after('Mon Nov 30 12:00:07 2026 '), 7000);
    assert.equal(after(' Mon Nov 30 12:00:07 2026'), 7000);
    for (const bad of [
      'x Mon, 30 Nov 2026 12:00:05 GMT',
      'xMon, 30 Nov 2026 12:00:05 GMT',
      'Mon, 30 Nov 2026 12:00:05 GMT x',
      'Mon, 30 Nov 2026 12:00:05 GMTx',
      'x Monday, 30-Nov-26 12:00:06 GMT',
      'xMonday, 30-Nov-26 12:00:06 GMT',
      'Monday, 30-Nov-26 12:00:06 GMTx',
      'x Mon Nov 30 12:00:07 2026',
      'xMon Nov 30 12:00:07 2026',
      'Mon Nov 30 12:00:07 2026x',
    ])
      assert.equal(after(bad), undefined, bad);
  });

  it('up to a week ahead of the server clock, and not a second more', () => {
    assert.equal(after('Mon, 07 Dec 2026 12:00:00 GMT'), WEEK_S * 1000);
    assert.equal(after('Mon, 07 Dec 2026 12:00:01 GMT'), undefined);
  });

  it('a Date header that is no date leaves our clock; a clock that is no time gives nothing', () => {
    assert.equal(after('Mon, 30 Nov 2026 12:00:05 GMT', 'yesterday'), 5000);
    assert.equal(
      parseRetryAfter('Mon, 30 Nov 2026 12:00:05 GMT', { now: Number.POSITIVE_INFINITY }),
      undefined,
    );
    assert.equal(parseRetryAfter('Mon, 30 Nov 2026 12:00:05 GMT', { now: Number.NaN }), undefined);
  });

  it('parseHttpDate reads the three forms to the same instant', () => {
    const t = Date.UTC(2026, 10, 30, 12, 0, 7);
    assert.equal(parseHttpDate('Mon, 30 Nov 2026 12:00:07 GMT'), t);
    assert.equal(parseHttpDate('Monday, 30-Nov-26 12:00:07 GMT'), t);
    assert.equal(parseHttpDate('Mon Nov 30 12:00:07 2026'), t);
    assert.equal(parseHttpDate('  Mon Nov 30 12:00:07 2026  '), t);
  });
});

describe('an HTTP-date against the Date header (dateWait)', () => {
  // The server's Date is cut down to its second: at 12:00:00.870 it says 12:00:00.
  const RA = 'Mon, 30 Nov 2026 12:00:02 GMT';
  const DATE = 'Mon, 30 Nov 2026 12:00:00 GMT';
  const at = (offsetMs: number) => parseRetryAfter(RA, { now: NOW + offsetMs, date: DATE });
  const rows: readonly [string, number, number][] = [
    ['our clock within the second the Date names: the date less our now', 870, 1130],
    ['at the very start of that second', 0, 2000],
    ['at its end', 1000, 1000],
    ['ours a little behind the server (before its Date): no more than the Date says', -300, 2000],
    ['ours far behind: as the Date says', -60_000, 2000],
    ['ours past that second (a slow answer, or ahead): a second under the Date, no less', 1400, 1000],
    ['ours far ahead: a second under the Date, no less', 60_000, 1000],
  ];
  for (const [name, offset, expected] of rows) it(name, () => assert.equal(at(offset), expected));

  it('dateWait as a table', () => {
    assert.equal(dateWait(2000, 1130), 1130);
    assert.equal(dateWait(2000, 2500), 2000);
    assert.equal(dateWait(2000, 500), 1000);
    assert.equal(dateWait(2000, Number.NaN), 2000);
    assert.equal(dateWait(500, -400), -400);
    assert.equal(dateWait(2000, Number.POSITIVE_INFINITY), 2000);
  });

  it('property: within the second under the date less the Date, and our clock wherever it falls in it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e7 }), fc.integer({ min: -1e7, max: 1e7 }), (byDate, local) => {
        const w = dateWait(byDate, local);
        assert.ok(w <= byDate && w >= byDate - 1000);
        if (local <= byDate && local >= byDate - 1000) assert.equal(w, local);
      }),
    );
  });

  it('without a Date header: our clock', () => {
    assert.equal(parseRetryAfter(RA, { now: NOW + 870 }), 1130);
    assert.equal(parseRetryAfter(RA, { now: Number.NaN }), undefined);
  });
});
