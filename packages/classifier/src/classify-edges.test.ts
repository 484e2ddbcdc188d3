// classify at the edges the verdict table leaves open: amounts as NCPDP writes them (whole
// numbers, a 9 in the cents), messages (504-F4, 526-FQ), the policy a throttle names, an
// authorization number that is no text, and input that is no answer at all.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from './classify.js';

const paid = (amounts: Record<string, unknown>): Record<string, unknown> => ({
  ...classify({ status: 200, body: { '112-AN': 'P', ...amounts } }, { now: 0 }),
});

describe('amounts', () => {
  it('a whole number and cents with a 9 are decimals; a letter in the cents is not', () => {
    assert.deepEqual(paid({ '509-F9': '12' }).amounts, { totalPaid: '12' });
    assert.deepEqual(paid({ '509-F9': '1.99' }).amounts, { totalPaid: '1.99' });
    assert.equal(paid({ '509-F9': '1.0a' }).reason, 'malformed-amount');
  });
});

describe('messages', () => {
  it('504-F4 alone, 526-FQ alone, trimmed, at most 200 characters, blanks and non-text left out', () => {
    assert.deepEqual(paid({ '504-F4': '  Call the help desk  ' }).messages, ['Call the help desk']);
    assert.deepEqual(paid({ '526-FQ': ['a', ' ', 5, ' b '] }).messages, ['a', 'b']);
    assert.deepEqual(paid({ '526-FQ': ` ${'x'.repeat(250)}` }).messages, ['x'.repeat(200)]);
    assert.equal(Object.hasOwn(paid({ '526-FQ': [' '] }), 'messages'), false);
  });
});

describe('other fields', () => {
  it('a throttle names the policy the vendor reported', () => {
    const v = classify({ status: 429, headers: { ratelimit: '"burst";r=0;t=2' } }, { now: 0 });
    assert.deepEqual(v.quota, { remaining: 0, resetSeconds: 2, policy: 'burst', throttled: true });
  });

  it('an authorization number that is no text is left out of a duplicate', () => {
    const v = classify({ status: 200, body: { '112-AN': 'D', '503-F3': 5 } }, { now: 0 });
    assert.equal(v.kind, 'duplicate');
    assert.equal(Object.hasOwn(v, 'authorizationNumber'), false);
  });

  it('input that is no answer is unknown, breaker success, commit maybe', () => {
    assert.deepEqual(classify(null as never), {
      kind: 'unknown',
      breaker: 'success',
      reason: 'unclassifiable-input',
      commit: 'maybe',
    });
  });

  it('a primitive is read as an answer without a status; nothing at all is no input', () => {
    for (const input of [7, 'text', true, Symbol('s'), 10n])
      assert.equal(classify(input as never).reason, 'malformed-status', String(input));
    for (const input of [undefined, null])
      assert.equal(classify(input as never).reason, 'unclassifiable-input', String(input));
  });
});

describe('bodies at the edges of what is read', () => {
  // A paid answer padded to a given length with a field nothing reads.
  const padded = (length: number): string => {
    const head = '{"112-AN":"P","509-F9":"7.25","x":"';
    return `${head}${'a'.repeat(length - head.length - 2)}"}`;
  };

  it('text of exactly a million characters is read; one more is not', () => {
    assert.equal(padded(1_000_000).length, 1_000_000);
    assert.equal(classify({ status: 200, body: padded(1_000_000) }, { now: 0 }).reason, 'paid');
    assert.equal(classify({ status: 200, body: padded(1_000_001) }, { now: 0 }).reason, 'malformed-body');
  });

  it('bytes with one that is not UTF-8 inside a JSON string are no answer (not read with a replacement character)', () => {
    const bytes = new TextEncoder().encode('{"112-AN":"P","509-F9":"7.25","x":"?"}');
    assert.equal(classify({ status: 200, body: bytes }, { now: 0 }).reason, 'paid');
    bytes[bytes.indexOf(0x3f)] = 0xff;
    assert.deepEqual(
      { ...classify({ status: 200, body: bytes }, { now: 0 }) },
      { kind: 'unknown', breaker: 'success', reason: 'malformed-body', status: 200, commit: 'maybe' },
    );
  });
});
