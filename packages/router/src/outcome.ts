import { Decimal } from 'decimal.js';
import type { FieldIssue } from './errors.js';

/** Where a lane's claim ended up and how it got there; safe to log (no PHI). */
export interface OutcomeBase {
  /** The claim's idempotency key (an HMAC, no PHI); empty for an invalid claim. */
  readonly claimKey: string;
  /** Internal id of this submission, safe to log. */
  readonly correlationId: string;
  /** Every step taken, in order: `primary`, `secondary`, `repair`, `refresh`, `wait`, … */
  readonly path: readonly string[];
  /** Requests sent to a vendor. */
  readonly attempts: number;
  /** From submit to outcome, on the router's clock. */
  readonly elapsedMs: number;
  /**
   * Which attempt generation of the claim's identity answered (absent for 0, the first): one
   * more after each payer reject and each accepted reversal, each sent under its own key.
   */
  readonly generation?: number;
  /** The crosswalk snapshot version, when a repair consulted it. */
  readonly snapshotVersion?: string;
  /**
   * True when the audit log could not take this claim's records durably when it ended: they
   * are held and written again when the log comes back (an `audit` alarm event says so).
   */
  readonly auditDegraded?: boolean;
  /** What happened and what to do next, in plain words for the pharmacist (no PHI). */
  readonly explanation?: string;
}

export interface PaidAmounts {
  /** 505-F5 */ readonly patientPay?: Decimal;
  /** 506-F6 */ readonly ingredientCostPaid?: Decimal;
  /** 509-F9 */ readonly totalPaid?: Decimal;
  /** 518-FI */ readonly copay?: Decimal;
  /** 572-4U */ readonly coinsurance?: Decimal;
  /** 517-FH */ readonly deductible?: Decimal;
}

/** Exactly one of these ends every submitted claim. */
export type Outcome =
  | (OutcomeBase & {
      readonly kind: 'paid' | 'approved' | 'captured';
      readonly amounts: PaidAmounts;
      readonly authorizationNumber?: string;
      /** The node that adjudicated it. */
      readonly node: string;
      /** The payer's messages (504-F4, 526-FQ): for the pharmacist, never telemetry. */
      readonly messages?: readonly string[];
    })
  | (OutcomeBase & {
      readonly kind: 'rejected';
      /** 511-FB codes, normalised. */
      readonly codes: readonly string[];
      /** The deciding group (`terminal`, `repair-routing`, …) or a local reason (`ndc_not_in_taxonomy`). */
      readonly group: string;
      readonly priorAuthRequired: boolean;
      /** True when the rejection was decided locally (negative cache, crosswalk) without spending quota. */
      readonly local: boolean;
      /** The payer's messages (504-F4, 526-FQ): for the pharmacist, never telemetry. */
      readonly messages?: readonly string[];
    })
  | (OutcomeBase & {
      readonly kind: 'duplicate';
      /** 112-AN D, Q or S, or 83 among the codes. */
      readonly status112AN?: string;
      readonly amounts: PaidAmounts;
      readonly node: string;
    })
  | (OutcomeBase & {
      readonly kind: 'dead-lettered';
      readonly reason: string;
      /** The lane that takes it from the dead-letter queue (`batch` for a pos claim that ran out of time). */
      readonly lane: 'pos' | 'batch';
      /** The node it may already be committed on: a resubmission goes only there (the ledger holds this too). */
      readonly pinnedNode?: string;
      /** NCPDP codes that explain it: the vendor's last reject codes, or 99 (host processing error). */
      readonly codes?: readonly string[];
    })
  | (OutcomeBase & {
      readonly kind: 'needs-reconciliation';
      /** Sent, possibly paid, answer lost; not failed over. Reverse only once the state is known. */
      readonly reason: string;
      readonly node: string;
      /** NCPDP codes that explain it: the vendor's last reject codes, or 99 (host processing error). */
      readonly codes?: readonly string[];
    })
  | (OutcomeBase & { readonly kind: 'invalid'; readonly issues: readonly FieldIssue[] })
  | (OutcomeBase & {
      /**
       * This submission joined the same claim running in another submission (here or in
       * another process) and its own deadline came first: the claim is still in flight there
       * and ends there with one outcome. Ask again (the same claim) for that outcome.
       */
      readonly kind: 'in-flight-elsewhere';
    });

export type OutcomeKind = Outcome['kind'];

/** An outcome as JSON text, amounts as decimal strings: for a shared ledger. */
export function serializeOutcome(o: Outcome): string {
  return JSON.stringify(o);
}

/** The inverse of {@link serializeOutcome}: amounts back to `Decimal`. */
export function deserializeOutcome(text: string): Outcome {
  const o = JSON.parse(text) as Outcome & { amounts?: Record<string, string> };
  if ('amounts' in o && o.amounts) {
    const amounts: Record<string, Decimal> = {};
    for (const [k, v] of Object.entries(o.amounts)) amounts[k] = new Decimal(v);
    return { ...o, amounts } as Outcome;
  }
  return o;
}
