import type { Verdict } from '@rxgate/classifier';
import type { Lane } from '@rxgate/core';
import type { CommitState } from './commit-state.js';

export type { Lane };

/** What happened at one step of a claim: a vendor's verdict, or a refusal before anything was sent. */
export type Step =
  | { readonly kind: 'verdict'; readonly verdict: Verdict }
  /** The limiter predicts the wait misses the deadline. */
  | { readonly kind: 'limiter-deadline' }
  | { readonly kind: 'limiter-refused' }
  | { readonly kind: 'breaker-rejected'; readonly retryAfterMs: number }
  | { readonly kind: 'credentials-unavailable' }
  /** The deadline passed, or the caller aborted, before a send. */
  | { readonly kind: 'deadline' }
  | { readonly kind: 'aborted' }
  /** The ledger says another owner has the claim now (a takeover): this submission sends nothing more. */
  | { readonly kind: 'lost-ownership' }
  /** The write-ahead pin could not be made durable: nothing may be sent. */
  | { readonly kind: 'ledger-unavailable' };

/** What the claim's run knows when it decides; everything the decision depends on, nothing else. */
export interface ClaimState {
  readonly lane: Lane;
  /** The node of this step. */
  readonly node: string;
  /** The commit state after this step's evidence. */
  readonly commit: CommitState;
  /**
   * The node the claim may fail over to now, if any: another usable node (parity), that the
   * commit state allows (unsent, or the nodes share idempotency), not tried in this run.
   */
  readonly failoverNode: string | undefined;
  /** Not-processed transient answers from this node in this run, this one included. */
  readonly transientOnNode: number;
  /** Maybe-committed answers from this node in this run, this one included. */
  readonly maybeOnNode: number;
  readonly authReplayed: boolean;
  /** A crosswalk is configured and this run has not repaired yet. */
  readonly canRepair: boolean;
  /** Until the claim's deadline. */
  readonly remainingMs: number;
  /** One jittered backoff drawn for this step (the caller draws it: `decide` stays pure). */
  readonly backoffMs: number;
  readonly transientRetries: number;
  readonly maybeRetries: number;
}

/** What the claim's run does next. */
export type Action =
  | { readonly kind: 'done'; readonly verdict: Verdict; readonly remember?: '04' | '70' }
  /** Wait, then try the same node again (same key). */
  | { readonly kind: 'wait'; readonly ms: number; readonly why: string }
  /** Try the same node again now: the limiter holds the claim as long as the vendor asked. */
  | { readonly kind: 'retry-same-node'; readonly why: string }
  | { readonly kind: 'failover'; readonly node: string; readonly reason: string }
  /** Repair the product (a 21) from the crosswalk and resend once; `verdict` is the reject if that fails. */
  | { readonly kind: 'repair'; readonly verdict: Extract<Verdict, { kind: 'repairable' }> }
  | { readonly kind: 'refresh-token' }
  /** Maybe committed on `node`: the claim ends pinned there, for reconciliation with the same key. */
  | { readonly kind: 'reconcile'; readonly node: string; readonly reason: string }
  /** Nothing committed anywhere: hand the claim to the batch lane or a person. */
  | { readonly kind: 'dead-letter'; readonly reason: string }
  /** Another owner runs the claim now. */
  | { readonly kind: 'handed-over' };

/** A Retry-After at least this long on a failure is a maintenance window, not a blip. */
export const MAINTENANCE_MS = 1000;

/**
 * The router's whole retry, failover and ending policy: one (step, state) to one action. Pure:
 * no clock, no randomness, no I/O; every row of it is a case of `decide.test.ts`.
 */
export function decide(step: Step, s: ClaimState): Action {
  switch (step.kind) {
    case 'verdict':
      return decideVerdict(step.verdict, s);
    case 'limiter-deadline':
    case 'limiter-refused':
    case 'deadline':
    case 'aborted':
      return end(step.kind, s);
    case 'breaker-rejected': {
      if (s.failoverNode !== undefined)
        return { kind: 'failover', node: s.failoverNode, reason: 'breaker-open' };
      // Open: wait until the next probe. Half-open with every probe slot taken (0): back off.
      const ms = step.retryAfterMs > 0 ? step.retryAfterMs : s.backoffMs;
      return waitOrEnd(ms, 'breaker', 'breaker-open', s);
    }
    case 'credentials-unavailable':
      if (s.transientOnNode <= s.transientRetries && s.backoffMs <= s.remainingMs)
        return { kind: 'wait', ms: s.backoffMs, why: 'credentials' };
      if (s.failoverNode !== undefined)
        return { kind: 'failover', node: s.failoverNode, reason: 'credentials' };
      return end('credentials-unavailable', s);
    case 'lost-ownership':
      return { kind: 'handed-over' };
    case 'ledger-unavailable':
      // Nothing was sent: a pin that did not become durable guards no send.
      return end('ledger-unavailable', s);
  }
}

