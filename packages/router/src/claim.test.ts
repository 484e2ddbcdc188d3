import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inspect } from 'node:util';
import { Decimal } from 'decimal.js';
import { type CanonicalClaim, logSafe, parseClaim, safeParseClaim, toWire } from './claim.js';
import { isInvalidClaimError } from './errors.js';
import { idempotencyKey } from './idempotency.js';
import { type LogSafe, Phi } from './phi.js';
import { safeLogger } from './telemetry.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';

describe('parseClaim', () => {
  it('maps NCPDP codes to readable names, money and quantities to Decimal', () => {
    const c = parseClaim(rawClaim());
    assert.equal(c.productId, '00002143380');
    assert.ok(c.quantityDispensed instanceof Decimal);
    assert.equal(c.quantityDispensed.toFixed(3), '30.000');
    assert.equal(c.ingredientCostSubmitted.toFixed(2), '12.34');
    assert.equal(c.cardholderId.reveal(), 'ZX9900112');
  });

  it('round-trips to the wire with decimal strings', () => {
    const wire = toWire(parseClaim(rawClaim({ '442-E7': '7.5', '409-D9': '3' })));
    assert.equal(wire['442-E7'], '7.500');
    assert.equal(wire['409-D9'], '3.00');
    assert.deepEqual(toWire(parseClaim(rawClaim())), { ...rawClaim(), '403-D3': 0 });
  });

  it('names every bad field by its code', () => {
    const r = safeParseClaim(
      rawClaim({
        '103-A3': 'X1',
        '101-A1': '61001',
        '201-B1': 'abc',
        '407-D7': '0000214338',
        '442-E7': 30,
        '405-D5': 0,
        '401-D1': '20260230',
        '409-D9': '-1.00',
        '403-D3': 1.5,
      }),
    );
    assert.equal(r.ok, false);
    assert.deepEqual(!r.ok && r.issues.map((i) => i.field).sort(), [
      '101-A1',
      '103-A3',
      '201-B1',
      '401-D1',
      '403-D3',
      '405-D5',
      '407-D7',
      '409-D9',
      '442-E7',
    ]);
  });

  it('says a missing field is required', () => {
    const raw = rawClaim();
    delete raw['302-C2'];
    const r = safeParseClaim(raw);
    assert.deepEqual(!r.ok && r.issues, [{ field: '302-C2', message: 'is required' }]);
    assert.throws(() => parseClaim(raw), isInvalidClaimError);
    assert.equal(safeParseClaim(null).ok, false);
  });

  it('refuses money and quantities as numbers: decimal strings only', () => {
    const r = safeParseClaim(rawClaim({ '409-D9': 12.34 }));
    assert.deepEqual(!r.ok && r.issues.map((i) => i.field), ['409-D9']);
  });
});

describe('PHI', () => {
  it('prints, serialises and inspects as [REDACTED]', () => {
    const c = parseClaim(rawClaim());
    const texts = [
      String(c.cardholderId),
      `${c.cardholderId}`,
      JSON.stringify(c),
      inspect(c, { depth: 5 }),
      JSON.stringify({ nested: [c] }),
    ];
    for (const t of texts) assert.ok(!t.includes('ZX9900112') && !t.includes('ANA'), t);
    assert.ok(JSON.stringify(c).includes('[REDACTED]'));
  });

  it('logSafe keeps no PHI, prescription number or date of service', () => {
    const text = JSON.stringify(logSafe(parseClaim(rawClaim())));
    for (const v of ['ZX9900112', 'ANA', '000123456', '20261130']) assert.ok(!text.includes(v));
  });

  it('the idempotency key is stable, keyed by the NCPDP duplicate rule, and carries no PHI', () => {
    const a = idempotencyKey(parseClaim(rawClaim()), SECRET);
    assert.equal(idempotencyKey(parseClaim(rawClaim()), SECRET), a, 'stable across parses (and processes)');
    // A payer sees the same claim whatever else changed: a corrected cardholder or NDC is the same claim.
    assert.equal(
      idempotencyKey(parseClaim(rawClaim({ '302-C2': 'OTHER1', '407-D7': '00002143390' })), SECRET),
      a,
    );
    for (const [field, value] of [
      ['101-A1', '610015'],
      ['104-A4', 'OTHER'],
      ['201-B1', '1234567891'],
      ['402-D2', '000123457'],
      ['403-D3', 1],
      ['401-D1', '20261201'],
      ['103-A3', 'B2'],
    ] as const)
      assert.notEqual(
        idempotencyKey(parseClaim(rawClaim({ [field]: value })), SECRET),
        a,
        `${field} is part of the identity`,
      );
    assert.notEqual(idempotencyKey(parseClaim(rawClaim()), `${SECRET}x`), a, 'keyed by the secret');
    assert.ok(!a.includes('ZX9900112'));
  });

  it('the type system makes a claim unloggable', () => {
    const claim: CanonicalClaim = parseClaim(rawClaim());
    const lines: string[] = [];
    const log = safeLogger({
      debug: () => {},
      info: (o) => lines.push(JSON.stringify(o)),
      warn: () => {},
      error: () => {},
    });
    log.info(logSafe(claim));
    // @ts-expect-error: a CanonicalClaim holds Phi, so it is not LogSafe.
    log.info({ claim });
    // @ts-expect-error: nor is a Phi on its own, however deep.
    log.info({ deep: { er: [claim.cardholderId] } });
    const ok: LogSafe<{ a: string }> = { a: 'x' };
    // @ts-expect-error: LogSafe of anything holding Phi is never.
    const bad: LogSafe<{ p: Phi }> = { p: new Phi('x') };
    assert.ok(ok && bad);
    assert.equal(lines.length, 3);
  });
});

