// RateLimit as RFC 9651 (Structured Field Values) writes a list, and as vendors miss it. The
// expected values are worked out by hand from the RFC's grammar (§3.1 lists, §3.1.2 parameters,
// §3.3 bare items, §4.2 parsing) and from what the classifier's README promises for a value the
// RFC refuses ("read leniently rather than dropped": split on unquoted "," and ";", quotes around
// a name or a value taken off, blanks around names, keys and values dropped, a name with a blank
// or "=" in it no name). Nothing here parses a structured field the way quota.ts does.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuota } from './quota.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const q = (ratelimit: string, policy?: string) =>
  parseQuota(policy === undefined ? { ratelimit } : { ratelimit, 'ratelimit-policy': policy }, { now: NOW });

describe('a RateLimit list RFC 9651 accepts is read as the RFC says', () => {
  it('tokens may hold ":" and "/" and start with "*"', () => {
    // sf-token = ( ALPHA / "*" ) *( tchar / ":" / "/" )
    assert.deepEqual(q('day/payer:7;r=1;t=5'), { remaining: 1, resetSeconds: 5, policy: 'day/payer:7' });
    assert.deepEqual(q('*all;r=2;t=5'), { remaining: 2, resetSeconds: 5, policy: '*all' });
  });

  it('a string name loses its escapes: \\" is a quote, \\\\ a backslash', () => {
    assert.deepEqual(q('"a\\"b\\\\c";r=1;t=5'), { remaining: 1, resetSeconds: 5, policy: 'a"b\\c' });
  });

  it('blanks are allowed around commas, after ";", and at both ends of the field', () => {
    // sf-list: OWS "," OWS between members; parameters = *( ";" *SP parameter ); §4.2 discards
    // leading and trailing SP.
    assert.deepEqual(q('  "a";r=9;t=3 ,\t"b"; r=1; t=5  '), { remaining: 1, resetSeconds: 5, policy: 'b' });
  });

  it('a later parameter of the same key wins (§3.1.2: parameters are a map)', () => {
    assert.deepEqual(q('"a";r=7;r=2;t=5'), { remaining: 2, resetSeconds: 5, policy: 'a' });
  });

  it('integers may have leading zeros; a negative one is no count', () => {
    // sf-integer = ["-"] 1*15DIGIT
    assert.deepEqual(q('"a";r=007;t=5'), { remaining: 7, resetSeconds: 5, policy: 'a' });
    assert.deepEqual(q('"a";r=-1;t=5'), { resetSeconds: 5, policy: 'a' });
  });

  it('a token, a boolean, a byte sequence, a date or a display string is no number', () => {
    // Only an integer, a decimal, or (as vendors send it) a string of digits counts.
    for (const r of ['five', '?1', '?0', ':NQ==:', '@5', '%"5"'])
      assert.deepEqual(q(`"a";r=${r};t=5`), { resetSeconds: 5, policy: 'a' }, r);
  });

  it('the name matches RateLimit-Policy exactly, a string or a token alike', () => {
    assert.deepEqual(q('"a";r=1;t=5', 'a;q=10'), { limit: 10, remaining: 1, resetSeconds: 5, policy: 'a' });
    assert.deepEqual(q('a;r=1;t=5', '"A";q=10, "a";q=20'), {
      limit: 20,
      remaining: 1,
      resetSeconds: 5,
      policy: 'a',
    });
  });
});

