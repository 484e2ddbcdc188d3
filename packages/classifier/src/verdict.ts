import type { CallOutcome } from '@rxgate/core';
import type { RejectCodeInfo } from './catalogue.js';
import type { QuotaSignal } from './quota.js';

/** What the breaker should record for this answer: the breaker's own `CallOutcome` (@rxgate/core), one type. */
export type BreakerOutcome = CallOutcome;

/**
 * What the answer proves about whether the vendor may have committed the claim:
 * - `definitive`: the processor itself answered it (paid, rejected, duplicate): its answer is final;
 * - `not-processed`: nothing was committed (the request never left, or the vendor refused it
 *   before processing: 429, 503, 401, 404, 400), so the claim may go elsewhere;
 * - `maybe`: it may have been committed and the answer says nothing of it (a timeout or reset
 *   after the request left, 408/500/502/504 from a gateway, host errors 90–99, a 200 we cannot
 *   read): the claim may go only back to that node, under the same key, until it answers.
 */
export type CommitEvidence = 'definitive' | 'not-processed' | 'maybe';

export type VerdictKind =
  | 'adjudicated'
  | 'terminal-reject'
  | 'repairable'
  | 'duplicate'
  | 'throttled'
  | 'transient'
  | 'ambiguous'
  | 'auth-expired'
  | 'routing-reject'
  | 'client-error'
  | 'unknown';

/** Monetary fields of a 200, as the decimal strings the vendor sent (never parsed to number). */
export interface Amounts {
  /** 505-F5 Patient Pay Amount. */
  readonly patientPay?: string;
  /** 506-F6 Ingredient Cost Paid. */
  readonly ingredientCostPaid?: string;
  /** 509-F9 Total Amount Paid. */
  readonly totalPaid?: string;
  /** 518-FI Amount of Copay. */
  readonly copay?: string;
  /** 572-4U Amount of Coinsurance. */
  readonly coinsurance?: string;
  /** 517-FH Amount Applied to Periodic Deductible. */
  readonly deductible?: string;
}

interface Base<K extends VerdictKind> {
  readonly kind: K;
  readonly breaker: BreakerOutcome;
  /** A short, stable, PHI-free reason (`paid`, `http-429`, `host-error`, `malformed-body`, …). */
  readonly reason: string;
  /** The HTTP status, when there was an answer. */
  readonly status?: number;
  /**
   * The quota the answer's headers reported, on every status, as a limiter should take it:
   * `retryAfterMs` is in it only on a throttle (elsewhere it is the verdict's own).
   */
  readonly quota?: QuotaSignal;
  /** When the answer says to come back, in milliseconds. */
  readonly retryAfterMs?: number;
  /** What the answer proves about a commit on the vendor's side (see {@link CommitEvidence}). */
  readonly commit: CommitEvidence;
}

interface Coded {
  /**
   * The payer's messages: 504-F4, then each 526-FQ, as sent (free text for the pharmacist:
   * shown to them, never written to telemetry).
   */
  readonly messages?: readonly string[];
  /** 511-FB codes, normalised, with their groups. */
  readonly rejectCodes: readonly RejectCodeInfo[];
  /** 112-AN as sent. */
  readonly status112AN?: string;
  /** 75 among the codes: route to the prior-auth flow. */
  readonly priorAuthRequired: boolean;
}

export type Verdict =
  | (Base<'adjudicated'> & {
      readonly status112AN: 'P' | 'A' | 'C';
      readonly amounts: Amounts;
      /** 503-F3, when paid. */
      readonly authorizationNumber?: string;
      readonly rejectCodes: readonly [];
      readonly priorAuthRequired: false;
      readonly messages?: readonly string[];
    })
  | (Base<'duplicate'> & Coded & { readonly amounts: Amounts; readonly authorizationNumber?: string })
  | (Base<'terminal-reject'> & Coded)
  | (Base<'repairable'> & Coded & { readonly repair: 'product' | 'routing' | 'other-payer' })
  | (Base<'transient'> & Partial<Coded>)
  | (Base<'ambiguous'> & { readonly error?: string })
  | Base<'throttled'>
  | Base<'auth-expired'>
  | (Base<'routing-reject'> & {
      /** The 511-FB code a 404 maps to: 04 for an unknown BIN/PCN route, 70 for an unknown product. */
      readonly mappedRejectCode: '04' | '70';
      /** The NCPDP field the vendor named. */
      readonly field: string;
    })
  | (Base<'client-error'> & Partial<Coded> & { readonly field?: string })
  | (Base<'unknown'> & Partial<Coded>);
