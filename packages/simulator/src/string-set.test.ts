import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { hashRange, StringSet } from './string-set.js';

describe('StringSet', () => {
  it('answers as a Set<string> does, for whole strings and for ranges of a text, across growth (property)', () => {
    // Short strings over a small alphabet: many equal ones, many sharing a slot.
    const word = fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '1', 'é', '\u{1F600}'), maxLength: 6 });
    // Up to 2,000 words (not fast-check's short default): the table grows from 1,024 slots several times.
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 2000, size: 'max' }),
        fc.array(word, { maxLength: 200 }),
        fc.string({ maxLength: 24 }),
        (added, asked, text) => {
          const mine = new StringSet();
          const ref = new Set<string>();
          for (const s of added) {
            mine.add(s);
            ref.add(s);
          }
          assert.equal(mine.size, ref.size);
          for (const s of [...added, ...asked]) assert.equal(mine.has(s), ref.has(s), s);
          for (let a = 0; a <= text.length; a++)
            for (let b = a; b <= text.length; b++)
              assert.equal(mine.hasRange(text, a, b), ref.has(text.slice(a, b)));
          // Every added string inside other text, at an offset.
          for (const s of added) assert.ok(mine.hasRange(`x${s}y`, 1, 1 + s.length));
        },
      ),
      // Shrinking thousands of words takes minutes: the first counterexample is reported as found.
      { numRuns: 100, endOnFailure: true },
    );
  });

  it('tells apart strings of the same hash (FNV-1a collisions) by their characters', () => {
    const pairs = [
      ['costarring', 'liquid'],
      ['declinate', 'macallums'],
      ['altarage', 'zinke'],
    ] as const;
    for (const [a, b] of pairs) {
      assert.equal(hashRange(a, 0, a.length), hashRange(b, 0, b.length), `${a} and ${b} collide`);
      const set = new StringSet();
      set.add(a);
      assert.ok(set.has(a));
      assert.ok(!set.has(b), `${b} is not ${a}`);
      assert.ok(!set.hasRange(`<${b}>`, 1, 1 + b.length));
      set.add(b);
      assert.equal(set.size, 2);
      assert.ok(set.has(b) && set.hasRange(`<${b}>`, 1, 1 + b.length));
    }
  });

  it('holds half a million strings', () => {
    const set = new StringSet();
    for (let i = 0; i < 500_000; i++) set.add(`ZX${i.toString(36)}`);
    assert.equal(set.size, 500_000);
    for (let i = 0; i < 500_000; i += 997) assert.ok(set.has(`ZX${i.toString(36)}`), String(i));
    assert.ok(!set.has(`ZX${(500_000).toString(36)}`));
  });
});
