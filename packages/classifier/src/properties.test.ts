import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AMOUNT_FIELDS, classify, isDecimal, readAmounts } from './classify.js';
import { REJECT_CODES } from './reject-codes.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const headerName = fc.oneof(
  fc.constantFrom(
    'retry-after',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit',
    'ratelimit-policy',
    'date',
    'X-Rate-Limit-Reset',
  ),
  fc.string({ maxLength: 20 }),
);
const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer().map(String),
  fc.date({ noInvalidDate: true }).map((d) => d.toUTCString()),
);
const headers = fc.dictionary(headerName, headerValue, { maxKeys: 8 });
const code = fc.oneof(
  fc.constantFrom(...REJECT_CODES.keys()),
  fc.string({ maxLength: 5 }),
  fc.integer({ min: -5, max: 1000 }),
);
const ncpdpBody = fc.record(
  {
    '112-AN': fc.oneof(
      fc.constantFrom('P', 'A', 'C', 'R', 'D', 'Q', 'S', 'F', 'Z', ''),
      fc.string({ maxLength: 3 }),
      fc.integer(),
    ),
    '511-FB': fc.oneof(fc.array(code, { maxLength: 4 }), code, fc.constant(null)),
    '509-F9': fc.oneof(fc.constant('12.34'), fc.string({ maxLength: 8 }), fc.double()),
    '505-F5': fc.oneof(fc.constant('1.00'), fc.string({ maxLength: 8 })),
  },
  { requiredKeys: [] },
);
const body = fc.oneof(ncpdpBody, fc.anything(), fc.string({ maxLength: 50 }), fc.json());
const status = fc.oneof(
  fc.constantFrom(200, 400, 401, 404, 408, 429, 500, 502, 503, 504),
  fc.integer({ min: -10, max: 1000 }),
  fc.double(),
);

/** The decision table of DESIGN.md by HTTP status, independent of classify's code. */
function expectedKinds(s: number): ReadonlySet<string> {
  if (!Number.isInteger(s) || s < 100 || s > 599) return new Set(['unknown']);
  if (s === 200)
    return new Set([
      'adjudicated',
      'terminal-reject',
      'repairable',
      'duplicate',
      'transient',
      'client-error',
      'unknown',
    ]);
  if (s === 429) return new Set(['throttled']);
  if (s === 503) return new Set(['throttled', 'transient']);
  if (s === 408 || s >= 500) return new Set(['transient']);
  if (s === 401) return new Set(['auth-expired']);
  if (s === 404) return new Set(['routing-reject', 'client-error']);
  if (s >= 400) return new Set(['client-error']);
  return new Set(['unknown']);
}

// The host errors that trip VistA's "insurer asleep" breaker (the reject-code groups): 90–98.
// Host data faults in a 200 (99, M3, M6, M7…) are a deferred retry and leave the breaker alone.
const HOST_DOWN = new Set(['90', '91', '92', '93', '95', '96', '97', '98']);

/** The 511-FB codes of a body, read here without the classifier's parser. */
function codesOf(b: unknown): string[] {
  let o: unknown = b;
  try {
    if (typeof b === 'string') o = JSON.parse(b);
    else if (b instanceof Uint8Array) o = JSON.parse(Buffer.from(b).toString('utf8'));
  } catch {
    return [];
  }
  const codes = o !== null && typeof o === 'object' ? (o as Record<string, unknown>)['511-FB'] : undefined;
  // 511-FB is a list of codes, or one code on its own.
  const list = Array.isArray(codes) ? codes : codes === undefined || codes === null ? [] : [codes];
  return list.map((c) => String(c).trim().toUpperCase());
}

function expectedBreaker(s: number, kind: string, b: unknown): string {
  if (kind === 'transient')
    return s === 200 && !codesOf(b).some((c) => HOST_DOWN.has(c)) ? 'ignore' : 'failure';
  if (kind === 'throttled' || kind === 'auth-expired' || kind === 'routing-reject') return 'ignore';
  if (kind === 'client-error') return s === 200 ? 'success' : 'ignore';
  return 'success';
}

