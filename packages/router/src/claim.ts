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

/**
 * The claim from wire values already checked: PHI wrapped, decimals as `Decimal`.
 *
 * Field by field, in the order of {@link CLAIM_FIELDS}, one named read and one named write
 * per field: a loop over the table made each of these one property access site seeing 34
 * names (V8's megamorphic keyed load and store, about a fifth of the simulator's per-claim
 * cost added since 0.1.0). Only the fields present are set, always in table order, so claims
 * with the same fields share one hidden class. Held to the table-driven definition
 * (`buildByTable` in fast-paths.test.ts) by a property over all 34 fields.
 */
export function build(r: Record<string, unknown>): CanonicalClaim {
  // Typed by property name, so that a misspelt one does not compile.
  const c: { -readonly [K in keyof CanonicalClaim]?: unknown } = {};
  let v = r['103-A3'];
  if (v !== undefined) c.transactionCode = v;
  v = r['101-A1'];
  if (v !== undefined) c.bin = v;
  v = r['104-A4'];
  if (v !== undefined) c.pcn = v;
  v = r['302-C2'];
  if (v !== undefined) c.cardholderId = new Phi(v as string);
  v = r['201-B1'];
  if (v !== undefined) c.serviceProviderId = v;
  v = r['402-D2'];
  if (v !== undefined) c.prescriptionNumber = v;
  v = r['403-D3'];
  if (v !== undefined) c.fillNumber = v;
  v = r['407-D7'];
  if (v !== undefined) c.productId = v;
  v = r['442-E7'];
  if (v !== undefined) c.quantityDispensed = new Decimal(v as string);
  v = r['405-D5'];
  if (v !== undefined) c.daysSupply = v;
  v = r['401-D1'];
  if (v !== undefined) c.dateOfService = v;
  v = r['409-D9'];
  if (v !== undefined) c.ingredientCostSubmitted = new Decimal(v as string);
  v = r['301-C1'];
  if (v !== undefined) c.groupId = v;
  v = r['310-CA'];
  if (v !== undefined) c.patientFirstName = new Phi(v as string);
  v = r['311-CB'];
  if (v !== undefined) c.patientLastName = new Phi(v as string);
  v = r['304-C4'];
  if (v !== undefined) c.dateOfBirth = new Phi(v as string);
  v = r['411-DB'];
  if (v !== undefined) c.prescriberId = v;
  v = r['426-DQ'];
  if (v !== undefined) c.usualAndCustomaryCharge = new Decimal(v as string);
  v = r['430-DU'];
  if (v !== undefined) c.grossAmountDue = new Decimal(v as string);
  v = r['412-DC'];
  if (v !== undefined) c.dispensingFeeSubmitted = new Decimal(v as string);
  v = r['423-DN'];
  if (v !== undefined) c.basisOfCostDetermination = v;
  v = r['473-7E'];
  if (v !== undefined) c.durPpsCodeCounter = v;
  v = r['440-E5'];
  if (v !== undefined) c.professionalServiceCode = v;
  v = r['441-E6'];
  if (v !== undefined) c.resultOfServiceCode = v;
  v = r['461-EU'];
  if (v !== undefined) c.priorAuthorizationTypeCode = v;
  v = r['462-EV'];
  if (v !== undefined) c.priorAuthorizationNumber = v;
  v = r['420-DK'];
  if (v !== undefined) c.submissionClarificationCode = v;
  v = r['308-C8'];
  if (v !== undefined) c.otherCoverageCode = v;
  v = r['337-4C'];
  if (v !== undefined) c.otherPaymentsCount = v;
  v = r['338-5C'];
  if (v !== undefined) c.otherPayerCoverageType = v;
  v = r['339-6C'];
  if (v !== undefined) c.otherPayerIdQualifier = v;
  v = r['340-7C'];
  if (v !== undefined) c.otherPayerId = v;
  v = r['443-E8'];
  if (v !== undefined) c.otherPayerDate = v;
  v = r['431-DV'];
  if (v !== undefined) c.otherPayerAmountPaid = new Decimal(v as string);
  return c as unknown as CanonicalClaim;
}

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
  // Field by field in the order of CLAIM_FIELDS, a named read each (a loop over the table is
  // one megamorphic read of 34 names); held to JSON.stringify(toWire(claim)) by a property
  // over all 34 fields in fast-paths.test.ts. `{` before the first field present, `,` after.
  const parts: string[] = [];
  let v: unknown = claim.transactionCode;
  if (v !== undefined) parts.push('{"103-A3":', q(v as string));
  v = claim.bin;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"101-A1":' : ',"101-A1":', q(v as string));
  v = claim.pcn;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"104-A4":' : ',"104-A4":', q(v as string));
  v = claim.cardholderId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"302-C2":' : ',"302-C2":', q((v as Phi).reveal()));
  v = claim.serviceProviderId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"201-B1":' : ',"201-B1":', q(v as string));
  v = claim.prescriptionNumber;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"402-D2":' : ',"402-D2":', q(v as string));
  v = claim.fillNumber;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"403-D3":' : ',"403-D3":', n(v as number));
  v = productId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"407-D7":' : ',"407-D7":', q(v as string));
  v = claim.quantityDispensed;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"442-E7":' : ',"442-E7":', '"', decimalFixed(v as Decimal, 3), '"');
  v = claim.daysSupply;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"405-D5":' : ',"405-D5":', n(v as number));
  v = claim.dateOfService;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"401-D1":' : ',"401-D1":', q(v as string));
  v = claim.ingredientCostSubmitted;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"409-D9":' : ',"409-D9":', '"', decimalFixed(v as Decimal, 2), '"');
  v = claim.groupId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"301-C1":' : ',"301-C1":', q(v as string));
  v = claim.patientFirstName;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"310-CA":' : ',"310-CA":', q((v as Phi).reveal()));
  v = claim.patientLastName;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"311-CB":' : ',"311-CB":', q((v as Phi).reveal()));
  v = claim.dateOfBirth;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"304-C4":' : ',"304-C4":', q((v as Phi).reveal()));
  v = claim.prescriberId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"411-DB":' : ',"411-DB":', q(v as string));
  v = claim.usualAndCustomaryCharge;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"426-DQ":' : ',"426-DQ":', '"', decimalFixed(v as Decimal, 2), '"');
  v = claim.grossAmountDue;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"430-DU":' : ',"430-DU":', '"', decimalFixed(v as Decimal, 2), '"');
  v = claim.dispensingFeeSubmitted;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"412-DC":' : ',"412-DC":', '"', decimalFixed(v as Decimal, 2), '"');
  v = claim.basisOfCostDetermination;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"423-DN":' : ',"423-DN":', q(v as string));
  v = claim.durPpsCodeCounter;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"473-7E":' : ',"473-7E":', n(v as number));
  v = claim.professionalServiceCode;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"440-E5":' : ',"440-E5":', q(v as string));
  v = claim.resultOfServiceCode;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"441-E6":' : ',"441-E6":', q(v as string));
  v = claim.priorAuthorizationTypeCode;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"461-EU":' : ',"461-EU":', q(v as string));
  v = claim.priorAuthorizationNumber;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"462-EV":' : ',"462-EV":', q(v as string));
  v = claim.submissionClarificationCode;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"420-DK":' : ',"420-DK":', q(v as string));
  v = claim.otherCoverageCode;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"308-C8":' : ',"308-C8":', q(v as string));
  v = claim.otherPaymentsCount;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"337-4C":' : ',"337-4C":', n(v as number));
  v = claim.otherPayerCoverageType;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"338-5C":' : ',"338-5C":', q(v as string));
  v = claim.otherPayerIdQualifier;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"339-6C":' : ',"339-6C":', q(v as string));
  v = claim.otherPayerId;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"340-7C":' : ',"340-7C":', q(v as string));
  v = claim.otherPayerDate;
  if (v !== undefined) parts.push(parts.length === 0 ? '{"443-E8":' : ',"443-E8":', q(v as string));
  v = claim.otherPayerAmountPaid;
  if (v !== undefined)
    parts.push(parts.length === 0 ? '{"431-DV":' : ',"431-DV":', '"', decimalFixed(v as Decimal, 2), '"');

  parts.push('}');
  return parts.join('');
}

