/** Where a breaker stands. `isolated` is held open by hand until every isolation is released. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'isolated';

/** Why a breaker changed state. */
export type TransitionReason =
  | 'failure-policy'
  | 'open-elapsed'
  | 'probe-failed'
  | 'probes-succeeded'
  | 'health-probe-failed'
  | 'isolated'
  | 'isolation-ended'
  | 'reset';

import type { CallOutcome } from '@rxgate/core';

/** How a call ended, as the caller judged it (defined in @rxgate/core). `ignore` never moves the breaker. */
export type { CallOutcome };

export type BreakerEvent =
  | {
      readonly type: 'state-change';
      readonly from: BreakerState;
      readonly to: BreakerState;
      readonly reason: TransitionReason;
      readonly at: number;
    }
  | { readonly type: 'rejected'; readonly state: BreakerState; readonly retryAfterMs: number }
  | { readonly type: 'probe-started'; readonly health: boolean }
  | { readonly type: 'probe-finished'; readonly health: boolean; readonly outcome: CallOutcome };

export type BreakerListener = (event: BreakerEvent) => void;
