import type { Lane } from '@rxgate/core';

/** A lane of traffic (defined in @rxgate/core): live point-of-sale claims go before batch work. */
export type { Lane };

/** Why an acquire did not get its tokens. */
export type RejectReason = 'deadline' | 'aborted' | 'closed' | 'unavailable';

/** Why the limiter changed its rate. */
export type AdaptReason = 'throttle' | 'quota' | 'recover' | 'quota-window-ended';

/** Telemetry from a limiter. Keys are payer identifiers (BIN/PCN), never patient data. */
export type LimiterEvent =
  | {
      readonly type: 'acquired';
      readonly key: string;
      readonly lane: Lane;
      readonly cost: number;
      readonly waitedMs: number;
    }
  | {
      readonly type: 'rejected';
      readonly key: string;
      readonly lane: Lane;
      readonly reason: RejectReason;
      readonly predictedWaitMs?: number;
    }
  | {
      readonly type: 'adapted';
      readonly level: string;
      readonly fromPerSecond: number;
      readonly toPerSecond: number;
      readonly reason: AdaptReason;
    }
  | { readonly type: 'paused'; readonly level: string; readonly until: number };

export type LimiterListener = (event: LimiterEvent) => void;
