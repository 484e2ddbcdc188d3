import { Decimal } from 'decimal.js';
import type { Outcome, PaidAmounts } from './outcome.js';

/**
 * A closing outcome as an embedded ledger keeps it, for days: the same fields, its amounts as
 * the decimal strings of their JSON. A `Decimal` holds a digits array of ~150 bytes; a day of
 * half a million paid claims kept three of them a claim, most of what the ledger held.
 */
export type KeptOutcome = WithoutAmounts<Outcome> & {
  readonly amounts?: Readonly<Record<string, string>>;
};

type WithoutAmounts<T> = T extends unknown ? Omit<T, 'amounts'> : never;

/** The outcome to keep: amounts as decimal strings (`-0` kept), everything else equal. */
export function keep(o: Outcome): KeptOutcome {
  // The path was grown step by step (its backing store holds 17 slots for 1 step): an exact copy.
  if (!('amounts' in o)) return { ...o, path: o.path.slice() };
  const amounts: Record<string, string> = {};
  const a = o.amounts as Readonly<Record<string, Decimal | undefined>>;
  for (const k in a) {
    const d = a[k];
    if (d !== undefined) amounts[k] = d.toJSON();
  }
  return { ...o, path: o.path.slice(), amounts } as KeptOutcome;
}

/** The outcome kept, amounts back to `Decimal`: equal, field for field, to the one given to {@link keep}. */
export function restore(k: KeptOutcome): Outcome {
  // Always a copy: the router writes the explanation into what it returns.
  if (k.amounts === undefined) return { ...k, path: k.path.slice() } as Outcome;
  const amounts: Record<string, Decimal> = {};
  for (const [name, v] of Object.entries(k.amounts)) amounts[name] = new Decimal(v);
  return { ...k, amounts: amounts as PaidAmounts } as Outcome;
}
