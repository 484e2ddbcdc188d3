import { Decimal } from 'decimal.js';
import { z } from 'zod';
import { CLAIM_FIELDS, type ClaimField, type RawClaim } from './claim-fields.js';
import { type FieldIssue, InvalidClaimError } from './errors.js';
import { Phi } from './phi.js';

/** A claim as rxgate works with it: readable names, money and quantities as `Decimal`, PHI branded. */
export interface CanonicalClaim {
  /** 103-A3 */ readonly transactionCode: 'B1' | 'B2' | 'E1';
  /** 101-A1, 6 digits */ readonly bin: string;
  /** 104-A4 */ readonly pcn: string;
  /** 301-C1 */ readonly groupId?: string;
  /** 302-C2 (PHI) */ readonly cardholderId: Phi;
  /** 310-CA (PHI) */ readonly patientFirstName?: Phi;
  /** 311-CB (PHI) */ readonly patientLastName?: Phi;
  /** 304-C4 (PHI), CCYYMMDD */ readonly dateOfBirth?: Phi;
  /** 201-B1, NPI, 10 digits */ readonly serviceProviderId: string;
  /** 402-D2 */ readonly prescriptionNumber: string;
  /** 403-D3 */ readonly fillNumber: number;
  /** 407-D7, NDC-11 */ readonly productId: string;
  /** 442-E7 */ readonly quantityDispensed: Decimal;
  /** 405-D5 */ readonly daysSupply: number;
  /** 401-D1, CCYYMMDD */ readonly dateOfService: string;
  /** 409-D9 */ readonly ingredientCostSubmitted: Decimal;
  /** 411-DB */ readonly prescriberId?: string;
  /** 426-DQ */ readonly usualAndCustomaryCharge?: Decimal;
  /** 430-DU */ readonly grossAmountDue?: Decimal;
  /** 412-DC */ readonly dispensingFeeSubmitted?: Decimal;
  /** 423-DN */ readonly basisOfCostDetermination?: string;
  /** 473-7E */ readonly durPpsCodeCounter?: number;
  /** 440-E5 */ readonly professionalServiceCode?: string;
  /** 441-E6 */ readonly resultOfServiceCode?: string;
  /** 461-EU */ readonly priorAuthorizationTypeCode?: string;
  /** 462-EV */ readonly priorAuthorizationNumber?: string;
  /** 420-DK */ readonly submissionClarificationCode?: string;
  /** 308-C8 */ readonly otherCoverageCode?: string;
  /** 337-4C */ readonly otherPaymentsCount?: number;
  /** 338-5C */ readonly otherPayerCoverageType?: string;
  /** 339-6C */ readonly otherPayerIdQualifier?: string;
  /** 340-7C */ readonly otherPayerId?: string;
  /** 443-E8, CCYYMMDD */ readonly otherPayerDate?: string;
  /** 431-DV */ readonly otherPayerAmountPaid?: Decimal;
}

/** A lone UTF-16 surrogate (in `u` mode a paired one is a single code point, never matched). */
const LONE_SURROGATE = /\p{Cs}/u;
/** Text with no lone surrogate: two cardholder ids that differ only there would share a key. */
export const wellFormed = (v: string): boolean => !LONE_SURROGATE.test(v);

const ccyymmdd = z
  .string()
  .regex(/^\d{8}$/, 'must be a date CCYYMMDD')
  .refine(validDate, 'must be a real calendar date CCYYMMDD');

/** The zod rule of one field, from its format in {@link CLAIM_FIELDS}. */
export function zodOf(f: ClaimField, required = f.required): z.ZodType {
  const t = f.format;
  let rule: z.ZodType;
  switch (t.kind) {
    case 'enum':
      rule = z.enum(t.values as [string, ...string[]], {
        message: `must be ${t.values.slice(0, -1).join(', ')} or ${t.values.at(-1)}`,
      });
      break;
    case 'digits':
      rule = t.upTo
        ? z.string().regex(new RegExp(`^\\d{1,${t.length}}$`), `must be 1 to ${t.length} digits`)
        : z.string().regex(new RegExp(`^\\d{${t.length}}$`), `must be ${t.length} digits (${t.what})`);
      break;
    case 'text':
      rule = z
        .string()
        .refine(wellFormed, 'must be well-formed text (no lone UTF-16 surrogate)')
        .trim()
        .min(1, 'must not be empty')
        .max(t.max, `must be at most ${t.max} characters`);
      break;
    case 'date':
      rule = ccyymmdd;
      break;
    case 'int':
      rule = z
        .number({ message: 'must be a number' })
        .int('must be a whole number')
        .min(t.min, `must be ${t.min} to ${t.max}`)
        .max(t.max, `must be ${t.min} to ${t.max}`);
      break;
    case 'decimal':
      rule = z
        .union([z.string(), z.number()])
        .refine((v) => typeof v === 'string', `must be a decimal string (${t.what}), not a number`)
        .refine(
          (v) => typeof v !== 'string' || new RegExp(`^\\d{1,9}(\\.\\d{1,${t.scale}})?$`).test(v),
          `must be a non-negative decimal with at most ${t.scale} places`,
        );
      break;
  }
  return required ? rule : rule.optional();
}

