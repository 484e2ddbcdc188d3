import type { CommitState } from './commit-state.js';
import type { Outcome } from './outcome.js';

/** What the ledger says of a claim when a submission begins. */
export type Admission =
  /**
   * This submission owns the claim now. `commit` says where it may already be committed (a
   * dead letter, a claim of a process that died, a claim answered `maybe` before a restart).
   */
  | {
      readonly kind: 'owner';
      readonly commit: CommitState;
      /**
       * The attempt generation of the identity: 0 until a payer rejects it, then one more per
       * reject (and per accepted reversal). A send goes out under {@link requestKeyOf} of it.
       */
      readonly generation: number;
    }
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
   * Ends this submission's ownership. A closing outcome (paid, approved, captured, duplicate)
   * is stored and answered to every later submission. A payer's reject is answered to the
   * joiners of this run only and moves the identity to its next generation, durably: the next
   * submission is sent under a fresh key. Any other outcome (dead-lettered,
   * needs-reconciliation, a local reject) releases the claim and keeps its commit state.
   */
  finish(identity: string, outcome: Outcome): Promise<void>;
  /**
   * An accepted reversal: the identity's stored payment is dropped, it is unsent again and in
   * its next generation, so a rebill is sent under a fresh key.
   */
  reopen(identity: string): Promise<void>;
  /** What the ledger holds of an identity without owning it: stored outcome, generation, commit state. */
  lookup(identity: string): Promise<LedgerView>;
  close(): Promise<void>;
}

/** An identity as the ledger holds it, read without owning it. */
export interface LedgerView {
  readonly outcome: Outcome | undefined;
  readonly generation: number;
  readonly commit: CommitState;
}

/** Outcomes that close an identity: stored, and answered to every later submission. */
export function closes(o: Outcome): boolean {
  switch (o.kind) {
    case 'paid':
    case 'approved':
    case 'captured':
    case 'duplicate':
      return true;
    default:
      return false;
  }
}

/** A payer's reject (sent, answered): the identity moves to its next generation. */
export function advancesGeneration(o: Outcome): boolean {
  return o.kind === 'rejected' && !o.local;
}

/** The Idempotency-Key of generation `g` of an identity: the identity's key itself for 0. */
export function requestKeyOf(identity: string, generation: number): string {
  return generation === 0 ? identity : `${identity}.g${generation}`;
}

/** Outcomes answered to the joiners of the run that reached them (closing ones, and rejects). */
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
