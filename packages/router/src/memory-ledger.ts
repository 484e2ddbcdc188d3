import { answer, ClaimTable } from './claim-table.js';
import type { CommitState } from './commit-state.js';
import { exactly } from './exact-class.js';
import type { Admission, Ledger, LedgerView } from './ledger.js';
import type { Outcome } from './outcome.js';

const RESOLVED = Promise.resolve();

/**
 * What the memory ledger's methods resolve to, answered at once: the router's sync path for
 * the one ledger whose every change is synchronous anyway (not exported from the package).
 * `pin` throws what `pin` rejects with.
 */
export interface LedgerAtOnce {
  begin(identity: string): Admission;
  pin(identity: string, node: string): void;
  unpin(identity: string): void;
  finish(identity: string, outcome: Outcome): void;
}

let atOnceOf: (ledger: MemoryLedger) => LedgerAtOnce | undefined;

/**
 * The ledger in memory: one process, lost with it. For tests and the simulator; a router that
 * must survive a restart uses the default `JournalLedger` over a file, or the Redis ledger when
 * processes share a quota.
 */
export class MemoryLedger implements Ledger {
  readonly #table = new ClaimTable();
  readonly #atOnce: LedgerAtOnce = {
    begin: (identity) => this.#table.begin(identity),
    pin: (identity, node) => {
      this.#table.pin(identity, node);
    },
    unpin: (identity) => {
      this.#table.unpin(identity);
    },
    // Waiters of a claim left open begin again and one of them owns it next.
    finish: (identity, outcome) => answer(this.#table.finish(identity, outcome, 0), outcome),
  };

  static {
    atOnceOf = (ledger) => (#atOnce in ledger ? ledger.#atOnce : undefined);
  }

  begin(identity: string): Promise<Admission> {
    return Promise.resolve(this.#atOnce.begin(identity));
  }

  pin(identity: string, node: string): Promise<void> {
    try {
      this.#atOnce.pin(identity, node);
      return RESOLVED;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  unpin(identity: string): Promise<void> {
    this.#atOnce.unpin(identity);
    return RESOLVED;
  }

  finish(identity: string, outcome: Outcome): Promise<void> {
    this.#atOnce.finish(identity, outcome);
    return RESOLVED;
  }

  reopen(identity: string): Promise<void> {
    this.#table.reopen(identity, 0);
    return RESOLVED;
  }

  lookup(identity: string): Promise<LedgerView> {
    return Promise.resolve(this.#table.lookup(identity));
  }

  /** Where the claim may be committed now (for tests and tools). */
  commitOf(identity: string): CommitState {
    return this.#table.commitOf(identity);
  }

  /** Finished claims held. */
  get size(): number {
    let n = 0;
    for (const [, e] of this.#table.entries()) if (e.outcome !== undefined) n++;
    return n;
  }

  close(): Promise<void> {
    return RESOLVED;
  }
}

/**
 * The memory ledger's answers at once, for `ledger` exactly a `MemoryLedger` (a subclass may
 * answer otherwise: it is asked through its Promise-typed methods, as any other ledger).
 */
export function ledgerAtOnce(ledger: Ledger): LedgerAtOnce | undefined {
  return exactly(ledger, MemoryLedger.prototype, ['begin', 'pin', 'unpin', 'finish'])
    ? atOnceOf(ledger as MemoryLedger)
    : undefined;
}
