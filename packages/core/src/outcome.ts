/**
 * How a call ended, as a breaker should record it: `ignore` never moves a breaker (a 429 is
 * not the vendor failing). A classifier verdict's `breaker` field is one of these.
 */
export type CallOutcome = 'success' | 'failure' | 'ignore';
