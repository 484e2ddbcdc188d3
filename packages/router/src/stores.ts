import type { Clock } from '@rxgate/ratelimit';
import { Decimal } from 'decimal.js';
import { RouterConfigError } from './errors.js';
import type { Outcome, PaidAmounts } from './outcome.js';

/** What the ledger says of a claim key when a submission begins. */
export type LedgerEntry =
  | { readonly kind: 'owner' }
  | { readonly kind: 'done'; readonly outcome: Outcome }
  /**
   * Another submission owns the claim. `wait` gives its outcome, or undefined when the owner
   * is gone (its lease expired: a crashed process): begin again, and take the claim over.
   */
  | { readonly kind: 'in-flight'; readonly wait: Promise<Outcome | undefined> };

/**
 * Claim ownership and finished outcomes, by idempotency key: a finished claim returns its
 * stored outcome; a claim in flight is joined, never sent twice at once.
 */
export interface Ledger {
  /** May answer synchronously (memory) or asynchronously (a shared store). */
  begin(key: string): LedgerEntry | Promise<LedgerEntry>;
  finish(key: string, outcome: Outcome): void | Promise<void>;
}

/** The embedded ledger: one process. */
export interface MemoryLedgerOptions {
  /**
   * Finished outcomes kept; past that the oldest are forgotten. Unbounded by default, on
   * purpose: a forgotten claim submitted again is sent again, and where the nodes do not share
   * one idempotency store it can reach the other node and be paid twice (the simulator's
   * pharmacy-day caught exactly that with a bound of 100,000). Bound it only where the nodes
   * share idempotency, or where resubmissions older than the bound cannot happen.
   * @default Infinity
   */
  readonly maxFinished?: number;
}

// A claim in flight that nobody has joined yet: one shared marker, no allocation.
const OWNED = Object.freeze({ joined: false as const });
const OWNER: LedgerEntry = Object.freeze({ kind: 'owner' });

/** A claim in flight that another submission joined. */
class Joined {
  readonly joined = true;
  readonly promise: Promise<Outcome>;
  resolve!: (o: Outcome) => void;
  constructor() {
    this.promise = new Promise<Outcome>((r) => {
      this.resolve = r;
    });
  }
}

/**
 * A finished outcome as the ledger keeps it: amounts as decimal strings. Half a million
 * outcomes held as `Decimal`s (an object and a digit array each) cost the garbage collector
 * more than anything else a simulated day keeps; strings it copies and never traces.
 */
class Stored {
  readonly #outcome: Outcome;
  readonly #amounts: Readonly<Record<string, string>> | undefined;
  constructor(o: Outcome) {
    if ('amounts' in o) {
      const a = o.amounts;
      const text: Record<string, string> = {};
      if (a.patientPay !== undefined) text.patientPay = a.patientPay.toString();
      if (a.ingredientCostPaid !== undefined) text.ingredientCostPaid = a.ingredientCostPaid.toString();
      if (a.totalPaid !== undefined) text.totalPaid = a.totalPaid.toString();
      this.#outcome = { ...o, amounts: {} };
      this.#amounts = text;
    } else {
      this.#outcome = o;
      this.#amounts = undefined;
    }
  }

  /** The outcome, amounts as `Decimal` again (equal to the one stored, not the same object). */
  outcome(): Outcome {
    const text = this.#amounts;
    if (text === undefined) return this.#outcome;
    const amounts: { -readonly [K in keyof PaidAmounts]: PaidAmounts[K] } = {};
    if (text.patientPay !== undefined) amounts.patientPay = new Decimal(text.patientPay);
    if (text.ingredientCostPaid !== undefined)
      amounts.ingredientCostPaid = new Decimal(text.ingredientCostPaid);
    if (text.totalPaid !== undefined) amounts.totalPaid = new Decimal(text.totalPaid);
    return { ...this.#outcome, amounts } as Outcome;
  }
}

export class MemoryLedger implements Ledger {
  // One map, one lookup per step: a claim key maps to its finished outcome, or to a marker
  // while it is in flight.
  readonly #claims = new Map<string, Stored | typeof OWNED | Joined>();
  // Finished keys in the order they finished, kept only when the ledger is bounded.
  readonly #order: string[] | undefined;
  #orderHead = 0;
  #done = 0;
  readonly #maxFinished: number;

  constructor(options: MemoryLedgerOptions = {}) {
    const max = options.maxFinished ?? Number.POSITIVE_INFINITY;
    if (!(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 1))) {
      throw new RouterConfigError('maxFinished', 'must be a whole number >= 1');
    }
    this.#maxFinished = max;
    this.#order = max === Number.POSITIVE_INFINITY ? undefined : [];
  }

  begin(key: string): LedgerEntry {
    const v = this.#claims.get(key);
    if (v === undefined) {
      this.#claims.set(key, OWNED);
      return OWNER;
    }
    if (v === OWNED) {
      const j = new Joined();
      this.#claims.set(key, j);
      return { kind: 'in-flight', wait: j.promise };
    }
    if (v instanceof Joined) return { kind: 'in-flight', wait: v.promise };
    return { kind: 'done', outcome: (v as Stored).outcome() };
  }

  finish(key: string, outcome: Outcome): void {
    const v = this.#claims.get(key);
    // Outcomes that a later submission should retry are not final: dead letters and invalid.
    if (outcome.kind !== 'dead-lettered' && outcome.kind !== 'invalid') {
      const fresh = v === undefined || v === OWNED || v instanceof Joined;
      this.#claims.set(key, new Stored(outcome));
      if (fresh) this.#finished(key);
    } else if (v === OWNED || v instanceof Joined) this.#claims.delete(key);
    if (v instanceof Joined) v.resolve(outcome);
  }

  #finished(key: string): void {
    this.#done++;
    const order = this.#order;
    if (order === undefined) return;
    order.push(key);
    // Forget the oldest finished claims past the bound (a Map would keep them forever).
    while (this.#done > this.#maxFinished && this.#orderHead < order.length) {
      const oldest = order[this.#orderHead++]!;
      const v = this.#claims.get(oldest);
      if (v instanceof Stored) {
        this.#claims.delete(oldest);
        this.#done--;
      }
    }
    if (this.#orderHead > 1024 && this.#orderHead * 2 > order.length) {
      order.splice(0, this.#orderHead);
      this.#orderHead = 0;
    }
  }

  /** Finished claims held. */
  get size(): number {
    return this.#done;
  }
}

/** Keys the vendor answered 404 for (a BIN/PCN route or an NDC), with a TTL. */
export interface NegativeCache {
  /** May answer synchronously (memory) or asynchronously (a shared store). */
  has(key: string): boolean | Promise<boolean>;
  add(key: string, ttlMs: number): void | Promise<void>;
}

export class MemoryNegativeCache implements NegativeCache {
  readonly #entries = new Map<string, number>();
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }
  has(key: string): boolean {
    const until = this.#entries.get(key);
    if (until === undefined) return false;
    if (this.#clock.now() < until) return true;
    this.#entries.delete(key);
    return false;
  }
  add(key: string, ttlMs: number): void {
    this.#entries.set(key, this.#clock.now() + ttlMs);
  }
}
