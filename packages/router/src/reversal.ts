import { z } from 'zod';
import { build, type CanonicalClaim, issuesOf, zodOf } from './claim.js';
import { CLAIM_FIELDS } from './claim-fields.js';
import type { FieldIssue } from './errors.js';
import type { Phi } from './phi.js';

/**
 * A B2 reversal as payers take it: the identity of the paid claim it undoes (BIN, PCN, pharmacy
 * NPI, Rx number, fill number, date of service), typically the original's product id, and
 * none of a billing's fields (quantity, days supply, pricing): those are a typed error here.
 */
export interface CanonicalReversal {
  readonly transactionCode: 'B2';
  readonly bin: string;
  readonly pcn: string;
  readonly serviceProviderId: string;
  readonly prescriptionNumber: string;
  readonly fillNumber: number;
  readonly dateOfService: string;
  readonly productId?: string;
  readonly groupId?: string;
  readonly cardholderId?: Phi;
}

const REVERSAL_FIELDS = CLAIM_FIELDS.filter((f) => 'reversal' in f);

/** The wire form of a reversal, from the one field table: its fields only, strict. */
export const rawReversalSchema = z.strictObject(
  Object.fromEntries(
    REVERSAL_FIELDS.map((f) => [
      f.code,
      f.code === '103-A3'
        ? z.literal('B2', { message: 'must be B2' })
        : zodOf(f, 'reversal' in f && f.reversal === 'required'),
    ]),
  ),
);

const B1_ONLY = new Set(CLAIM_FIELDS.filter((f) => !('reversal' in f)).map((f) => f.code as string));

export type ReversalParse =
  | { readonly ok: true; readonly reversal: CanonicalReversal }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/** Validates a raw B2; never throws. A billing-only field is named ("not used in a B2 reversal"). */
export function safeParseReversal(raw: unknown): ReversalParse {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return {
      ok: false,
      issues: [{ field: '(claim)', message: 'must be an object keyed by NCPDP field codes' }],
    };
  const parsed = rawReversalSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      issues: issuesOf(parsed.error).map((i) =>
        B1_ONLY.has(i.field) ? { field: i.field, message: 'is not used in a B2 reversal' } : i,
      ),
    };
  return {
    ok: true,
    reversal: build(parsed.data as Record<string, unknown>) as unknown as CanonicalReversal,
  };
}

/** The request body of a reversal (PHI revealed, table order). */
export function reversalBody(r: CanonicalReversal): string {
  const body: Record<string, string | number> = {};
  for (const f of REVERSAL_FIELDS) {
    const v = (r as unknown as Record<string, unknown>)[f.name];
    if (v === undefined) continue;
    body[f.code] =
      typeof v === 'object' && v !== null && 'reveal' in v ? (v as Phi).reveal() : (v as string | number);
  }
  return JSON.stringify(body);
}

/** The B1 this reversal undoes, as far as identity goes (the claim's key is computed from it). */
export function reversedIdentity(r: CanonicalReversal): CanonicalClaim {
  return { ...r, transactionCode: 'B1' } as unknown as CanonicalClaim;
}