/** The JSON string of `v`: between quotes as it is when it is plain, else `JSON.stringify(v)`. */
const q = (v: string): string => (plain(v) ? `"${v}"` : JSON.stringify(v));
/**
 * Text JSON writes as is: printable ASCII but the quote and the backslash (by hand: a RegExp
 * call a string field was a tenth of wireBody's cost).
 */
function plain(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) return false;
  }
  return true;
}
const n = (v: number): string => (Number.isInteger(v) ? `${v}` : JSON.stringify(v));
const ZEROS = '000000000000';

/**
 * `d.toFixed(places)`, at a tenth of its cost for the plain decimals of a claim (the string
 * form already has at most `places` decimals: pad it); anything else goes to `toFixed`.
 */
export function decimalFixed(d: Decimal, places: number): string {
  const s = d.toString();
  // One pass for the dot and for what only an exponent, NaN or Infinity writes (`e`, `N`,
  // `I`): four searches of the string were most of this function's cost.
  let dot = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 46) dot = i;
    else if (c === 101 || c === 78 || c === 73) return d.toFixed(places);
  }
  if (dot < 0) {
    if (places > ZEROS.length) return d.toFixed(places);
    return places === 0 ? s : `${s}.${ZEROS.slice(0, places)}`;
  }
  const have = s.length - dot - 1;
  if (have > places || places - have > ZEROS.length) return d.toFixed(places);
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
export function fastCheck(f: ClaimField): (v: unknown) => boolean {
  const t = f.format;
  switch (t.kind) {
    case 'enum':
      return (v) => typeof v === 'string' && t.values.includes(v);
    case 'digits': {
      // By hand, not a RegExp (one call a field was most of this): `^\d{n}$`, or `^\d{1,n}$`.
      const min = t.upTo ? 1 : t.length;
      return (v) =>
        typeof v === 'string' && v.length >= min && v.length <= t.length && digitsOnly(v, 0, v.length);
    }
    case 'text':
      return (v) =>
        typeof v === 'string' && v.length >= 1 && v.length <= t.max && v.trim() === v && noLoneSurrogate(v);
    case 'date':
      return (v) => typeof v === 'string' && validDate(v);
    case 'int':
      // -0 is left to zod (which gives 0): the fast path must build exactly what zod builds.
      return (v) =>
        typeof v === 'number' && Number.isInteger(v) && v >= t.min && v <= t.max && !Object.is(v, -0);
    case 'decimal':
      return (v) => typeof v === 'string' && plainDecimal(v, t.scale);
  }
}

