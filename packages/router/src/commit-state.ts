import type { CommitEvidence } from '@rxgate/classifier';

/**
 * Where a claim may already be committed, as the ledger records it before any byte is sent:
 * - `unsent`: no node can have committed it (never sent, or every node that got it answered
 *   that it processed nothing);
 * - `pinned`: it was sent to `node` and no definitive answer came back: it may be paid there.
 *   Until that node answers, the claim goes only to `node` (or to a node sharing its
 *   idempotency store), under the same key, whoever sends it: a retry, a failover, a process
 *   that took the claim over, a resubmitted dead letter, a restarted router.
 * A claim the processor answered is no longer open: the ledger holds its outcome.
 */
export type CommitState = { readonly kind: 'unsent' } | { readonly kind: 'pinned'; readonly node: string };

export const UNSENT: CommitState = Object.freeze({ kind: 'unsent' });

export function pinnedTo(node: string): CommitState {
  return { kind: 'pinned', node };
}

/** May the claim in `state` be sent to `node`? Nodes that share one idempotency store are one. */
export function maySendTo(state: CommitState, node: string, sharedIdempotency: boolean): boolean {
  return state.kind === 'unsent' || state.node === node || sharedIdempotency;
}

/**
 * The commit state after `node` answered a send made in state `before`:
 * - `maybe`: pinned to the node;
 * - `definitive` and paid (approved, captured, a duplicate of a payment): pinned until the
 *   ledger stores the outcome, which closes the claim;
 * - `definitive` and not paid (a reject): the processor answered this key, nothing of it is
 *   committed: unsent;
 * - `not-processed` proves only that *this* send committed nothing: a pin from an earlier
 *   send stays.
 */
export function commitAfter(
  before: CommitState,
  node: string,
  evidence: CommitEvidence,
  paid: boolean,
): CommitState {
  if (evidence === 'maybe' || (evidence === 'definitive' && paid))
    return before.kind === 'pinned' && before.node === node ? before : pinnedTo(node);
  if (evidence === 'definitive') return UNSENT;
  return before;
}