describe('classify properties', () => {
  // classify() catches everything and answers `unclassifiable-input`, so "it does not throw" holds
  // by construction. What can fail: an answer reached the catch (a bug threw inside), or the kind
  // disagrees with the decision table in DESIGN.md, written out here by status alone.
  it('never falls back to unclassifiable-input, is deterministic, and its kind fits the status', () => {
    fc.assert(
      fc.property(status, headers, body, (s, h, b) => {
        const a = classify({ status: s, headers: h, body: b }, { now: NOW });
        const again = classify({ status: s, headers: h, body: b }, { now: NOW });
        assert.deepEqual(again, a);
        assert.notEqual(a.reason, 'unclassifiable-input', 'classify threw inside and caught it');
        assert.ok(expectedKinds(s).has(a.kind), `status ${s}: ${a.kind} (${a.reason})`);
        assert.equal(
          a.breaker,
          expectedBreaker(s, a.kind, b),
          `status ${s}: breaker ${a.breaker} for ${a.kind}`,
        );
      }),
      { numRuns: 3000 },
    );
  });

  it('is total over arbitrary transport errors', () => {
    fc.assert(
      fc.property(fc.anything(), fc.constantFrom<'sent' | 'not-sent'>('sent', 'not-sent'), (error, phase) => {
        const v = classify({ error, phase });
        assert.equal(v.kind, phase === 'sent' ? 'ambiguous' : 'transient');
      }),
    );
  });

  it('no 200 carrying a reject code is adjudicated', () => {
    fc.assert(
      fc.property(
        ncpdpBody,
        fc.array(fc.constantFrom(...REJECT_CODES.keys()), { minLength: 1, maxLength: 3 }),
        headers,
        (b, codes, h) => {
          const v = classify({ status: 200, headers: h, body: { ...b, '511-FB': codes } }, { now: NOW });
          assert.notEqual(v.kind, 'adjudicated');
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a 429 is never a breaker failure, and always throttled', () => {
    fc.assert(
      fc.property(headers, body, (h, b) => {
        const v = classify({ status: 429, headers: h, body: b }, { now: NOW });
        assert.equal(v.kind, 'throttled');
        assert.notEqual(v.breaker, 'failure');
        assert.equal(v.quota?.throttled, true);
      }),
    );
  });

  it('a 200 with no reject code is adjudicated iff 112-AN is P, A or C and every amount is a decimal string', () => {
    // A generator aimed at the boundary: status 200, no 511-FB, 112-AN from every letter (in
    // either case, padded) plus junk, and the six amount fields each absent, null, a decimal
    // string or not one. The general body generator almost never reaches an adjudicated answer.
    const letter = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    const an = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('P', 'A', 'C') },
      { weight: 4, arbitrary: letter },
      { weight: 1, arbitrary: letter.map((l) => ` ${l.toLowerCase()} `) },
      { weight: 1, arbitrary: fc.string({ maxLength: 3 }) },
      { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant(undefined)) },
    );
    const decimal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^[0-9]{1,15}$/),
        fc.option(fc.stringMatching(/^[0-9]{1,6}$/), { nil: undefined }),
      )
      .map(([neg, int, frac]) => `${neg ? '-' : ''}${int}${frac === undefined ? '' : `.${frac}`}`);
    const notDecimal = fc.oneof(
      fc.constantFrom(
        '',
        '12.',
        '.5',
        '1e3',
        ' 1.00',
        '1.00 ',
        '1,00',
        '--1',
        '+1',
        '1.1234567',
        '1234567890123456',
        'abc',
        '12.34.5',
      ),
      fc.double().filter((x) => !Number.isNaN(x)),
      fc.integer(),
      fc.string({ maxLength: 8 }),
    );
    const amount = fc.oneof(
      { weight: 3, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: fc.constant(null) },
      { weight: 8, arbitrary: decimal },
      { weight: 1, arbitrary: notDecimal },
    );
    const FIELDS = ['505-F5', '506-F6', '509-F9', '518-FI', '572-4U', '517-FH'] as const;
    const answer = fc.record({ an, amounts: fc.tuple(...FIELDS.map(() => amount)) });
    // The contract, written apart from classify: a decimal string is an optional minus, 1 to 15
    // digits, and optionally a point and 1 to 6 digits.
    const DECIMAL = /^-?[0-9]{1,15}(\.[0-9]{1,6})?$/;
    const seen = { adjudicated: 0, pacMalformed: 0, other: 0 };
    fc.assert(
      fc.property(answer, ({ an: status112AN, amounts }) => {
        const body: Record<string, unknown> = {};
        if (status112AN !== undefined) body['112-AN'] = status112AN;
        for (const [i, f] of FIELDS.entries()) if (amounts[i] !== undefined) body[f] = amounts[i];
        const v = classify({ status: 200, headers: {}, body }, { now: NOW });
        const letterIs = typeof status112AN === 'string' ? status112AN.trim().toUpperCase() : undefined;
        const pac = letterIs === 'P' || letterIs === 'A' || letterIs === 'C';
        const present = amounts.filter((x) => x !== undefined && x !== null);
        const valid = present.every((x) => typeof x === 'string' && DECIMAL.test(x));
        const expected = pac && valid;
        if (expected) seen.adjudicated++;
        else if (pac) seen.pacMalformed++;
        else seen.other++;
        assert.equal(v.kind === 'adjudicated', expected, `112-AN ${JSON.stringify(status112AN)}: ${v.kind}`);
        if (v.kind !== 'adjudicated') return;
        assert.equal(v.status112AN, letterIs);
        assert.deepEqual(Object.values(v.amounts).sort(), (present as string[]).slice().sort());
      }),
      { numRuns: 1000 },
    );
    // The generator reached both sides of the boundary, and the near miss (P/A/C, a bad amount).
    for (const [side, n] of Object.entries(seen)) assert.ok(n >= 50, `only ${n} ${side} answers generated`);
  });
});

