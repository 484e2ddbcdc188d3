import type { Clock } from '@rxgate/ratelimit';
import { RouterConfigError } from './errors.js';
import type { Outcome } from './outcome.js';

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

export class MemoryLedger implements Ledger {
  readonly #done = new Map<string, Outcome>();
  readonly #maxFinished: number;

  constructor(options: MemoryLedgerOptions = {}) {
    const max = options.maxFinished ?? Number.POSITIVE_INFINITY;
    if (!(max === Number.POSITIVE_INFINITY || (Number.isInteger(max) && max >= 1))) {
      throw new RouterConfigError('maxFinished', 'must be a whole number >= 1');
    }
    this.#maxFinished = max;
  }
  // A claim in flight; the promise is made only when a second submission joins it.
  readonly #inFlight = new Map<string, { promise?: Promise<Outcome>; resolve?: (o: Outcome) => void }>();

  begin(key: string): LedgerEntry {
    const done = this.#done.get(key);
    if (done !== undefined) return { kind: 'done', outcome: done };
    const running = this.#inFlight.get(key);
    if (running !== undefined) {
      running.promise ??= new Promise<Outcome>((r) => {
        running.resolve = r;
      });
      return { kind: 'in-flight', wait: running.promise };
    }
    this.#inFlight.set(key, {});
    return { kind: 'owner' };
  }

  finish(key: string, outcome: Outcome): void {
    // Outcomes that a later submission should retry are not final: dead letters and invalid.
    if (outcome.kind !== 'dead-lettered' && outcome.kind !== 'invalid') {
      this.#done.set(key, outcome);
      // A Map iterates in insertion order: the first key is the oldest.
      if (this.#done.size > this.#maxFinished) this.#done.delete(this.#done.keys().next().value!);
    }
    const running = this.#inFlight.get(key);
    this.#inFlight.delete(key);
    running?.resolve?.(outcome);
  }

  /** Finished claims held. */
  get size(): number {
    return this.#done.size;
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