/** Whether text[from, to) is ASCII digits only (RegExp `\d`, without the `u` flag). */
function digitsOnly(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** `^\d{1,9}(\.\d{1,scale})?$`, by hand. */
function plainDecimal(v: string, scale: number): boolean {
  const dot = v.indexOf('.');
  const whole = dot < 0 ? v.length : dot;
  if (whole < 1 || whole > 9 || !digitsOnly(v, 0, whole)) return false;
  if (dot < 0) return true;
  const places = v.length - dot - 1;
  return places >= 1 && places <= scale && digitsOnly(v, dot + 1, v.length);
}

/** {@link wellFormed}, by hand: every high surrogate followed by a low one, no low one alone. */
function noLoneSurrogate(v: string): boolean {
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c >= 0xdc00) return false;
    const next = i + 1 < v.length ? v.charCodeAt(i + 1) : 0;
    if (next < 0xdc00 || next > 0xdfff) return false;
    i++;
  }
  return true;
}
/** The fast check of the field with this code (a code not in the table fails at load). */
function checkOf(code: string): (v: unknown) => boolean {
  const f = CLAIM_FIELDS.find((x) => x.code === code);
  if (f === undefined) throw new Error(`no claim field ${code}`);
  return fastCheck(f);
}
const okTransactionCode = checkOf('103-A3');
const okBin = checkOf('101-A1');
const okPcn = checkOf('104-A4');
const okCardholderId = checkOf('302-C2');
const okServiceProviderId = checkOf('201-B1');
const okPrescriptionNumber = checkOf('402-D2');
const okFillNumber = checkOf('403-D3');
const okProductId = checkOf('407-D7');
const okQuantityDispensed = checkOf('442-E7');
const okDaysSupply = checkOf('405-D5');
const okDateOfService = checkOf('401-D1');
const okIngredientCostSubmitted = checkOf('409-D9');
const okGroupId = checkOf('301-C1');
const okPatientFirstName = checkOf('310-CA');
const okPatientLastName = checkOf('311-CB');
const okDateOfBirth = checkOf('304-C4');
const okPrescriberId = checkOf('411-DB');
const okUsualAndCustomaryCharge = checkOf('426-DQ');
const okGrossAmountDue = checkOf('430-DU');
const okDispensingFeeSubmitted = checkOf('412-DC');
const okBasisOfCostDetermination = checkOf('423-DN');
const okDurPpsCodeCounter = checkOf('473-7E');
const okProfessionalServiceCode = checkOf('440-E5');
const okResultOfServiceCode = checkOf('441-E6');
const okPriorAuthorizationTypeCode = checkOf('461-EU');
const okPriorAuthorizationNumber = checkOf('462-EV');
const okSubmissionClarificationCode = checkOf('420-DK');
const okOtherCoverageCode = checkOf('308-C8');
const okOtherPaymentsCount = checkOf('337-4C');
const okOtherPayerCoverageType = checkOf('338-5C');
const okOtherPayerIdQualifier = checkOf('339-6C');
const okOtherPayerId = checkOf('340-7C');
const okOtherPayerDate = checkOf('443-E8');
const okOtherPayerAmountPaid = checkOf('431-DV');

/**
 * The schema's rules, checked field by field from the same table for the common, valid claim
 * (no trimming needed, every field right). Returns undefined whenever zod might answer
 * differently: zod then decides.
 *
 * One named read per field in the order of CLAIM_FIELDS (each read once, as the table-driven
 * loop did), each with its own check: held to that loop (`fastParseByTable` in
 * fast-paths.test.ts) by a property over all 34 fields.
 */
