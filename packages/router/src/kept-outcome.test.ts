import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { keep, restore } from './kept-outcome.js';
import { MemoryLedger } from './memory-ledger.js';
import type { Outcome } from './outcome.js';

// Decimal strings as a payer may send them, signs, zeros and exponents included.
const decimalText = fc.oneof(
  fc.constantFrom('0', '-0', '0.00', '1e-9', '-12.5', '123456789012345678901234567890.01', '9.99e+21'),
  fc
    .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 20n }), fc.integer({ min: 0, max: 6 }))
    .map(([neg, n, scale]) => {
      const s = n.toString().padStart(scale + 1, '0');
      return `${neg ? '-' : ''}${s.slice(0, s.length - scale)}${scale > 0 ? `.${s.slice(-scale)}` : ''}`;
    }),
);
const amounts = fc.record(
  {
    patientPay: decimalText.map((t) => new Decimal(t)),
    ingredientCostPaid: decimalText.map((t) => new Decimal(t)),
    totalPaid: decimalText.map((t) => new Decimal(t)),
    copay: decimalText.map((t) => new Decimal(t)),
  },
  { requiredKeys: [], noNullPrototype: true },
);
// Plain objects, as the router builds them (fast-check's records have no prototype by default).
const rec = <T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> =>
  fc.record(model, { noNullPrototype: true });
const outcome: fc.Arbitrary<Outcome> = fc.oneof(
  rec({
    kind: fc.constantFrom('paid' as const, 'approved' as const, 'captured' as const),
    claimKey: fc.string(),
    correlationId: fc.string(),
    path: fc.array(fc.constantFrom('primary', 'secondary', 'wait')),
    attempts: fc.nat(),
    elapsedMs: fc.nat(),
    amounts,
    node: fc.string(),
    explanation: fc.string(),
  }),
  rec({
    kind: fc.constant('duplicate' as const),
    claimKey: fc.string(),
    correlationId: fc.string(),
    path: fc.constant(['primary']),
    attempts: fc.nat(),
    elapsedMs: fc.nat(),
    amounts,
    node: fc.string(),
  }),
  rec({
    kind: fc.constant('rejected' as const),
    claimKey: fc.string(),
    correlationId: fc.string(),
    path: fc.constant(['primary']),
    attempts: fc.nat(),
    elapsedMs: fc.nat(),
    codes: fc.array(fc.constantFrom('70', '75', '76')),
    group: fc.constant('terminal'),
    priorAuthRequired: fc.boolean(),
    local: fc.boolean(),
  }),
);

describe('the outcome a ledger keeps', () => {
  it('is the outcome again, field for field, after keep and restore (-0 and exponents too)', () => {
    fc.assert(
      fc.property(outcome, (o) => {
        const back = restore(keep(o));
        assert.deepStrictEqual(back, o);
        if ('amounts' in back)
          for (const [k, d] of Object.entries(back.amounts))
            assert.ok(
              d instanceof Decimal &&
                d.equals((o as unknown as { amounts: Record<string, Decimal> }).amounts[k]!),
            );
      }),
    );
  });

  it('holds its amounts as decimal strings, no Decimal objects', () => {
    fc.assert(
      fc.property(outcome, (o) => {
        const kept = keep(o);
        if ('amounts' in kept && kept.amounts !== undefined)
          for (const v of Object.values(kept.amounts)) assert.equal(typeof v, 'string');
        assert.equal(JSON.stringify(kept), JSON.stringify(o));
      }),
    );
  });

  it('gives a resubmission of a paid claim the paid outcome, amounts as Decimal', async () => {
    const ledger = new MemoryLedger();
    const paid: Outcome = {
      kind: 'paid',
      claimKey: 'k',
      correlationId: 'c1',
      path: ['primary'],
      attempts: 1,
      elapsedMs: 40,
      amounts: { patientPay: new Decimal('10.00'), totalPaid: new Decimal('-0') },
      node: 'primary',
      explanation: 'Paid by primary.',
    };
    assert.equal((await ledger.begin('k')).kind, 'owner');
    await ledger.finish('k', paid);
    const again = await ledger.begin('k');
    assert.equal(again.kind, 'done');
    assert.deepStrictEqual(again.kind === 'done' ? again.outcome : undefined, paid);
    assert.deepStrictEqual((await ledger.lookup('k')).outcome, paid);
  });
});
