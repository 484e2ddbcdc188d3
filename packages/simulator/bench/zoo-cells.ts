// What the zoo benches share: a cell of the table (the worst of its runs), how it is shown,
// and the goals each cell is held to.
import type { ZooRunResult } from '../src/zoo/zoo-run.js';

export interface Cell {
  readonly goodput: number;
  readonly throttled: number;
  readonly deadLettered: number;
}

/** The worst of a cell's runs: the least goodput, the most throttled, every dead letter. */
export const cellOf = (rs: readonly ZooRunResult[]): Cell => ({
  goodput: Math.min(...rs.map((r) => r.goodputPct)),
  throttled: Math.max(...rs.map((r) => r.throttledPct)),
  deadLettered: rs.reduce((a, r) => a + r.deadLettered, 0),
});

export const showCell = (c: Cell): string =>
  `${c.goodput.toFixed(1)} / ${c.throttled.toFixed(2)}${c.deadLettered > 0 ? ` (${c.deadLettered} DL)` : ''}`;

/** Issue #14, in virtual time: a vendor with quota headers ≥ 98 % / ≤ 0.5 %, without ≥ 90 % / ≤ 3 %. */
export const meetsHeaderGoal = (c: Cell): boolean => c.goodput >= 98 && c.throttled <= 0.5;
export const meetsQuietGoal = (c: Cell): boolean => c.goodput >= 90 && c.throttled <= 3;

/**
 * Against the AWS reference on the same vendor. Strict: more goodput (as shown, one decimal).
 * Or: no less goodput (as shown) and fewer throttled.
 */
export const beatsStrictly = (ours: Cell, aws: Cell): boolean => round1(ours.goodput) > round1(aws.goodput);
export const beatsOrMatches = (ours: Cell, aws: Cell): boolean =>
  beatsStrictly(ours, aws) || (round1(ours.goodput) >= round1(aws.goodput) && ours.throttled < aws.throttled);

const round1 = (x: number): number => Math.round(x * 10) / 10;
