// What a run does, decided before and while it runs, as pure functions of the scenario and the
// options: which scenario applies in a mode, the client's credentials, a claim's deadline, the
// lateness tolerated, whether a worker sends a claim, when the traffic is over. Tested as tables
// in run-plan.test.ts.
import type { RunMode, RunOptions } from './run-types.js';
import type { Scenario } from './scenario.js';

/** The pos budget when a scenario names none for the segment nor for retail. */
export const DEFAULT_POS_BUDGET_MS = 800;
/** How late a pos claim may finish on real timers before it counts as a missed deadline. */
export const REAL_TIME_TOLERANCE_MS = 25;

/**
 * The scenario as it applies in `mode`. Against a target nothing is injected: its faults are
 * its own. Claims from a file are the traffic, so the scenario's bursts do not apply either (a
 * burst 9 h ahead kept the process alive). A worker of a shared run keeps the scenario whole.
 */
export function scenarioForMode(
  scenario: Scenario,
  mode: RunMode,
  options: Pick<RunOptions, 'share' | 'claims'>,
): Scenario {
  if (mode !== 'target' || options.share !== undefined) return scenario;
  return {
    ...scenario,
    faults: [],
    traffic: { ...scenario.traffic, ...(options.claims ? { bursts: [] } : {}) },
  };
}

/** The client credentials the router fetches tokens with: the user's against a target, the simulator's when the vendor model issues tokens. */
export function clientCredentialsFor(
  mode: RunMode,
  credentials: RunOptions['credentials'],
  tokenTtlSeconds: number | undefined,
): { readonly clientId: string; readonly clientSecret: string } | undefined {
  if (mode === 'target') return credentials;
  return tokenTtlSeconds !== undefined ? { clientId: 'rxgate-sim', clientSecret: 'sim-secret' } : undefined;
}

/**
 * How early the router refreshes a token: a tenth of its lifetime, at most 60 s. The router's
 * default refreshes 60 s early: with tokens of 60 s (credential-expiry) it fetched one per claim
 * and never met a revoked token.
 */
export function tokenMarginMs(tokenTtlSeconds: number | undefined): number {
  return Math.min(60_000, (tokenTtlSeconds ?? 300) * 100);
}

/** A pos claim's budget in its segment. */
export function posBudgetMs(s: Scenario, segment: string): number {
  return s.client.budgets.pos[segment] ?? s.client.budgets.pos.retail ?? DEFAULT_POS_BUDGET_MS;
}

/** A claim's deadline: its segment's pos budget, none in batch. */
export function deadlineMs(s: Scenario, lane: 'pos' | 'batch', segment: string): number {
  return lane === 'pos' ? posBudgetMs(s, segment) : Number.POSITIVE_INFINITY;
}

/**
 * "Deadline plus one timer tick": exactly 1 ms on the virtual clock; on real timers, the event
 * loop's own lateness under load (documented in the README).
 */
export function lateToleranceMs(virtual: boolean): number {
  return virtual ? 1 : REAL_TIME_TOLERANCE_MS;
}

/** The report's time bucket: about 300 buckets over the traffic's span, a whole second at least. */
export function seriesBucketMs(s: Scenario): number {
  const span = s.traffic.durationMs ?? (s.traffic.claims! / s.traffic.ratePerSecond) * 1000;
  return Math.max(1000, Math.ceil(span / 300 / 1000) * 1000);
}

/** With a share, every worker walks the same traffic and sends its own part of it. */
export function sendsClaim(at: number, share: RunOptions['share']): boolean {
  return share === undefined || at % share.of === share.worker;
}

/** The traffic is over when the claims are all generated or its duration has passed. */
export function trafficOver(
  generated: number,
  limit: number,
  elapsedMs: number,
  durationMs: number | undefined,
): boolean {
  return generated >= limit || (durationMs !== undefined && elapsedMs >= durationMs);
}

/**
 * The next arrival of an open-loop generator: due a gap after the last one was *due*, not after
 * its timer fired. On real timers a busy machine fires every timer late; arrivals chained from
 * the firing drift later and later and a run makes fewer claims than its scenario says. Due from
 * the due time, a late arrival is made up at once, and a run makes the same arrivals however busy
 * its machine. In virtual time timers fire when due: the delay is the gap, to the bit.
 */
export function nextArrival(dueAt: number, gapMs: number, now: number): { dueAt: number; delayMs: number } {
  const next = dueAt + gapMs;
  return { dueAt: next, delayMs: Math.max(0, next - now) };
}

/** How many claims the traffic holds: the file's, the scenario's, or no bound (a duration). */
export function claimLimit(s: Scenario, claims: RunOptions['claims']): number {
  return claims?.length ?? s.traffic.claims ?? Number.POSITIVE_INFINITY;
}

/** The lane of a claim from a file: the scenario's main lane. */
export function fileClaimLane(s: Scenario): 'pos' | 'batch' {
  return s.traffic.lanes.pos >= s.traffic.lanes.batch ? 'pos' : 'batch';
}

/** The PHI a wire-form claim carries; a date of birth may come as a number from a claims file: it is PHI all the same. */
export function phiOf(raw: Record<string, unknown>): string[] {
  return ['302-C2', '310-CA', '311-CB', '304-C4'].flatMap((k) =>
    typeof raw[k] === 'string' || typeof raw[k] === 'number' ? [String(raw[k])] : [],
  );
}
