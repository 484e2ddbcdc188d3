/**
 * The NCPDP 511-FB reject codes rxgate knows, grouped by what a router should do with them.
 * Labels are rxgate's own short wording (the official descriptions are licensed by NCPDP to
 * its members: load them with `loadDescriptions` / `createCatalogue({ descriptions })`).
 * The grouping, and where it comes from: docs/reject-codes.md in the repository.
 */
export type RejectGroup =
  /** Host or switch down (90, 91, 92, 95, 97, 98): retry with backoff, breaker failure, fail over. */
  | 'host-transient'
  /** Planned host downtime (93, 96): open the breaker for the window. */
  | 'host-planned'
  /** Host data faults (99, M3, M6, M7, M8, MZ, 85): deferred retry, hours not seconds. */
  | 'host-data'
  /** NN: rejected at a switch or intermediary; pre-edit or outage, cannot tell. */
  | 'switch-ambiguous'
  /** Product repairable by lookup (21, 54, 77, 55, 26, PZ): crosswalk, successor NDC. */
  | 'repair-product'
  /** Routing repairable (01, 04, 1T, 748, 06, 51): BIN/PCN/group lookup. */
  | 'repair-routing'
  /** Bill another payer (41, AE, AF, A6, 620, 816, 817, 819, 831). */
  | 'other-payer'
  /** Missing/invalid data the submitter must fix; the same bytes get the same answer. */
  | 'submitter-fix'
  /** A coverage or clinical decision: pass through unchanged, never retry. */
  | 'terminal'
  /** 3W prior authorization in process: retry later at most. */
  | 'retry-later'
  /** 83: already paid or captured: never adjudicate again. */
  | 'duplicate'
  /** Reversal (B2) outcomes: 84, 30, 31, 86, 87. */
  | 'reversal'
  /** Not in the catalogue: a person looks; never retried blindly. */
  | 'unknown';

export interface RejectCodeEntry {
  readonly group: RejectGroup;
  readonly label: string;
}

const g = (group: RejectGroup, entries: Record<string, string>): Array<[string, RejectCodeEntry]> =>
  Object.entries(entries).map(([code, label]) => [code, { group, label }]);

const segmentCodes = [
  'PC',
  'PD',
  'PE',
  'PF',
  'PG',
  'PH',
  'PJ',
  'PK',
  'PM',
  'PN',
  'PP',
  'PQ',
  'PR',
  'PS',
  'PT',
];

