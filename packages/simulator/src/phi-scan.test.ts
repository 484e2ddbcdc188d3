import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PhiScanner } from './phi-scan.js';

describe('PhiScanner', () => {
  it('finds a PHI token whole, inside longer text, in short strings and deep in objects', () => {
    const s = new PhiScanner();
    s.add(['ZX1234567A', 'MARIA', 'ANNE-MARIE', '19870412']);
    const hit = (v: unknown) => {
      const before = s.found.length;
      s.scanValue('t', v);
      return s.found.length > before;
    };
    assert.ok(hit('ZX1234567A'));
    assert.ok(hit('Dr MARIA'), 'a name inside a short string');
    assert.ok(hit({ a: [{ b: 'card=ZX1234567A;' }] }));
    assert.ok(hit(['x', { note: 'born 19870412' }]));
    assert.ok(hit('MARIE'), 'each part of a hyphenated value is a token');
    assert.ok(!hit('ZX1234567AB'), 'a longer run is another value');
    assert.ok(!hit('MARI'));
    assert.ok(!hit({ claimKey: 'rx1_abcdEFGH1234', path: ['primary'], n: 19870413 }));
    assert.ok(hit({ claimKey: 'rx1_abcdEFGH1234', dob: 19870412 }), 'a date of birth logged as a number');
    assert.equal(s.found[0]!.sample, '«PHI»');
    assert.ok(!s.found.some((f) => f.sample.includes('ZX1234567A')), 'samples never repeat the value');
  });

  it('finds every PHI token placed among any other text (property)', () => {
    const alnum = fc.stringMatching(/^[A-Za-z0-9]{4,14}$/);
    const filler = fc.string({ maxLength: 20 });
    const sep = fc.constantFrom(' ', '"', ':', '-', '_', '/', '\u00e9', '{');
    fc.assert(
      fc.property(alnum, filler, filler, sep, sep, (phi, before, after, l, r) => {
        const s = new PhiScanner();
        s.add([phi]);
        s.scan('t', `${before}${l}${phi}${r}${after}`);
        assert.equal(s.found.length, 1);
      }),
      { numRuns: 1000 },
    );
  });
});
