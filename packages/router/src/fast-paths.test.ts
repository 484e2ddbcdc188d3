// The router's hand-written fast paths, each held equal to the slow definition it replaces.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import {
  build,
  type CanonicalClaim,
  decimalFixed,
  fastCheck,
  fastParse,
  parseClaim,
  toWire,
  validDate,
  wireBody,
} from './claim.js';
import { CLAIM_FIELDS, type ClaimField } from './claim-fields.js';
import { hmacSha256, idempotencyKey, idempotencyKeyer, identityText } from './idempotency.js';
import type { SubmitOptions } from './options.js';
import { Phi } from './phi.js';
import { ClaimSignal, toAbortSignal } from './signal.js';
import { readSubmitOptions, type SubmitOptionsRead } from './submit-options.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';

describe('the idempotency key', () => {
  it('its MAC is HMAC-SHA256: RFC 4231 test case 2', () => {
    assert.equal(
      hmacSha256('Jefe')('what do ya want for nothing?'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('is createHmac over the NCPDP duplicate rule, nothing else (product and cardholder excluded)', () => {
    const claim = parseClaim(rawClaim());
    const message = [
      claim.transactionCode,
      claim.bin,
      claim.pcn,
      claim.serviceProviderId,
      claim.prescriptionNumber,
      String(claim.fillNumber),
      claim.dateOfService,
    ].join('\u001f');
    const expected = `rx1_${createHmac('sha256', SECRET).update(message).digest('base64url').slice(0, 32)}`;
    assert.equal(idempotencyKey(claim, SECRET), expected);
    assert.equal(idempotencyKeyer(SECRET)(claim), expected);
  });
});

describe('identityText', () => {
  it('is the template it was written as, for any field values, missing and null included (property)', () => {
    const value = fc.oneof(fc.string(), fc.integer(), fc.constantFrom(undefined, null));
    const names = [
      'transactionCode',
      'bin',
      'pcn',
      'serviceProviderId',
      'prescriptionNumber',
      'fillNumber',
      'dateOfService',
    ] as const;
    fc.assert(
      fc.property(fc.tuple(...names.map(() => value)), (values) => {
        const c = Object.fromEntries(names.map((n, i) => [n, values[i]])) as Record<string, unknown>;
        const byTemplate = `${c.transactionCode}\u001f${c.bin}\u001f${c.pcn}\u001f${c.serviceProviderId}\u001f${c.prescriptionNumber}\u001f${c.fillNumber}\u001f${c.dateOfService}`;
        assert.equal(identityText(c as unknown as CanonicalClaim), byTemplate);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('HMAC-SHA256 over precomputed pads', () => {
  it('equals createHmac for any secret and message (property)', () => {
    // Lengths across the block (64 bytes) and the scratch buffer (256 bytes) on both sides.
    const text = fc.oneof(
      fc.string({ maxLength: 400, size: 'max' }),
      fc.string({ unit: 'binary', maxLength: 400, size: 'max' }),
    );
    const secret = fc.oneof(text, fc.uint8Array({ maxLength: 200, size: 'max' }));
    fc.assert(
      fc.property(secret, fc.array(text, { minLength: 1, maxLength: 4 }), (key, messages) => {
        const mac = hmacSha256(key);
        const macUrl = hmacSha256(key, 'base64url');
        // Several messages through one keyer: its scratch buffers and views must not leak between them.
        for (const m of messages) {
          const expected = createHmac('sha256', typeof key === 'string' ? Buffer.from(key, 'utf8') : key)
            .update(m, 'utf8')
            .digest();
          assert.equal(mac(m), expected.toString('hex'));
          assert.equal(macUrl(m), expected.toString('base64url'));
        }
      }),
      { numRuns: 1000 },
    );
  });
  it('reads the grown scratch buffer after a longer message, for lengths seen before (property)', () => {
    // Two ASCII messages of one length around one longer than the scratch buffer (256 bytes).
    const ascii = (n: number) =>
      fc.string({ unit: fc.constantFrom(...'abcdefghij0123456789'), minLength: n, maxLength: n });
    const run = fc
      .integer({ min: 0, max: 60 })
      .chain((n) => fc.tuple(ascii(n), fc.string({ minLength: 257, maxLength: 400 }), ascii(n)));
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), run, (key, [before, long, after]) => {
        const mac = hmacSha256(key);
        for (const m of [before, long, after])
          assert.equal(
            mac(m),
            createHmac('sha256', Buffer.from(key, 'utf8')).update(m, 'utf8').digest('hex'),
          );
      }),
      { numRuns: 200 },
    );
  });
});

describe('validDate', () => {
  const byDate = (s: string): boolean => {
    if (!/^\d{8}$/.test(s)) return false;
    const y = Number(s.slice(0, 4));
    const m = Number(s.slice(4, 6));
    const d = Number(s.slice(6, 8));
    const date = new Date(Date.UTC(y, m - 1, d));
    return (
      y >= 1900 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d
    );
  };
  it('equals the Date-based definition on any 8 digits and any text (property)', () => {
    const digits = (n: number) => fc.stringMatching(new RegExp(`^\\d{${n}}$`));
    const date = fc.oneof(
      fc
        .tuple(
          fc.integer({ min: 1890, max: 2410 }),
          fc.integer({ min: 0, max: 13 }),
          fc.integer({ min: 0, max: 32 }),
        )
        .map(([y, m, d]) => `${y}`.padStart(4, '0') + `${m}`.padStart(2, '0') + `${d}`.padStart(2, '0')),
      digits(8),
      fc.string({ maxLength: 10 }),
    );
    fc.assert(
      fc.property(date, (s) => {
        assert.equal(validDate(s), byDate(s), s);
      }),
      { numRuns: 5000 },
    );
    for (const s of [
      '20000229',
      '19000229',
      '21000229',
      '20240229',
      '20230229',
      '19000101',
      '18991231',
      '20261131',
    ])
      assert.equal(validDate(s), byDate(s), s);
  });
});

describe('wireBody and decimalFixed', () => {
  it('decimalFixed equals Decimal#toFixed on every decimal (property)', () => {
    const decimals = fc.oneof(
      fc.stringMatching(/^-?\d{1,12}(\.\d{0,8})?$/),
      fc.double({ noNaN: true }).map(String),
      fc.constantFrom(
        '0',
        '-0',
        '0.000',
        '1e21',
        '1e-7',
        '123456789012345678901234567890.5',
        'Infinity',
        'NaN',
      ),
    );
    fc.assert(
      fc.property(decimals, fc.integer({ min: 0, max: 14 }), (text, places) => {
        const d = new Decimal(text);
        assert.equal(decimalFixed(d, places), d.toFixed(places), `${text} to ${places}`);
      }),
      { numRuns: 3000 },
    );
  });

  it('wireBody is exactly JSON.stringify(toWire(claim)), for any field values (property)', () => {
    // Any code units, and text made of those on either side of what JSON writes as is (the
    // quote, the backslash, controls, DEL, non-ASCII, lone surrogates): any text draws those
    // too seldom to hold the plain-text check to JSON.stringify.
    const text = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }),
      fc.string({
        unit: fc.constantFrom(
          '"',
          '\\',
          '\u0000',
          '\u001f',
          ' ',
          '!',
          '#',
          '[',
          ']',
          '~',
          '\u007f',
          '\u00e9',
          '\u2028',
          '\ud800',
          '\udc00',
          'A',
          '0',
        ),
        minLength: 1,
        maxLength: 20,
      }),
    );
    fc.assert(
      fc.property(
        fc.record(
          {
            transactionCode: fc.constantFrom('B1' as const, 'B2' as const, 'E1' as const),
            bin: text,
            pcn: text,
            groupId: text,
            cardholderId: text.map((v) => new Phi(v)),
            patientFirstName: text.map((v) => new Phi(v)),
            patientLastName: text.map((v) => new Phi(v)),
            dateOfBirth: text.map((v) => new Phi(v)),
            serviceProviderId: text,
            prescriptionNumber: text,
            fillNumber: fc.oneof(fc.integer({ min: 0, max: 99 }), fc.double()),
            productId: text,
            quantityDispensed: fc.stringMatching(/^\d{1,9}(\.\d{1,5})?$/).map((v) => new Decimal(v)),
            daysSupply: fc.oneof(fc.integer({ min: 1, max: 999 }), fc.double()),
            dateOfService: text,
            ingredientCostSubmitted: fc.stringMatching(/^\d{1,9}(\.\d{1,4})?$/).map((v) => new Decimal(v)),
          },
          {
            requiredKeys: [
              'transactionCode',
              'bin',
              'pcn',
              'cardholderId',
              'serviceProviderId',
              'prescriptionNumber',
              'fillNumber',
              'productId',
              'quantityDispensed',
              'daysSupply',
              'dateOfService',
              'ingredientCostSubmitted',
            ],
          },
        ),
        fc.option(text, { nil: undefined }),
        (claim, productId) => {
          assert.equal(wireBody(claim, productId), JSON.stringify(toWire(claim, productId)));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('fastCheck and the RegExps it is written from', () => {
  // The definitions the hand-written checks replaced, format by format.
  const byRegExp = (f: ClaimField): ((v: unknown) => boolean) | undefined => {
    const t = f.format;
    if (t.kind === 'digits') {
      const re = new RegExp(t.upTo ? `^\\d{1,${t.length}}$` : `^\\d{${t.length}}$`);
      return (v) => typeof v === 'string' && re.test(v);
    }
    if (t.kind === 'decimal') {
      const re = new RegExp(`^\\d{1,9}(\\.\\d{1,${t.scale}})?$`);
      return (v) => typeof v === 'string' && re.test(v);
    }
    if (t.kind === 'text')
      return (v) =>
        typeof v === 'string' && v.length >= 1 && v.length <= t.max && v.trim() === v && !/\p{Cs}/u.test(v);
    return undefined;
  };
  const checked = CLAIM_FIELDS.flatMap((f) => {
    const slow = byRegExp(f);
    return slow === undefined ? [] : [{ code: f.code, fast: fastCheck(f), slow }];
  });

  it('digits, decimals and text: the check of each field is its RegExp definition, on text at their edges (property)', () => {
    // Digits and their neighbours, the dot, spaces, surrogates paired and alone, other letters.
    const unit = fc.constantFrom(
      '0',
      '5',
      '9',
      '/',
      ':',
      '.',
      ' ',
      '\u00a0',
      'A',
      '\ud83d',
      '\ude00',
      '\udc00',
    );
    const value = fc.oneof(
      fc.string({ unit, maxLength: 14 }),
      fc.string({ unit, minLength: 30, maxLength: 40 }),
      fc.stringMatching(/^\d{1,12}(\.\d{0,5})?$/),
      fc.constantFrom(undefined, null, 7, '', '\ud83d\ude00'),
    );
    fc.assert(
      fc.property(value, (v) => {
        for (const c of checked) assert.equal(c.fast(v), c.slow(v), `${c.code}: ${JSON.stringify(v)}`);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('the field-by-field claim code and the table it is written from', () => {
  // The table-driven definitions the field-by-field code in claim.ts replaced: one loop over
  // CLAIM_FIELDS each (there, one keyed property access seeing all 34 names: megamorphic).
  const buildByTable = (r: Record<string, unknown>): CanonicalClaim => {
    const claim: Record<string, unknown> = {};
    for (const f of CLAIM_FIELDS) {
      const v = r[f.code];
      if (v === undefined) continue;
      claim[f.name] = f.phi
        ? new Phi(v as string)
        : f.format.kind === 'decimal'
          ? new Decimal(v as string)
          : v;
    }
    return claim as unknown as CanonicalClaim;
  };
  const CHECKS = CLAIM_FIELDS.map((f) => ({ code: f.code, required: f.required, ok: fastCheck(f) }));
  const fastParseByTable = (r: Record<string, unknown>): CanonicalClaim | undefined => {
    let present = 0;
    for (const f of CHECKS) {
      const v = r[f.code];
      if (v === undefined) {
        if (f.required) return undefined;
      } else if (!f.ok(v)) return undefined;
      else present++;
    }
    let keys = 0;
    for (const _ in r) keys++;
    return keys === present ? buildByTable(r) : undefined;
  };
  // Every own property in order, with what it holds: Phi and Decimal by class and value (deep
  // equality alone does not see a Phi's private value).
  const view = (c: object) =>
    Object.entries(c).map(([k, v]) =>
      v instanceof Phi
        ? [k, 'Phi', v.reveal()]
        : v instanceof Decimal
          ? [k, 'Decimal', v.toString()]
          : [k, typeof v, v],
    );

  /** A wire value the field's format accepts as is. */
  const valid = (f: ClaimField): fc.Arbitrary<unknown> => {
    const t = f.format;
    switch (t.kind) {
      case 'enum':
        return fc.constantFrom(...t.values);
      case 'digits':
        return fc.stringMatching(new RegExp(t.upTo ? `^\\d{1,${t.length}}$` : `^\\d{${t.length}}$`));
      case 'text':
        return fc.stringMatching(new RegExp(`^[A-Z0-9]([A-Z0-9 ]{0,${t.max - 2}}[A-Z0-9])?$`));
      case 'date':
        return fc.constantFrom('20261130', '19000101', '20240229', '19991231');
      case 'int':
        return fc.integer({ min: t.min, max: t.max });
      case 'decimal':
        return fc.stringMatching(new RegExp(`^\\d{1,9}(\\.\\d{1,${t.scale}})?$`));
    }
  };
  const nearMiss = fc.constantFrom<unknown>(' A', '', 'A ', 1.5, -1, 0, 100, '2026113', 'b1', '1.0000', null);
  /** A wire claim over all 34 fields: each absent, right, or a near miss; sometimes an unknown key. */
  const wireClaim = fc
    .tuple(
      fc.tuple(
        ...CLAIM_FIELDS.map((f) =>
          fc.oneof(
            { arbitrary: valid(f), weight: f.required ? 60 : 20 },
            { arbitrary: fc.constant(undefined), weight: f.required ? 1 : 20 },
            { arbitrary: nearMiss, weight: 1 },
          ),
        ),
      ),
      fc.constantFrom(undefined, undefined, undefined, undefined, 'extra', '402-D2 '),
    )
    .map(([values, extra]) => {
      const r: Record<string, unknown> = {};
      CLAIM_FIELDS.forEach((f, i) => {
        if (values[i] !== undefined) r[f.code] = values[i];
      });
      if (extra !== undefined) r[extra] = 'X';
      return r;
    });

  it('build equals the table-driven build, field for field and in order, for all 34 fields (property)', () => {
    // Any field present or not (a reversal lacks the B1-only ones), any value (decimal fields
    // hold decimal strings once checked).
    const anyValue = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.constant(null));
    const decimal = fc.stringMatching(/^\d{1,9}(\.\d{1,3})?$/);
    const record = fc
      .tuple(
        ...CLAIM_FIELDS.map((f) =>
          fc.option(f.format.kind === 'decimal' ? decimal : anyValue, { nil: undefined, freq: 2 }),
        ),
      )
      .map((values) => {
        const r: Record<string, unknown> = {};
        CLAIM_FIELDS.forEach((f, i) => {
          if (values[i] !== undefined) r[f.code] = values[i];
        });
        return r;
      });
    fc.assert(
      fc.property(record, (r) => {
        assert.deepEqual(view(build(r)), view(buildByTable(r)));
      }),
      { numRuns: 2000 },
    );
    // Every field at once, each written under its own name.
    const all = Object.fromEntries(
      CLAIM_FIELDS.map((f, i) => [
        f.code,
        f.format.kind === 'int' ? i : f.format.kind === 'decimal' ? `${i}.5` : `v${f.code}`,
      ]),
    );
    const built = view(build(all));
    assert.equal(built.length, CLAIM_FIELDS.length);
    assert.deepEqual(built, view(buildByTable(all)));
  });

  it('fastParse equals the table-driven fast parse, for all 34 fields (property)', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(wireClaim, (r) => {
        const fast = fastParse(r);
        const slow = fastParseByTable(r);
        assert.equal(fast === undefined, slow === undefined, JSON.stringify(r));
        if (fast !== undefined && slow !== undefined) {
          accepted++;
          assert.deepEqual(view(fast), view(slow));
        } else refused++;
      }),
      { numRuns: 4000 },
    );
    assert.ok(
      accepted > 400 && refused > 400,
      `both outcomes exercised (${accepted} accepted, ${refused} refused)`,
    );
    // Every field present and right, then each one wrong in turn: each field's own check,
    // under its own code.
    const full = Object.fromEntries(
      CLAIM_FIELDS.map((g) => [g.code, fc.sample(valid(g), { numRuns: 1, seed: 1 })[0]]),
    );
    const fastFull = fastParse(full);
    assert.ok(fastFull !== undefined, 'a claim with every field right is accepted');
    assert.equal(view(fastFull).length, CLAIM_FIELDS.length);
    assert.deepEqual(view(fastFull), view(fastParseByTable(full)!));
    for (const f of CLAIM_FIELDS)
      assert.equal(fastParse({ ...full, [f.code]: ' ' }), undefined, `${f.code} is checked`);
  });

  it('wireBody is exactly JSON.stringify(toWire(claim)) for claims over all 34 fields (property)', () => {
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 });
    const value = (f: ClaimField): fc.Arbitrary<unknown> =>
      f.phi
        ? text.map((v) => new Phi(v))
        : f.format.kind === 'decimal'
          ? fc.stringMatching(/^\d{1,9}(\.\d{1,5})?$/).map((v) => new Decimal(v))
          : f.format.kind === 'int'
            ? fc.oneof(fc.integer(), fc.double())
            : f.format.kind === 'enum'
              ? fc.constantFrom(...f.format.values)
              : text;
    const claim = fc
      .tuple(
        ...CLAIM_FIELDS.map((f) =>
          // 103-A3 always (every claim and reversal has one); any other field present or not.
          f.code === '103-A3' ? value(f) : fc.option(value(f), { nil: undefined, freq: 3 }),
        ),
      )
      .map((values) => {
        const c: Record<string, unknown> = {};
        CLAIM_FIELDS.forEach((f, i) => {
          if (values[i] !== undefined) c[f.name] = values[i];
        });
        return c as unknown as CanonicalClaim;
      });
    fc.assert(
      fc.property(claim, fc.option(text, { nil: undefined }), (c, productId) => {
        assert.equal(wireBody(c, productId), JSON.stringify(toWire(c, productId)));
      }),
      { numRuns: 3000 },
    );
  });
});

describe('readSubmitOptions, property by property', () => {
  const NAMES = [
    'lane',
    'segment',
    'deadline',
    'signal',
    'pinnedNode',
  ] as const satisfies readonly (keyof SubmitOptions)[];
  // The definition it was written from: one keyed read per name, through one helper.
  const byName = (given: object): SubmitOptionsRead => {
    const issues: { field: string; message: string }[] = [];
    const out: Record<string, unknown> = {};
    const read = (name: keyof SubmitOptions): unknown => {
      try {
        return (given as Record<string, unknown>)[name];
      } catch {
        issues.push({ field: `options.${name}`, message: 'could not be read (a getter threw)' });
        return undefined;
      }
    };
    const checks: Record<keyof SubmitOptions, [(v: unknown) => boolean, string]> = {
      lane: [(v) => v === 'pos' || v === 'batch', "must be 'pos' or 'batch'"],
      segment: [
        (v) => typeof v === 'string' && v !== '' && v.length <= 64,
        'must be a non-empty string of at most 64 characters',
      ],
      deadline: [
        (v) => typeof v === 'number' && Number.isFinite(v),
        'must be a finite number (ms on the router clock)',
      ],
      signal: [(v) => v instanceof AbortSignal, 'must be an AbortSignal'],
      pinnedNode: [(v) => typeof v === 'string' && v !== '', 'must be a node name'],
    };
    for (const name of NAMES) {
      const v = read(name);
      if (v === undefined) continue;
      const [ok, message] = checks[name];
      if (ok(v)) out[name] = v;
      else issues.push({ field: `options.${name}`, message });
    }
    return issues.length > 0 ? { ok: false, issues } : { ok: true, options: out as unknown as SubmitOptions };
  };
  const signal = new AbortController().signal;
  const value = fc.constantFrom<unknown>(
    undefined,
    'pos',
    'batch',
    'retail',
    '',
    'x'.repeat(65),
    'node-b',
    0,
    12.5,
    Number.NaN,
    signal,
    null,
    {},
  );
  // Each name absent, a value, or a getter that throws (the getter counts its reads).
  const slot = fc.oneof(
    { arbitrary: fc.constant({ kind: 'absent' as const }), weight: 3 },
    { arbitrary: value.map((v) => ({ kind: 'value' as const, v })), weight: 6 },
    { arbitrary: fc.constant({ kind: 'throws' as const }), weight: 1 },
  );
  const options = fc.tuple(...NAMES.map(() => slot), fc.boolean()).map((slots) => {
    const reads: string[] = [];
    const o: Record<string, unknown> = {};
    NAMES.forEach((name, i) => {
      const s = slots[i] as { kind: 'absent' } | { kind: 'value'; v: unknown } | { kind: 'throws' };
      if (s.kind === 'value') o[name] = s.v;
      else if (s.kind === 'throws')
        Object.defineProperty(o, name, {
          enumerable: true,
          get: () => {
            reads.push(name);
            throw new Error('no');
          },
        });
    });
    if (slots[NAMES.length]) o.unknownOption = 1;
    return { o, reads };
  });

  it('equals one keyed read per name through a helper, issues and copy alike, each name read once (property)', () => {
    fc.assert(
      fc.property(options, ({ o, reads }) => {
        const fast = readSubmitOptions(o);
        const fastReads = reads.splice(0);
        const slow = byName(o);
        assert.deepEqual(fast, slow);
        if (fast.ok) assert.deepEqual(Object.keys(fast.options), Object.keys(slow.ok ? slow.options : {}));
        assert.deepEqual(fastReads, reads);
      }),
      { numRuns: 3000 },
    );
    // Every name given, each read under its own name.
    const all = { lane: 'batch', segment: 'specialty', deadline: 5, signal, pinnedNode: 'b' };
    assert.deepEqual(readSubmitOptions(all), { ok: true, options: all });
  });
});

describe('ClaimSignal', () => {
  it('runs each listener once on abort, in order, and none that was removed or added after', () => {
    const s = new ClaimSignal();
    const calls: string[] = [];
    const a = () => calls.push('a');
    const b = () => calls.push('b');
    const c = () => calls.push('c');
    s.addEventListener('abort', a);
    s.addEventListener('abort', b);
    s.addEventListener('abort', c);
    s.removeEventListener('abort', b);
    s.abort();
    s.abort();
    s.addEventListener('abort', () => calls.push('late'));
    assert.deepEqual(calls, ['a', 'c']);
    assert.equal(s.aborted, true);
    assert.ok(s.reason instanceof DOMException && s.reason.name === 'AbortError');
  });

  it('toAbortSignal gives a real AbortSignal that follows it (and the same signal for a real one)', () => {
    const s = new ClaimSignal();
    const real = toAbortSignal(s);
    assert.ok(real instanceof AbortSignal);
    assert.equal(real.aborted, false);
    s.abort('why');
    assert.equal(real.aborted, true);
    assert.equal(real.reason, 'why');
    const controller = new AbortController();
    assert.equal(toAbortSignal(controller.signal), controller.signal);
  });
});