/** The built-in catalogue, by normalised code. */
export const REJECT_CODES: ReadonlyMap<string, RejectCodeEntry> = new Map<string, RejectCodeEntry>([
  ...g('host-transient', {
    '90': 'Host hung up',
    '91': 'Host response error',
    '92': 'Host unavailable',
    '95': 'Host time out',
    '97': 'Payer unavailable',
    '98': 'Connection to payer down',
  }),
  ...g('host-planned', { '93': 'Planned host downtime', '96': 'Scheduled host downtime' }),
  ...g('host-data', {
    '99': 'Host processing error',
    M3: 'Host prior-auth error',
    M6: 'Host eligibility error',
    M7: 'Host drug file error',
    M8: 'Host provider file error',
    MZ: 'Host error overflow',
    '85': 'Claim not processed',
  }),
  ...g('switch-ambiguous', { NN: 'Rejected at switch or intermediary' }),
  ...g('repair-product', {
    '21': 'Product ID missing or invalid',
    '54': 'Product ID not matched',
    '77': 'Product discontinued',
    '55': 'Package size not matched',
    '26': 'Unit of measure missing or invalid',
    PZ: 'Unit of measure does not match product',
  }),
  ...g('repair-routing', {
    '01': 'BIN missing or invalid',
    '04': 'Processor control number missing or invalid',
    '1T': 'PCN must be the payer-assigned value',
    '748': 'Processor control number not matched',
    '06': 'Group ID missing or invalid',
    '51': 'Group ID not matched',
  }),
  ...g('other-payer', {
    '41': 'Bill another processor or the primary payer',
    AE: 'QMB: bill Medicare',
    AF: 'Enrolled under managed care',
    A6: 'May be covered under Medicare Part B',
    '620': 'May be covered under Medicare Part D',
    '816': 'Covered under the medical benefit',
    '817': 'Covered under the medical benefit',
    '819': 'Medicare is primary',
    '831': 'Carve-out: bill Medicaid fee for service',
  }),
  ...g('submitter-fix', {
    '02': 'Version/release missing or invalid',
    '03': 'Transaction code missing or invalid',
    '05': 'Service provider ID missing or invalid',
    '07': 'Cardholder ID missing or invalid',
    '08': 'Person code missing or invalid',
    '09': 'Date of birth missing or invalid',
    '10': 'Patient gender missing or invalid',
    '15': 'Date of service missing or invalid',
    '16': 'Prescription number missing or invalid',
    '17': 'Fill number missing or invalid',
    '19': 'Days supply missing or invalid',
    '22': 'DAW code missing or invalid',
    '25': 'Prescriber ID missing or invalid',
    E7: 'Quantity dispensed missing or invalid',
    ET: 'Quantity prescribed missing or invalid',
    '1R': 'Version/release not supported',
    '1S': 'Transaction code or type not supported',
    '1U': 'Transaction count mismatch',
    '1X': 'Vendor not certified',
    A9: 'Transaction count missing or invalid',
    AK: 'Software vendor ID missing or invalid',
    PB: 'Invalid transaction count',
    ...Object.fromEntries(segmentCodes.map((c) => [c, 'Segment missing or invalid'])),
    R8: 'Syntax error',
    '94': 'Invalid message',
    '614': 'Uppercase required',
    '50': 'Pharmacy number not matched',
    '52': 'Cardholder ID not matched',
    '53': 'Person code not matched',
    '56': 'Prescriber ID not matched',
    '62': 'Patient and cardholder name mismatch',
    N1: 'No patient match',
    MS: 'More than one cardholder found',
    '82': 'Claim is post-dated',
  }),
  ...g('terminal', {
    '40': 'Pharmacy not contracted',
    '60': 'Not covered for age',
    '61': 'Not covered for gender',
    '65': 'Patient not covered',
    '66': 'Age exceeds maximum',
    '67': 'Filled before coverage began',
    '68': 'Filled after coverage expired',
    '69': 'Filled after coverage terminated',
    '70': 'Product not covered by the plan',
    '71': 'Prescriber not covered',
    '73': 'Refills not covered',
    '75': 'Prior authorization required',
    '76': 'Plan limits exceeded',
    '78': 'Cost exceeds maximum',
    '79': 'Refill too soon',
    '80': 'Drug and diagnosis mismatch',
    '81': 'Claim too old',
    '88': 'DUR reject',
    AA: 'Patient spend-down not met',
    AC: 'Manufacturer not participating',
    AG: 'Days supply limit',
    AJ: 'Generic required',
    MR: 'Not on formulary',
    M1: 'Not covered in this aid category',
    M2: 'Recipient locked in',
    '3Y': 'Prior authorization denied',
    PA: 'Prior authorization exhausted',
    '569': 'Provide notice of Part D rights',
    '606': 'Brand or labeler required',
    '608': 'Step therapy required',
    '646': 'Not eligible: premium unpaid',
    '922': 'Morphine-equivalent limit',
    '923': 'Morphine-equivalent limit',
    '924': 'Morphine-equivalent limit',
    '925': 'Opioid days-supply limit',
    '926': 'Opioid days-supply limit',
    '927': 'Opioid days-supply limit',
    '928': 'Opioid days-supply limit',
  }),
  ...g('retry-later', { '3W': 'Prior authorization in process' }),
  ...g('duplicate', { '83': 'Duplicate of a paid or captured claim' }),
  ...g('reversal', {
    '84': 'Reversal: claim not paid or captured',
    '30': 'Reversal outside the window',
    '31': 'Reversal: no matching paid claim',
    '86': 'Submit a manual reversal',
    '87': 'Reversal not processed',
  }),
]);

/**
 * One form for each code: trimmed, upper-cased, and a lone digit padded ("4" and "04" are one
 * code). Returns undefined for a value that cannot be a code.
 */
export function normalizeRejectCode(raw: unknown): string | undefined {
  let s: string;
  if (typeof raw === 'string') s = raw.trim().toUpperCase();
  else if (typeof raw === 'number' && Number.isInteger(raw) && raw >= 0) s = String(raw);
  else return undefined;
  if (s.length === 0 || s.length > 4 || !/^[0-9A-Z*]+$/.test(s)) return undefined;
  return s.length === 1 && s >= '0' && s <= '9' ? `0${s}` : s;
}
