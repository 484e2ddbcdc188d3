import type { CanonicalClaim } from './claim.js';

/** How a field is written on the wire, and what it must hold. */
export type FieldFormat =
  | { readonly kind: 'enum'; readonly values: readonly string[] }
  /** Exactly `length` digits (BIN, NPI, NDC), or 1..`length` digits with `upTo`. */
  | { readonly kind: 'digits'; readonly length: number; readonly upTo?: boolean; readonly what: string }
  /** Trimmed text of 1..`max` characters. */
  | { readonly kind: 'text'; readonly max: number }
  /** CCYYMMDD, a real calendar date. */
  | { readonly kind: 'date' }
  /** A whole JSON number in [min, max]. */
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  /** A non-negative decimal string with at most `scale` places (never a JSON number); `Decimal` in the claim. */
  | { readonly kind: 'decimal'; readonly scale: number; readonly what: string };

/** One NCPDP D.0 request field as rxgate carries it. */
export interface ClaimField {
  /** The NCPDP field code, the key on the wire (`407-D7`). */
  readonly code: string;
  /** Its property on {@link CanonicalClaim}. */
  readonly name: keyof CanonicalClaim;
  readonly format: FieldFormat;
  readonly required: boolean;
  /** Protected health information: a `Phi` in the claim, never in telemetry. */
  readonly phi: boolean;
  /**
   * Its place in a B2 reversal: `required`, `optional`, or absent (a B1/E1 field a reversal
   * does not carry — quantity, days supply, pricing — and a typed error in one).
   */
  readonly reversal?: 'required' | 'optional';
}

/** An optional money field: a decimal string with 2 places on the wire, `Decimal` in the claim. */
function money<C extends string, N extends keyof CanonicalClaim>(code: C, name: N) {
  return {
    code,
    name,
    format: { kind: 'decimal', scale: 2, what: 'money' } as const,
    required: false as const,
    phi: false as const,
  };
}

/**
 * The request fields of a claim, in wire order: the one definition that the zod schema, the
 * fast parse, the wire encoder (`toWire`, `wireBody`) and the PHI marking derive from.
 */
export const CLAIM_FIELDS = [
  {
    code: '103-A3',
    name: 'transactionCode',
    format: { kind: 'enum', values: ['B1', 'B2', 'E1'] },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '101-A1',
    name: 'bin',
    format: { kind: 'digits', length: 6, what: 'BIN' },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '104-A4',
    name: 'pcn',
    format: { kind: 'text', max: 10 },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '302-C2',
    name: 'cardholderId',
    format: { kind: 'text', max: 20 },
    required: true,
    phi: true,
    reversal: 'optional',
  },
  {
    code: '201-B1',
    name: 'serviceProviderId',
    format: { kind: 'digits', length: 10, what: 'NPI' },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '402-D2',
    name: 'prescriptionNumber',
    format: { kind: 'digits', length: 12, upTo: true, what: 'Rx number' },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '403-D3',
    name: 'fillNumber',
    format: { kind: 'int', min: 0, max: 99 },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '407-D7',
    name: 'productId',
    format: { kind: 'digits', length: 11, what: 'NDC-11' },
    required: true,
    phi: false,
    reversal: 'optional',
  },
  {
    code: '442-E7',
    name: 'quantityDispensed',
    format: { kind: 'decimal', scale: 3, what: 'quantity' },
    required: true,
    phi: false,
  },
  {
    code: '405-D5',
    name: 'daysSupply',
    format: { kind: 'int', min: 1, max: 999 },
    required: true,
    phi: false,
  },
  {
    code: '401-D1',
    name: 'dateOfService',
    format: { kind: 'date' },
    required: true,
    phi: false,
    reversal: 'required',
  },
  {
    code: '409-D9',
    name: 'ingredientCostSubmitted',
    format: { kind: 'decimal', scale: 2, what: 'money' },
    required: true,
    phi: false,
  },
  {
    code: '301-C1',
    name: 'groupId',
    format: { kind: 'text', max: 15 },
    required: false,
    phi: false,
    reversal: 'optional',
  },
  { code: '310-CA', name: 'patientFirstName', format: { kind: 'text', max: 35 }, required: false, phi: true },
  { code: '311-CB', name: 'patientLastName', format: { kind: 'text', max: 35 }, required: false, phi: true },
  { code: '304-C4', name: 'dateOfBirth', format: { kind: 'date' }, required: false, phi: true },
  // Prescriber, pricing, DUR/PPS, prior authorization, clarification, coordination of benefits.
  { code: '411-DB', name: 'prescriberId', format: { kind: 'text', max: 15 }, required: false, phi: false },
  money('426-DQ', 'usualAndCustomaryCharge'),
  money('430-DU', 'grossAmountDue'),
  money('412-DC', 'dispensingFeeSubmitted'),
  {
    code: '423-DN',
    name: 'basisOfCostDetermination',
    format: { kind: 'text', max: 2 },
    required: false,
    phi: false,
  },
  {
    code: '473-7E',
    name: 'durPpsCodeCounter',
    format: { kind: 'int', min: 1, max: 9 },
    required: false,
    phi: false,
  },
  {
    code: '440-E5',
    name: 'professionalServiceCode',
    format: { kind: 'text', max: 2 },
    required: false,
    phi: false,
  },
  {
    code: '441-E6',
    name: 'resultOfServiceCode',
    format: { kind: 'text', max: 2 },
    required: false,
    phi: false,
  },
  {
    code: '461-EU',
    name: 'priorAuthorizationTypeCode',
    format: { kind: 'digits', length: 2, upTo: true, what: 'PA type' },
    required: false,
    phi: false,
  },
  {
    code: '462-EV',
    name: 'priorAuthorizationNumber',
    format: { kind: 'digits', length: 11, upTo: true, what: 'PA number' },
    required: false,
    phi: false,
  },
  {
    code: '420-DK',
    name: 'submissionClarificationCode',
    format: { kind: 'digits', length: 2, upTo: true, what: 'clarification code' },
    required: false,
    phi: false,
  },
  {
    code: '308-C8',
    name: 'otherCoverageCode',
    format: { kind: 'digits', length: 2, upTo: true, what: 'other coverage code' },
    required: false,
    phi: false,
  },
  {
    code: '337-4C',
    name: 'otherPaymentsCount',
    format: { kind: 'int', min: 1, max: 9 },
    required: false,
    phi: false,
  },
  {
    code: '338-5C',
    name: 'otherPayerCoverageType',
    format: { kind: 'digits', length: 2, what: 'coverage type' },
    required: false,
    phi: false,
  },
  {
    code: '339-6C',
    name: 'otherPayerIdQualifier',
    format: { kind: 'digits', length: 2, what: 'ID qualifier' },
    required: false,
    phi: false,
  },
  { code: '340-7C', name: 'otherPayerId', format: { kind: 'text', max: 10 }, required: false, phi: false },
  { code: '443-E8', name: 'otherPayerDate', format: { kind: 'date' }, required: false, phi: false },
  money('431-DV', 'otherPayerAmountPaid'),
] as const satisfies readonly ClaimField[];