/** The wire form: NCPDP field codes as keys, one rule per field of {@link CLAIM_FIELDS}. */
export const rawClaimSchema = z.strictObject(Object.fromEntries(CLAIM_FIELDS.map((f) => [f.code, zodOf(f)])));

export type { RawClaim };

export type ParseResult =
  | { readonly ok: true; readonly claim: CanonicalClaim }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

/** Validates a raw claim; never throws. Every bad field is named by its NCPDP code. */
export function safeParseClaim(raw: unknown): ParseResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      issues: [{ field: '(claim)', message: 'must be an object keyed by NCPDP field codes' }],
    };
  }
  // The zod schema is the definition; a claim that plainly meets it is built without it, and
  // anything the fast check does not accept goes to zod, which also names what is wrong.
  const fast = fastParse(raw as Record<string, unknown>);
  if (fast !== undefined) return { ok: true, claim: fast };
  const parsed = rawClaimSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, issues: issuesOf(parsed.error) };
  return { ok: true, claim: build(parsed.data as Record<string, unknown>) };
}

/** zod's issues as field issues: one per field, named by its NCPDP code, never the value. */
export function issuesOf(error: z.ZodError): FieldIssue[] {
  const seen = new Set<string>();
  const issues: FieldIssue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // An unknown key is named, never dropped: a 461-EU the table lacked went unsent.
      for (const k of issue.keys) {
        const field = k.length <= 16 ? k : `${k.slice(0, 16)}…`;
        if (seen.has(field)) continue;
        seen.add(field);
        issues.push({ field, message: 'is not a field rxgate knows (NCPDP D.0 code expected)' });
      }
      continue;
    }
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : '(claim)';
    if (seen.has(field)) continue;
    seen.add(field);
    // zod's own wording for a missing field; ours otherwise. Neither repeats the value.
    issues.push({
      field,
      message: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : issue.message,
    });
  }
  return issues;
}

/** The claim from wire values already checked: PHI wrapped, decimals as `Decimal`. */
export function build(r: Record<string, unknown>): CanonicalClaim {
  const claim: Record<string, unknown> = {};
  for (let i = 0; i < FIELDS.length; i++) {
    const f = FIELDS[i]!;
    const v = r[f.code];
    if (v === undefined) continue;
    claim[f.name] = f.phi ? new Phi(v as string) : f.decimal ? new Decimal(v as string) : v;
  }
  return claim as unknown as CanonicalClaim;
}

/** The table as the hot paths read it: flags and JSON key prefixes worked out once. */
const FIELDS = CLAIM_FIELDS.map((f, i) => ({
  code: f.code,
  name: f.name as keyof CanonicalClaim,
  phi: f.phi,
  decimal: f.format.kind === 'decimal',
  scale: f.format.kind === 'decimal' ? f.format.scale : 0,
  numeric: f.format.kind === 'int',
  // `{"103-A3":` for the first field, `,"101-A1":` after.
  prefix: `${i === 0 ? '{' : ','}"${f.code}":`,
  prefixAfterSkip: `,"${f.code}":`,
}));

/** Validates a raw claim, or throws {@link InvalidClaimError} naming every bad field. */
export function parseClaim(raw: unknown): CanonicalClaim {
  const r = safeParseClaim(raw);
  if (!r.ok) throw new InvalidClaimError(r.issues);
  return r.claim;
}

/** The wire value of one field of a claim (PHI revealed, decimals at the field's scale). */
function wireValue(f: ClaimField, v: unknown): string | number {
  if (v instanceof Phi) return v.reveal();
  if (f.format.kind === 'decimal') return decimalFixed(v as Decimal, f.format.scale);
  return v as string | number;
}

/** The wire form of a claim (decimal strings, PHI revealed): for the request body only. */
export function toWire(claim: CanonicalClaim, productId = claim.productId): Record<string, string | number> {
  const body: Record<string, string | number> = {};
  for (const f of CLAIM_FIELDS) {
    const v = f.name === 'productId' ? productId : claim[f.name];
    if (v !== undefined) body[f.code] = wireValue(f, v);
  }
  return body;
}

/**
 * The request body of a claim: exactly `JSON.stringify(toWire(claim, productId))`, written
 * directly (the router sends one per attempt; this costs a third of the object and stringify).
 */
export function wireBody(claim: CanonicalClaim, productId = claim.productId): string {
  // Joined, not concatenated: a template literal leaves a tree of string pieces that every
  // reader of the body walks again (the simulator's vendor scanned it 2.5 times slower).
  const parts: string[] = [];
  for (let i = 0; i < FIELDS.length; i++) {
    const f = FIELDS[i]!;
    const v = f.name === 'productId' ? productId : claim[f.name];
    if (v === undefined) continue;
    parts.push(parts.length === 0 && i > 0 ? `{${f.prefixAfterSkip.slice(1)}` : f.prefix);
    if (f.phi) parts.push(q((v as Phi).reveal()));
    else if (f.decimal) parts.push('"', decimalFixed(v as Decimal, f.scale), '"');
    else parts.push(f.numeric ? n(v as number) : q(v as string));
  }
  parts.push('}');
  return parts.join('');
}

