import { type CommitState, UNSENT } from './commit-state.js';
import type { Outcome } from './outcome.js';

/** What the ledger says of a claim when a submission begins. */
export type Admission =
  /**
   * This submission owns the claim now. `commit` says where it may already be committed (a
   * dead letter, a claim of a process that died, a claim answered `maybe` before a restart).
   */
  | { readonly kind: 'owner'; readonly commit: CommitState }
  /** The claim is finished: its outcome, never a send. */
  | { readonly kind: 'done'; readonly outcome: Outcome }
  /**
   * Another submission owns the claim. `wait` gives its outcome, or undefined when the owner
   * is gone (its lease expired: a crashed process): begin again, and take the claim over.
   */
  | { readonly kind: 'in-flight'; readonly wait: Promise<Outcome | undefined> };

/**
 * Claim ownership, commit state and finished outcomes, by claim identity. Every method
 * returns a Promise; `pin` resolves only once the pin is durable (for a durable ledger), and
 * the router sends nothing before it resolves.
 */
export interface Ledger {
  begin(identity: string): Promise<Admission>;
  /** Write-ahead: from now on `identity` may be committed on `node`. Rejects when this owner lost the claim. */
  pin(identity: string, node: string): Promise<void>;
  /** A send made while unsent was answered "nothing processed": the claim is unsent again. */
  unpin(identity: string): Promise<void>;
  /**
   * Ends this submission's ownership. A final outcome (paid, approved, captured, duplicate,
   * rejected) is stored and answered to every later submission; any other (dead-lettered,
   * needs-reconciliation) releases the claim and keeps its commit state for the next one.
   */
  finish(identity: string, outcome: Outcome): Promise<void>;
  close(): Promise<void>;
}

/** Outcomes the ledger stores as the claim's answer; the others leave the claim open. */
export function isFinal(o: Outcome): boolean {
  switch (o.kind) {
    case 'paid':
    case 'approved':
    case 'captured':
    case 'duplicate':
    case 'rejected':
      return true;
    default:
      return false;
  }
}

/** Thrown by `pin` when the claim is no longer this owner's (a takeover): nothing may be sent. */
export class LostOwnershipError extends Error {
  readonly code = 'RXGATE_ROUTER_LOST_OWNERSHIP';
  constructor() {
    super('the claim was taken over by another owner');
    this.name = 'LostOwnershipError';
  }
}

const OWNED_UNSENT: Admission = Object.freeze({ kind: 'owner', commit: UNSENT });
const RESOLVED = Promise.resolve();

/** One claim as the memory ledger holds it. */
interface Entry {
  owned: boolean;
  commit: CommitState;
  /** Set when finished with a final outcome. */
  outcome: Outcome | undefined;
  /** Submissions waiting for the owner's outcome. */
  waiters: Array<(o: Outcome | undefined) => void> | undefined;
}

/**
 * The ledger in memory: one process, lost with it. For tests and the simulator; a router that
 * must survive a restart uses {@link JournalLedger} over a file (the default of `createRouter`
 * when given `ledgerPath`), or the Redis ledger when processes share a quota.
 */
export class MemoryLedger implements Ledger {
  readonly #claims = new Map<string, Entry>();

  begin(identity: string): Promise<Admission> {
    const e = this.#claims.get(identity);
    if (e === undefined) {
      this.#claims.set(identity, { owned: true, commit: UNSENT, outcome: undefined, waiters: undefined });
      return Promise.resolve(OWNED_UNSENT);
    }
    if (e.outcome !== undefined) return Promise.resolve({ kind: 'done', outcome: e.outcome });
    if (e.owned) {
      const waiters = e.waiters ?? [];
      e.waiters = waiters;
      const wait = new Promise<Outcome | undefined>((resolve) => {
        waiters.push(resolve);
      });
      return Promise.resolve({ kind: 'in-flight', wait });
    }
    e.owned = true;
    return Promise.resolve(e.commit.kind === 'unsent' ? OWNED_UNSENT : { kind: 'owner', commit: e.commit });
  }

  pin(identity: string, node: string): Promise<void> {
    const e = this.#claims.get(identity);
    if (e === undefined || !e.owned) return Promise.reject(new LostOwnershipError());
    if (e.commit.kind !== 'pinned' || e.commit.node !== node) e.commit = { kind: 'pinned', node };
    return RESOLVED;
  }

  unpin(identity: string): Promise<void> {
    const e = this.#claims.get(identity);
    if (e?.owned) e.commit = UNSENT;
    return RESOLVED;
  }

  finish(identity: string, outcome: Outcome): Promise<void> {
    const e = this.#claims.get(identity);
    if (e === undefined) return RESOLVED;
    e.owned = false;
    if (isFinal(outcome)) e.outcome = outcome;
    else if (e.commit.kind === 'unsent' && e.waiters === undefined) this.#claims.delete(identity);
    const w = e.waiters;
    e.waiters = undefined;
    // Waiters of a claim left open begin again and one of them owns it next.
    if (w !== undefined) for (const f of w) f(isFinal(outcome) ? outcome : undefined);
    return RESOLVED;
  }

  /** Where the claim may be committed now (for tests and tools). */
  commitOf(identity: string): CommitState {
    return this.#claims.get(identity)?.commit ?? UNSENT;
  }

  /** Finished claims held. */
  get size(): number {
    let n = 0;
    for (const e of this.#claims.values()) if (e.outcome !== undefined) n++;
    return n;
  }

  close(): Promise<void> {
    return RESOLVED;
  }
}
