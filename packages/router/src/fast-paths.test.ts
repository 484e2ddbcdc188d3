// The router's hand-written fast paths, each held equal to the slow definition it replaces.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { decimalFixed, parseClaim, toWire, wireBody } from './claim.js';
import { hmacSha256, idempotencyKey, idempotencyKeyer } from './idempotency.js';
import { Phi } from './phi.js';
import { ClaimSignal, toAbortSignal } from './signal.js';
import { rawClaim, SECRET } from './test-support/fixtures.js';

describe('hmacSha256 (the idempotency key MAC)', () => {
  it('equals node:crypto createHmac for RFC 4231 test case 2 and for empty, long and non-ASCII input', () => {
    const cases: Array<[string | Uint8Array, string]> = [
      ['Jefe', 'what do ya want for nothing?'],
      ['k', ''],
      ['x'.repeat(64), 'exactly one block of key'],
      ['y'.repeat(65), 'a key longer than a block is hashed first'],
      [new Uint8Array(131).fill(0xaa), 'Test Using Larger Than Block-Size Key - Hash Key First'],
      ['secret', 'é—漢字🙂'.repeat(40)],
      ['secret', 'a'.repeat(55)],
      ['secret', 'a'.repeat(56)],
      ['secret', 'a'.repeat(119)],
      ['secret', 'a'.repeat(120)],
      ['secret', 'a'.repeat(5000)],
    ];
    for (const [key, message] of cases) {
      assert.equal(hmacSha256(key)(message), createHmac('sha256', key).update(message).digest('base64url'));
    }
    // RFC 4231 test case 2, in hex.
    assert.equal(
      Buffer.from(hmacSha256('Jefe')('what do ya want for nothing?'), 'base64url').toString('hex'),
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('equals createHmac on every key and message (property), reusing one keyed instance', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 100 }),
          fc.uint8Array({ minLength: 1, maxLength: 150 }),
        ),
        fc.array(fc.string({ unit: 'binary', maxLength: 300 }), { minLength: 1, maxLength: 4 }),
        (key, messages) => {
          const mac = hmacSha256(key);
          for (const m of messages)
            assert.equal(mac(m), createHmac('sha256', key).update(m).digest('base64url'));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('gives the key the previous createHmac version gave (keys stay stable across releases)', () => {
    const claim = parseClaim(rawClaim());
    const message = [
      claim.transactionCode,
      claim.bin,
      claim.pcn,
      claim.serviceProviderId,
      claim.prescriptionNumber,
      String(claim.fillNumber),
      claim.dateOfService,
      claim.productId,
      claim.cardholderId.reveal(),
    ].join('\u001f');
    const expected = `rx1_${createHmac('sha256', SECRET).update(message).digest('base64url').slice(0, 32)}`;
    assert.equal(idempotencyKey(claim, SECRET), expected);
    assert.equal(idempotencyKeyer(SECRET)(claim), expected);
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
    const text = fc.string({ unit: 'binary', minLength: 1, maxLength: 20 });
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