// Text JSON writes as is: printable ASCII but the quote and the backslash.
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const q = (v: string): string => (PLAIN.test(v) ? `"${v}"` : JSON.stringify(v));
const n = (v: number): string => (Number.isInteger(v) ? `${v}` : JSON.stringify(v));
const ZEROS = '000000000000';

/**
 * `d.toFixed(places)`, at a tenth of its cost for the plain decimals of a claim (the string
 * form already has at most `places` decimals: pad it); anything else goes to `toFixed`.
 */
export function decimalFixed(d: Decimal, places: number): string {
  const s = d.toString();
  const dot = s.indexOf('.');
  if (dot < 0) {
    if (s.includes('e') || s.includes('N') || s.includes('I') || places > ZEROS.length)
      return d.toFixed(places);
    return places === 0 ? s : `${s}.${ZEROS.slice(0, places)}`;
  }
  const have = s.length - dot - 1;
  if (have > places || places - have > ZEROS.length || s.includes('e')) return d.toFixed(places);
  return have === places ? s : s + ZEROS.slice(0, places - have);
}

/** The projection of a claim that telemetry may receive: no PHI, no prescription number, no date of service. */
export interface SafeClaim {
  readonly transactionCode: string;
  readonly bin: string;
  readonly pcn: string;
  readonly groupId?: string;
  readonly serviceProviderId: string;
  readonly productId: string;
  readonly fillNumber: number;
  readonly quantityDispensed: string;
  readonly daysSupply: number;
}

export function logSafe(claim: CanonicalClaim): SafeClaim {
  return {
    transactionCode: claim.transactionCode,
    bin: claim.bin,
    pcn: claim.pcn,
    ...(claim.groupId === undefined ? {} : { groupId: claim.groupId }),
    serviceProviderId: claim.serviceProviderId,
    productId: claim.productId,
    fillNumber: claim.fillNumber,
    quantityDispensed: claim.quantityDispensed.toFixed(3),
    daysSupply: claim.daysSupply,
  };
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Whether `s` is CCYYMMDD, a real calendar date from 1900 on: by arithmetic on the digits, no
 * `Date` per claim (held to the `Date`-based definition by a property in claim.test.ts).
 */
export function validDate(s: string): boolean {
  if (s.length !== 8) return false;
  let y = 0;
  let m = 0;
  let d = 0;
  for (let i = 0; i < 8; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return false;
    if (i < 4) y = y * 10 + c;
    else if (i < 6) m = m * 10 + c;
    else d = d * 10 + c;
  }
  if (y < 1900 || m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]!);
}

// Fast checks per format, exactly what the schema would accept unchanged (trimmed text only),
// made once per field of the table.
function fastCheck(f: ClaimField): (v: unknown) => boolean {
  const t = f.format;
  switch (t.kind) {
    case 'enum':
      return (v) => typeof v === 'string' && t.values.includes(v);
    case 'digits': {
      const re = new RegExp(t.upTo ? `^\\d{1,${t.length}}$` : `^\\d{${t.length}}$`);
      return (v) => typeof v === 'string' && re.test(v);
    }
    case 'text':
      return (v) =>
        typeof v === 'string' && v.length >= 1 && v.length <= t.max && v.trim() === v && wellFormed(v);
    case 'date':
      return (v) => typeof v === 'string' && validDate(v);
    case 'int':
      // -0 is left to zod (which gives 0): the fast path must build exactly what zod builds.
      return (v) =>
        typeof v === 'number' && Number.isInteger(v) && v >= t.min && v <= t.max && !Object.is(v, -0);
    case 'decimal': {
      const re = new RegExp(`^\\d{1,9}(\\.\\d{1,${t.scale}})?$`);
      return (v) => typeof v === 'string' && re.test(v);
    }
  }
}
const CHECKS = CLAIM_FIELDS.map((f) => ({ code: f.code, required: f.required, ok: fastCheck(f) }));

/**
 * The schema's rules, checked field by field from the same table for the common, valid claim
 * (no trimming needed, every field right). Returns undefined whenever zod might answer
 * differently: zod then decides.
 */
export function fastParse(r: Record<string, unknown>): CanonicalClaim | undefined {
  let present = 0;
  for (let i = 0; i < CHECKS.length; i++) {
    const f = CHECKS[i]!;
    const v = r[f.code];
    if (v === undefined) {
      if (f.required) return undefined;
    } else if (!f.ok(v)) return undefined;
    else present++;
  }
  // Any other key (or one set to undefined) goes to zod, which names it.
  let keys = 0;
  for (const _ in r) keys++;
  return keys === present ? build(r) : undefined;
}