describe('a RateLimit list RFC 9651 refuses is read leniently', () => {
  // Each value below breaks the RFC's grammar once (the comment says where); the strict reading
  // refuses the whole field, so the lenient one must give what the vendor meant.
  it('a blank before ";" or around "="', () => {
    // parameters follow the item with no blank before ";"; no blank is allowed around "=".
    assert.deepEqual(q('"a" ;r=1;t=5'), { remaining: 1, resetSeconds: 5, policy: 'a' });
    assert.deepEqual(q('a;r =1;t= 5'), { remaining: 1, resetSeconds: 5, policy: 'a' });
  });

  it('quotes around a value are taken off; around a key they are part of it', () => {
    assert.deepEqual(q('a; r = "4"; t = "5"'), { remaining: 4, resetSeconds: 5, policy: 'a' });
    assert.deepEqual(q('a; "r" = 4; t = 5'), { resetSeconds: 5, policy: 'a' });
  });

  it('quotes come off only as a pair around the whole name or value', () => {
    // A quote on one side only, or inside, stays: the name is what the vendor wrote, and a value
    // with a quote left in it is no number.
    assert.deepEqual(q('a"b" ; r = 1 ; t = 5'), { remaining: 1, resetSeconds: 5, policy: 'a"b"' });
    assert.deepEqual(q('"ab ; r = 1 ; t = 5'), { remaining: 1, resetSeconds: 5, policy: '"ab' });
    assert.deepEqual(q('" ; r = 1 ; t = 5'), { remaining: 1, resetSeconds: 5, policy: '"' });
    assert.deepEqual(q('x ; r = "45 ; t = 5'), { resetSeconds: 5, policy: 'x' });
    assert.deepEqual(q('x ; r = 45" ; t = 5'), { resetSeconds: 5, policy: 'x' });
    assert.deepEqual(q('x ; r = 1"2" ; t = 5'), { resetSeconds: 5, policy: 'x' });
  });

  it('an empty quoted name names no policy, as in a valid list', () => {
    assert.deepEqual(q('"" ; r = 0 ; t = 9, "c" ; r = 5 ; t = 1'), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
  });

  it('a flag (a key without "=") is no number, and only its own key is set', () => {
    assert.deepEqual(q('a ;r = 5;rx;t = 1'), { remaining: 5, resetSeconds: 1, policy: 'a' });
    // A later parameter of the same key wins, as in a valid list: the flag r is no number.
    assert.deepEqual(q('a ; r = 5 ; r ; t = 1'), { resetSeconds: 1, policy: 'a' });
  });

  it('an empty quoted value is no number', () => {
    assert.deepEqual(q('a ; r = "" ; t = 5'), { resetSeconds: 5, policy: 'a' });
  });

  it('a key is everything before the first "=", trimmed; the value everything after it', () => {
    // "r = 4 = 5": key r, value "4 = 5", not a number.
    assert.deepEqual(q('a ; r = 4 = 5 ; t = 6'), { resetSeconds: 6, policy: 'a' });
    // "=4": no key, skipped; the rest still read.
    assert.deepEqual(q('a ; =4 ; t = 6'), { resetSeconds: 6, policy: 'a' });
  });

  it('only unquoted commas split the list, also where no quote is in the field', () => {
    // Two members; the exhausted one is reported.
    assert.deepEqual(q('a ; r = 5 ; t = 1, b ; r = 0 ; t = 9'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
    // A quoted name with a comma in it, then a member after it.
    assert.deepEqual(q('"x,y" ; r = 5 ; t = 1, b ; r = 0 ; t = 9'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
    assert.deepEqual(q('b ; r = 0 ; t = 9, "x,y" ; r = 5 ; t = 1'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
  });

  it('empty members between commas are skipped, blank or not', () => {
    assert.deepEqual(q('a ; r = 3 ; t = 1,, ,b ; r = 0 ; t = 9,'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
    assert.deepEqual(q('"a" ; r = 3 ; t = 1,, ,b ; r = 0 ; t = 9, '), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'b',
    });
  });

  it('an unquoted name with a blank or "=" in it is no name', () => {
    assert.deepEqual(q('a b ; r = 0 ; t = 9, c ; r = 5 ; t = 1'), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
    assert.deepEqual(q('a=b ; r = 0 ; t = 9, c ; r = 5 ; t = 1'), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
    assert.deepEqual(q('a\tb ; r = 0 ; t = 9, c ; r = 5 ; t = 1'), {
      remaining: 5,
      resetSeconds: 1,
      policy: 'c',
    });
  });

  it('a quoted name may hold blanks and "=", as an sf-string may', () => {
    // Valid, "a b" and "a=b" name policies; a blank before ";" only sends them the lenient way.
    assert.deepEqual(q('"a b";r=0;t=9, c;r=5;t=1'), { remaining: 0, resetSeconds: 9, policy: 'a b' });
    assert.deepEqual(q('"a b" ; r = 0 ; t = 9, c ; r = 5 ; t = 1'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'a b',
    });
    assert.deepEqual(q('"a=b" ; r = 0 ; t = 9, c ; r = 5 ; t = 1'), {
      remaining: 0,
      resetSeconds: 9,
      policy: 'a=b',
    });
  });

  it('RateLimit-Policy read leniently too, matched by the unquoted name', () => {
    assert.deepEqual(q('"a";r=1;t=5', '"a" ; q = 10 ; w = 60'), {
      limit: 10,
      remaining: 1,
      resetSeconds: 5,
      windowSeconds: 60,
      policy: 'a',
    });
  });
});

describe('draft 07 dictionaries, told from a list', () => {
  it('a list member whose first parameter is limit, remaining or reset is still a list', () => {
    // A policy named "p" with parameters: it has ";", so no draft 07 dictionary.
    assert.deepEqual(q('p;limit=1;r=4;t=5'), { remaining: 4, resetSeconds: 5, policy: 'p' });
  });

  it('a dictionary key is matched whole, at the start or after a comma', () => {
    assert.deepEqual(q('limit=10, remaining=4, reset=30'), { limit: 10, remaining: 4, resetSeconds: 30 });
    // "xlimit=…" is no draft 07 key: read as a list, it names no policy with a number.
    assert.equal(q('xlimit=10'), undefined);
  });
});
