import type { FieldIssue } from './errors.js';
import type { SubmitOptions } from './options.js';

export type SubmitOptionsRead =
  | { readonly ok: true; readonly options: SubmitOptions }
  | { readonly ok: false; readonly issues: readonly FieldIssue[] };

const EMPTY: SubmitOptionsRead = Object.freeze({ ok: true, options: Object.freeze({}) });

/**
 * `submit`'s options, checked: a lane of `pos`/`batch`, a non-empty segment, a finite deadline,
 * an AbortSignal, a pinned node this router knows. Each property is read once (a getter that
 * throws is an issue, never a rejected submit); what is returned is a plain copy.
 */
export function readSubmitOptions(given: unknown): SubmitOptionsRead {
  if (given === undefined) return EMPTY;
  if (typeof given !== 'object' || given === null)
    return { ok: false, issues: [{ field: 'options', message: 'must be an object' }] };
  // The common case, `{}` (or a plain object of data properties): nothing to read twice.
  if (Object.getPrototypeOf(given) === Object.prototype && isEmpty(given)) return EMPTY;
  const issues: FieldIssue[] = [];
  const out: { -readonly [K in keyof SubmitOptions]: SubmitOptions[K] } = {};
  const threw = (name: keyof SubmitOptions): void => {
    issues.push({ field: `options.${name}`, message: 'could not be read (a getter threw)' });
  };
  // Each property by name, in this order, once: one keyed read of all five names was a
  // megamorphic property access on every submit.
  const g = given as { readonly [K in keyof SubmitOptions]?: unknown };
  let lane: unknown;
  let segment: unknown;
  let deadline: unknown;
  let signal: unknown;
  let pinnedNode: unknown;
  try {
    lane = g.lane;
  } catch {
    threw('lane');
  }
  if (lane !== undefined) {
    if (lane === 'pos' || lane === 'batch') out.lane = lane;
    else issues.push({ field: 'options.lane', message: "must be 'pos' or 'batch'" });
  }
  try {
    segment = g.segment;
  } catch {
    threw('segment');
  }
  if (segment !== undefined) {
    if (typeof segment === 'string' && segment !== '' && segment.length <= 64) out.segment = segment;
    else
      issues.push({
        field: 'options.segment',
        message: 'must be a non-empty string of at most 64 characters',
      });
  }
  try {
    deadline = g.deadline;
  } catch {
    threw('deadline');
  }
  if (deadline !== undefined) {
    if (typeof deadline === 'number' && Number.isFinite(deadline)) out.deadline = deadline;
    else
      issues.push({ field: 'options.deadline', message: 'must be a finite number (ms on the router clock)' });
  }
  try {
    signal = g.signal;
  } catch {
    threw('signal');
  }
  if (signal !== undefined) {
    if (signal instanceof AbortSignal) out.signal = signal;
    else issues.push({ field: 'options.signal', message: 'must be an AbortSignal' });
  }
  try {
    pinnedNode = g.pinnedNode;
  } catch {
    threw('pinnedNode');
  }
  if (pinnedNode !== undefined) {
    if (typeof pinnedNode === 'string' && pinnedNode !== '') out.pinnedNode = pinnedNode;
    else issues.push({ field: 'options.pinnedNode', message: 'must be a node name' });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, options: out };
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