describe('the fast path agrees with the zod schema', () => {
  it('whenever it accepts a claim, zod accepts it and builds the same claim', async () => {
    const fc = (await import('fast-check')).default;
    const { fastParse, rawClaimSchema } = await import('./claim.js');
    // Near misses of every rule: digit strings around each length, padded text, numbers for
    // strings, decimals with too many places, impossible dates, and plain junk.
    const nearMiss = fc.oneof(
      fc.integer({ min: 0, max: 13 }).chain((n) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`))),
      fc
        .tuple(
          fc.constantFrom('', ' ', '\t'),
          fc.stringMatching(/^[A-Z0-9]{0,40}$/),
          fc.constantFrom('', ' '),
        )
        .map(([a, b, c]) => a + b + c),
      fc
        .tuple(
          fc.integer({ min: 0, max: 10 ** 10 }),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 0, max: 9999 }),
        )
        .map(([i, places, f]) =>
          places === 0 ? String(i) : `${i}.${String(f).padStart(places, '0').slice(0, places)}`,
        ),
      fc.constantFrom(
        '20261130',
        '20260230',
        '19000101',
        '18991231',
        '2026113',
        'B1',
        'B2',
        'E1',
        'b1',
        '30.000',
        '12.34',
        '-1.00',
      ),
      fc.integer({ min: -2, max: 1000 }),
      fc.double(),
      fc.constantFrom(undefined, null, true, {}),
    );
    const fields = [...Object.keys(rawClaim()), '304-C4', '311-CB', 'extra'];
    const view = (c: CanonicalClaim) => ({ wire: toWire(c), safe: logSafe(c) });
    const agree = (raw: Record<string, unknown>, what: string) => {
      const fast = fastParse(raw);
      if (fast === undefined) return false;
      const slow = rawClaimSchema.safeParse(raw);
      assert.ok(slow.success, `fast path accepted what zod refuses: ${what}`);
      const r = safeParseClaim(JSON.parse(JSON.stringify(raw)));
      assert.ok(r.ok);
      assert.deepEqual(view(fast), view(r.claim));
      return true;
    };
    // Every field against every boundary value, exhaustively.
    const boundaries: unknown[] = [
      ...Array.from({ length: 14 }, (_, n) => '7'.repeat(n)),
      ...Array.from({ length: 14 }, (_, n) => ` ${'7'.repeat(n)}`),
      ...[1, 9, 10, 11, 15, 16, 20, 21, 35, 36].flatMap((n) => ['A'.repeat(n), `${'A'.repeat(n - 1)} `]),
      ...[-1, 0, 1, 30, 98, 99, 100, 998, 999, 1000, 1.5, Number.NaN, Number.POSITIVE_INFINITY],
      ...[
        '1',
        '1.0',
        '1.00',
        '1.000',
        '1.0000',
        '123456789',
        '1234567890',
        '123456789.12',
        '-1.00',
        '.5',
        '5.',
      ],
      ...['20261130', '20260230', '20240229', '20230229', '19000101', '18991231', '2026113', '202611300'],
      ...['B1', 'B2', 'E1', 'b1', 'B3', '', undefined, null, true],
    ];
    for (const field of fields)
      for (const value of boundaries) agree({ ...rawClaim(), [field]: value }, `${field} = ${String(value)}`);
    let accepted = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(...fields), nearMiss), { minLength: 1, maxLength: 2 }),
        (mutations) => {
          if (agree({ ...rawClaim(), ...Object.fromEntries(mutations) }, JSON.stringify(mutations)))
            accepted++;
        },
      ),
      { numRuns: 4000 },
    );
    assert.ok(accepted > 200, `the property must exercise the fast path (${accepted} accepted)`);
  });
});