function decideVerdict(v: Verdict, s: ClaimState): Action {
  switch (v.kind) {
    case 'adjudicated':
    case 'duplicate':
    case 'terminal-reject':
      return { kind: 'done', verdict: v };
    case 'repairable':
      return v.repair === 'product' && s.canRepair
        ? { kind: 'repair', verdict: v }
        : { kind: 'done', verdict: v };
    case 'routing-reject':
      return { kind: 'done', verdict: v, remember: v.mappedRejectCode };
    case 'auth-expired':
      return s.authReplayed ? end('auth-failed', s) : { kind: 'refresh-token' };
    case 'throttled': {
      const ms = v.retryAfterMs ?? s.backoffMs;
      if (ms > s.remainingMs) return end('throttled-past-deadline', s);
      // A Retry-After paused the limiter already; a bare throttle gets a jittered backoff.
      return v.retryAfterMs !== undefined
        ? { kind: 'retry-same-node', why: 'throttled' }
        : { kind: 'wait', ms, why: 'throttled' };
    }
    case 'client-error':
      // The payer answered with codes the submitter fixes (07, 09, 52, 62…): a reject.
      if (v.rejectCodes !== undefined && v.rejectCodes.length > 0) return { kind: 'done', verdict: v };
      return end(`client-error:${v.reason}`, s);
    case 'transient':
    case 'ambiguous':
    case 'unknown':
      break;
  }
  if (v.commit === 'maybe') {
    // A 200 we cannot read may be a payment: a person reconciles it, nobody resends it blindly.
    if (v.kind === 'unknown' && v.status === 200)
      return { kind: 'reconcile', node: s.node, reason: v.reason };
    if (s.maybeOnNode <= s.maybeRetries) {
      const ms = v.retryAfterMs ?? s.backoffMs;
      if (ms <= s.remainingMs) return { kind: 'wait', ms, why: 'maybe-committed' };
    }
    // Only where the nodes share one idempotency store is there a failover node here.
    if (s.failoverNode !== undefined)
      return { kind: 'failover', node: s.failoverNode, reason: 'maybe-committed' };
    return end(v.kind === 'ambiguous' ? 'answer-lost' : `maybe-committed:${v.reason}`, s);
  }
  if (v.kind === 'unknown') return end(`unknown:${v.reason}`, s);
  // Transient, nothing processed.
  if (s.failoverNode !== undefined && isDowntime(v))
    return { kind: 'failover', node: s.failoverNode, reason: 'maintenance' };
  if (s.transientOnNode <= s.transientRetries) {
    const ms = v.retryAfterMs ?? s.backoffMs;
    if (ms <= s.remainingMs) return { kind: 'wait', ms, why: 'transient' };
  }
  if (s.failoverNode !== undefined) return { kind: 'failover', node: s.failoverNode, reason: 'transient' };
  return end(
    v.retryAfterMs !== undefined && v.retryAfterMs > 60_000 ? 'deferred-retry' : 'transient-exhausted',
    s,
  );
}

/** A node that names its own downtime (a failure with a Retry-After of a second or more). */
export function isDowntime(v: Verdict): boolean {
  return (
    v.kind === 'transient' &&
    v.breaker === 'failure' &&
    v.retryAfterMs !== undefined &&
    v.retryAfterMs >= MAINTENANCE_MS
  );
}

function waitOrEnd(ms: number, why: string, reason: string, s: ClaimState): Action {
  return ms <= s.remainingMs ? { kind: 'wait', ms, why } : end(reason, s);
}

/** The claim cannot go on: pinned, it waits for reconciliation; unsent, it is a dead letter. */
function end(reason: string, s: ClaimState): Action {
  return s.commit.kind === 'pinned'
    ? { kind: 'reconcile', node: s.commit.node, reason }
    : { kind: 'dead-letter', reason };
}

/** The counters of one node after a step (pure): what `transientOnNode` and `maybeOnNode` count. */
export function tally(
  counts: { readonly transientOnNode: number; readonly maybeOnNode: number },
  step: Step,
): { transientOnNode: number; maybeOnNode: number } {
  if (step.kind === 'credentials-unavailable')
    return { ...counts, transientOnNode: counts.transientOnNode + 1 };
  if (step.kind !== 'verdict') return counts;
  const v = step.verdict;
  if (v.kind !== 'transient' && v.kind !== 'ambiguous' && v.kind !== 'unknown') return counts;
  return v.commit === 'maybe'
    ? { ...counts, maybeOnNode: counts.maybeOnNode + 1 }
    : { ...counts, transientOnNode: counts.transientOnNode + 1 };
}
