import type { CommitState } from './commit-state.js';
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