describe('readAmounts, field by field', () => {
  // The table-driven definition it was written from: one loop over AMOUNT_FIELDS.
  const readAmountsByTable = (body: Record<string, unknown>): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    for (const [field, key] of AMOUNT_FIELDS) {
      const v = body[field];
      if (v === undefined || v === null) continue;
      if (typeof v !== 'string' || !isDecimal(v)) return undefined;
      out[key] = v;
    }
    return out;
  };
  const value = fc.oneof(
    { arbitrary: fc.stringMatching(/^-?\d{1,16}(\.\d{0,3})?$/), weight: 8 },
    { arbitrary: fc.constantFrom<unknown>(undefined, null, 5, '', 'x', '1e3', ' 1.00'), weight: 2 },
  );
  const body = fc
    .tuple(
      fc.tuple(...AMOUNT_FIELDS.map(() => value)),
      fc.dictionary(fc.constantFrom('112-AN', '503-F3', '504-F4', 'other'), fc.string()),
    )
    .map(([values, rest]) => {
      const b: Record<string, unknown> = { ...rest };
      AMOUNT_FIELDS.forEach(([field], i) => {
        if (values[i] !== undefined) b[field] = values[i];
      });
      return b;
    });

  it('equals the loop over AMOUNT_FIELDS, field for field and in order (property)', () => {
    let read = 0;
    fc.assert(
      fc.property(body, (b) => {
        const fast = readAmounts(b);
        const slow = readAmountsByTable(b);
        assert.equal(fast === undefined, slow === undefined, JSON.stringify(b));
        if (fast !== undefined) {
          read++;
          assert.deepEqual(Object.entries(fast), Object.entries(slow!));
        }
      }),
      { numRuns: 3000 },
    );
    assert.ok(read > 300, `amounts read (${read})`);
    // Every field present: each under its own name, each checked.
    const all = Object.fromEntries(AMOUNT_FIELDS.map(([field], i) => [field, `${i}.25`]));
    assert.deepEqual(
      Object.entries(readAmounts(all)!),
      AMOUNT_FIELDS.map(([, key], i) => [key, `${i}.25`]),
    );
    for (const [field] of AMOUNT_FIELDS)
      assert.equal(readAmounts({ ...all, [field]: 'x' }), undefined, field);
  });
});