type Fields = (typeof CLAIM_FIELDS)[number];
type WireValue<F extends Fields> = F['format']['kind'] extends 'int'
  ? number
  : F['format'] extends { kind: 'enum'; values: readonly (infer V)[] }
    ? V
    : string;

/** A claim in wire form, keyed by NCPDP field code (money and quantities as decimal strings). */
export type RawClaim = {
  readonly [F in Fields as F['required'] extends true ? F['code'] : never]: WireValue<F>;
} & {
  readonly [F in Fields as F['required'] extends true ? never : F['code']]?: WireValue<F>;
};

// Every property of a claim has its field, and no field names a property twice.
type Missing = Exclude<keyof CanonicalClaim, Fields['name']>;
const everyPropertyHasAField: [Missing] extends [never] ? true : Missing = true;
void everyPropertyHasAField;

/** One NCPDP D.0 response field rxgate reads. */
export interface ResponseField {
  readonly code: string;
  readonly name: string;
  readonly format: 'decimal' | 'text' | 'text-list' | 'enum' | 'codes';
  readonly phi: false;
}

/**
 * The response fields rxgate reads (the classifier parses them; outcomes carry them): status,
 * reject codes, authorization, the money a pharmacist collects and is paid, the payer's messages.
 */
export const RESPONSE_FIELDS = [
  { code: '112-AN', name: 'transactionResponseStatus', format: 'enum', phi: false },
  { code: '511-FB', name: 'rejectCodes', format: 'codes', phi: false },
  { code: '503-F3', name: 'authorizationNumber', format: 'text', phi: false },
  { code: '505-F5', name: 'patientPay', format: 'decimal', phi: false },
  { code: '506-F6', name: 'ingredientCostPaid', format: 'decimal', phi: false },
  { code: '509-F9', name: 'totalPaid', format: 'decimal', phi: false },
  { code: '518-FI', name: 'copay', format: 'decimal', phi: false },
  { code: '572-4U', name: 'coinsurance', format: 'decimal', phi: false },
  { code: '517-FH', name: 'deductible', format: 'decimal', phi: false },
  { code: '504-F4', name: 'message', format: 'text', phi: false },
  { code: '526-FQ', name: 'additionalMessages', format: 'text-list', phi: false },
] as const satisfies readonly ResponseField[];
