import { answer, ClaimTable } from './claim-table.js';
import type { CommitState } from './commit-state.js';
import type { Admission, Ledger, LedgerView } from './ledger.js';
import type { Outcome } from './outcome.js';

const RESOLVED = Promise.resolve();

/**
 * The ledger in memory: one process, lost with it. For tests and the simulator; a router that
 * must survive a restart uses the default `JournalLedger` over a file, or the Redis ledger when
 * processes share a quota.
 */
export class MemoryLedger implements Ledger {
  readonly #table = new ClaimTable();

  begin(identity: string): Promise<Admission> {
    return Promise.resolve(this.#table.begin(identity));
  }

  pin(identity: string, node: string): Promise<void> {
    try {
      this.#table.pin(identity, node);
      return RESOLVED;
    } catch (e) {
      return Promise.reject(e);
    }
  }

  unpin(identity: string): Promise<void> {
    this.#table.unpin(identity);
    return RESOLVED;
  }

  finish(identity: string, outcome: Outcome): Promise<void> {
    // Waiters of a claim left open begin again and one of them owns it next.
    answer(this.#table.finish(identity, outcome, 0), outcome);
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
