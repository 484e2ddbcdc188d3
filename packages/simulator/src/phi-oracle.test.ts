import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { PhiOracle, sampleStride, serialise } from './phi-oracle.js';
import { PhiScanner } from './phi-scan.js';

describe('PhiOracle (plain substring search, independent of the scanner)', () => {
  it("finds what the fast scanner's tokens cannot: short names, non-ASCII names, glued on one side", () => {
    const values = ['WEI', 'ZOË', 'ÅSA', 'ZX1234567A'];
    const texts = [
      '{"msg":"retry","who":"WEI"}',
      'patient ZOË at the counter',
      '{"last":"ÅSA"}',
      'key=ZX1234567Adef',
    ];
    const oracle = new PhiOracle();
    oracle.add(values);
    for (const t of texts) oracle.offer('log', t);
    oracle.check();
    assert.equal(oracle.found.length, texts.length);
    assert.ok(
      oracle.found.every((f) => f.sample.endsWith('«PHI»') && !values.some((v) => f.sample.includes(v))),
    );
    // The blind spots it is there for: the scanner finds none of these.
    const scanner = new PhiScanner();
    scanner.add(values);
    for (const t of texts) scanner.scan('log', t);
    assert.equal(scanner.found.length, 0);
  });

  it('a short value at the end of random letters and digits (a vendor authorization number) is not a find', () => {
    // Seen in a generated run (FC_SEED=440724350): "authorizationNumber":"A6Y" + a three-letter name.
    const oracle = new PhiOracle();
    oracle.add(['QJO']);
    oracle.offer('outcome', '{"kind":"paid","authorizationNumber":"A6YQJO"}');
    oracle.check();
    assert.equal(oracle.found.length, 0);
  });

  it('a value inside a longer run of letters or digits (a base64 key, a latency) is not a find', () => {
    const oracle = new PhiOracle();
    oracle.add(['WEI', '19870412']);
    oracle.offer('audit', { claimKey: 'rx1_tNQasqEN0zWEIq', latencyMs: 136.0198704123 });
    oracle.check();
    assert.deepEqual(oracle.found, []);
  });

  it('a date of birth at the end of an epoch timestamp is no find; standing alone or after letters it is', () => {
    // Seen once the sample spanned the whole day: an audit record at 1796019850604 ms, whose
    // last 8 digits are a generated date of birth (1985-06-04).
    const oracle = new PhiOracle();
    oracle.add(['19850604']);
    oracle.offer('audit', { at: 1796019850604, correlationId: 'a2d996-1oas', type: 'attempt' });
    oracle.offer('audit', { latencyMs: 4.19850604 });
    oracle.check();
    assert.deepEqual(oracle.found, []);
    for (const text of [
      '{"dob":19850604}',
      'dob19850604',
      'dob=19850604;',
      '{"n":"ZX1","d":"19850604"}',
      // Glued to other digits, yet no timestamp or fraction: the date of birth, then more.
      '{"t":198506041}',
      '{"k":"1985060420261130"}',
      '{"k":"0119850604"}',
    ]) {
      const o = new PhiOracle();
      o.add(['19850604']);
      o.offer('log', text);
      o.check();
      assert.equal(o.found.length, 1, text);
    }
  });

  it('serialises values whole: a date of birth as a number is found', () => {
    const oracle = new PhiOracle();
    oracle.add(['19870412']);
    oracle.offer('event', { type: 'attempt', dob: 19870412 });
    oracle.check();
    assert.equal(oracle.found.length, 1);
    assert.equal(oracle.found[0]!.where, 'event');
  });

  it('samples every kind: the first texts, then every stride-th of the rest, the stride its slow definition (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 6, unit: 'grapheme' }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 3000 }),
        fc.nat(),
        (phi, perKind, offered, pick) => {
          const at = pick % offered;
          const oracle = new PhiOracle(perKind);
          oracle.add([phi]);
          for (let i = 0; i < offered; i++) oracle.offer('audit', i === at ? `[${phi}]` : '\u0000');
          oracle.check();
          const stride = sampleStride(offered, perKind);
          const kept = at < perKind || (at - perKind) % stride === 0;
          assert.equal(oracle.found.length, kept ? 1 : 0);
          const tail = Math.ceil(Math.max(0, offered - perKind) / stride);
          assert.equal(oracle.searched, Math.min(offered, perKind) + tail);
          assert.ok(tail <= 3 * perKind);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("a long run's last quarter is searched too (the sample spans the run, not its first hours)", () => {
    const oracle = new PhiOracle();
    oracle.add(['ZX1234567A']);
    const n = 100_000;
    for (let i = 0; i < n; i++)
      oracle.offer('log', i < (3 * n) / 4 ? '{"msg":"attempt"}' : '{"msg":"attempt","who":"ZX1234567A"}');
    oracle.check();
    assert.ok(oracle.found.length > 0);
    assert.ok(oracle.searched <= 4 * 200);
  });

  it('finds any of many values sharing first characters, standing alone in a text (property)', () => {
    // Values of every length from one alphabet: the search tries each length where a value may start.
    const value = fc.string({ unit: fc.constantFrom('Z', 'X', '1', '9', 'é'), minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(fc.uniqueArray(value, { minLength: 1, maxLength: 40 }), fc.nat(), (values, pick) => {
        const v = values[pick % values.length]!;
        const text = `{"note":"${v}"}`;
        const oracle = new PhiOracle();
        oracle.add(values);
        oracle.offer('log', text);
        oracle.offer('log', '{"note":"-"}');
        oracle.check();
        // indexOf finds `v` between quotes in the first text, and no value in the second.
        assert.equal(oracle.found.length, 1);
      }),
      { numRuns: 300 },
    );
  });
});

describe('serialise (the text the oracle searches)', () => {
  // The definition: JSON.stringify with a replacer that writes a BigInt as its digits; the
  // fast path asks JSON.stringify without a replacer first (the replacer was called per value).
  const byReplacer = (v: unknown): string => {
    if (typeof v === 'string') return v;
    try {
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)) ?? String(v);
    } catch {
      return String(v);
    }
  };

  it('is the replacer definition, for any value: BigInts, toJSON, undefined, circular (property)', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    const value = fc.oneof(
      fc.anything({
        withBigInt: true,
        withDate: true,
        withMap: true,
        withSet: true,
        withNullPrototype: true,
      }),
      fc.bigInt().map((b) => ({ at: b, nested: [{ b }] })),
      fc.bigInt().map((b) => ({ toJSON: () => b })),
      fc.constantFrom(undefined, () => 1, Symbol('s'), circular, { a: undefined }),
    );
    fc.assert(
      fc.property(value, (v) => {
        assert.equal(serialise(v), byReplacer(v));
      }),
      { numRuns: 3000 },
    );
  });
});