export function fastParse(r: Record<string, unknown>): CanonicalClaim | undefined {
  let present = 0;
  let v = r['103-A3'];
  if (v === undefined || !okTransactionCode(v)) return undefined;
  present++;
  v = r['101-A1'];
  if (v === undefined || !okBin(v)) return undefined;
  present++;
  v = r['104-A4'];
  if (v === undefined || !okPcn(v)) return undefined;
  present++;
  v = r['302-C2'];
  if (v === undefined || !okCardholderId(v)) return undefined;
  present++;
  v = r['201-B1'];
  if (v === undefined || !okServiceProviderId(v)) return undefined;
  present++;
  v = r['402-D2'];
  if (v === undefined || !okPrescriptionNumber(v)) return undefined;
  present++;
  v = r['403-D3'];
  if (v === undefined || !okFillNumber(v)) return undefined;
  present++;
  v = r['407-D7'];
  if (v === undefined || !okProductId(v)) return undefined;
  present++;
  v = r['442-E7'];
  if (v === undefined || !okQuantityDispensed(v)) return undefined;
  present++;
  v = r['405-D5'];
  if (v === undefined || !okDaysSupply(v)) return undefined;
  present++;
  v = r['401-D1'];
  if (v === undefined || !okDateOfService(v)) return undefined;
  present++;
  v = r['409-D9'];
  if (v === undefined || !okIngredientCostSubmitted(v)) return undefined;
  present++;
  v = r['301-C1'];
  if (v !== undefined) {
    if (!okGroupId(v)) return undefined;
    present++;
  }
  v = r['310-CA'];
  if (v !== undefined) {
    if (!okPatientFirstName(v)) return undefined;
    present++;
  }
  v = r['311-CB'];
  if (v !== undefined) {
    if (!okPatientLastName(v)) return undefined;
    present++;
  }
  v = r['304-C4'];
  if (v !== undefined) {
    if (!okDateOfBirth(v)) return undefined;
    present++;
  }
  v = r['411-DB'];
  if (v !== undefined) {
    if (!okPrescriberId(v)) return undefined;
    present++;
  }
  v = r['426-DQ'];
  if (v !== undefined) {
    if (!okUsualAndCustomaryCharge(v)) return undefined;
    present++;
  }
  v = r['430-DU'];
  if (v !== undefined) {
    if (!okGrossAmountDue(v)) return undefined;
    present++;
  }
  v = r['412-DC'];
  if (v !== undefined) {
    if (!okDispensingFeeSubmitted(v)) return undefined;
    present++;
  }
  v = r['423-DN'];
  if (v !== undefined) {
    if (!okBasisOfCostDetermination(v)) return undefined;
    present++;
  }
  v = r['473-7E'];
  if (v !== undefined) {
    if (!okDurPpsCodeCounter(v)) return undefined;
    present++;
  }
  v = r['440-E5'];
  if (v !== undefined) {
    if (!okProfessionalServiceCode(v)) return undefined;
    present++;
  }
  v = r['441-E6'];
  if (v !== undefined) {
    if (!okResultOfServiceCode(v)) return undefined;
    present++;
  }
  v = r['461-EU'];
  if (v !== undefined) {
    if (!okPriorAuthorizationTypeCode(v)) return undefined;
    present++;
  }
  v = r['462-EV'];
  if (v !== undefined) {
    if (!okPriorAuthorizationNumber(v)) return undefined;
    present++;
  }
  v = r['420-DK'];
  if (v !== undefined) {
    if (!okSubmissionClarificationCode(v)) return undefined;
    present++;
  }
  v = r['308-C8'];
  if (v !== undefined) {
    if (!okOtherCoverageCode(v)) return undefined;
    present++;
  }
  v = r['337-4C'];
  if (v !== undefined) {
    if (!okOtherPaymentsCount(v)) return undefined;
    present++;
  }
  v = r['338-5C'];
  if (v !== undefined) {
    if (!okOtherPayerCoverageType(v)) return undefined;
    present++;
  }
  v = r['339-6C'];
  if (v !== undefined) {
    if (!okOtherPayerIdQualifier(v)) return undefined;
    present++;
  }
  v = r['340-7C'];
  if (v !== undefined) {
    if (!okOtherPayerId(v)) return undefined;
    present++;
  }
  v = r['443-E8'];
  if (v !== undefined) {
    if (!okOtherPayerDate(v)) return undefined;
    present++;
  }
  v = r['431-DV'];
  if (v !== undefined) {
    if (!okOtherPayerAmountPaid(v)) return undefined;
    present++;
  }
  // Any other key (or one set to undefined) goes to zod, which names it.
  let keys = 0;
  for (const _ in r) keys++;
  return keys === present ? build(r) : undefined;
}
