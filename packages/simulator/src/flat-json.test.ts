import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readFlatObject } from './flat-json.js';

const WANTED = ['101-A1', '104-A4', '407-D7', '409-D9'];

/** What JSON.parse says of the wanted fields, or 'throws'. */
function reference(text: string): Record<string, unknown> | 'throws' | 'not-flat' {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return 'throws';
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return 'not-flat';
  const out: Record<string, unknown> = {};
  for (const k of WANTED) if (Object.hasOwn(v, k)) out[k] = (v as Record<string, unknown>)[k];
  return out;
}

describe('readFlatObject', () => {
  it('reads the wanted fields of a claim body, and refuses what it does not read to the end', () => {
    const body = JSON.stringify({
      '103-A3': 'B1',
      '101-A1': '610014',
      '104-A4': 'ADV',
      '403-D3': 0,
      '407-D7': '00002143380',
      '409-D9': '12.34',
      x: null,
      y: true,
      z: -1.5e3,
    });
    assert.deepEqual(readFlatObject(body, WANTED), {
      '101-A1': '610014',
      '104-A4': 'ADV',
      '407-D7': '00002143380',
      '409-D9': '12.34',
    });
    assert.deepEqual(
      readFlatObject(' { "409-D9" : 1 , "409-D9" : "2" } ', WANTED),
      { '409-D9': '2' },
      'the last of a repeated key',
    );
    assert.deepEqual(readFlatObject('{}', WANTED), {});
    for (const bad of [
      '',
      '{',
      '{"a":1',
      '{"a":1,}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":"\\u0041"}',
      '{"a":{}}',
      '{"a":[1]}',
      '[]',
      '{"a":1} x',
      '{"a" 1}',
      '{"a":tru}',
      '{"a":"x\ny"}',
    ]) {
      assert.equal(readFlatObject(bad, WANTED), undefined, JSON.stringify(bad));
    }
  });

  it('agrees with JSON.parse whenever it answers: on objects of any flat values (property)', () => {
    const key = fc.oneof(fc.constantFrom(...WANTED), fc.string({ maxLength: 8 }));
    const value = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 12 }),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    );
    let answered = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(key, value), { maxLength: 10 }),
        fc.constantFrom(0, 1, 2),
        (pairs, space) => {
          const obj: Record<string, unknown> = {};
          for (const [k, v] of pairs)
            Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
          const text = JSON.stringify(obj, null, space);
          const got = readFlatObject(text, WANTED);
          if (got === undefined) return;
          answered++;
          assert.deepEqual(got, reference(text));
        },
      ),
      { numRuns: 2000 },
    );
    assert.ok(answered > 500, `the property must exercise answers (${answered})`);
  });

  it('never answers for a text JSON.parse refuses or reads otherwise: mutated bodies (property)', () => {
    const base = JSON.stringify({
      '101-A1': '610014',
      '104-A4': 'ADV',
      n: 12.5,
      '407-D7': '00002143380',
      b: false,
      '409-D9': '1.00',
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat(base.length), fc.nat(3), fc.string({ unit: 'binary-ascii', maxLength: 3 })),
          { minLength: 1, maxLength: 3 },
        ),
        (edits) => {
          let text = base;
          for (const [at, del, ins] of edits) {
            const p = at % (text.length + 1);
            text = text.slice(0, p) + ins + text.slice(p + del);
          }
          const got = readFlatObject(text, WANTED);
          if (got !== undefined) assert.deepEqual(got, reference(text), text);
        },
      ),
      { numRuns: 5000 },
    );
  });
});
