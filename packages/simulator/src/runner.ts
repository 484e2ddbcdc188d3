// A run of a scenario, room by room: the scenario as it applies in the mode and the environment
// the claims go to (environment.ts), the shared store (shared-store.ts), the client the
// scenario describes (client.ts), what is watched (observers.ts), the traffic (traffic.ts) and
// the invariants checked at the end (invariants.ts); the decisions are pure functions
// (run-plan.ts, invariants.ts), tested as tables.
import { MemoryJournal, type Transport } from '@rxgate/router';
import { buildGeneration, type ClientSetup, routerNodes } from './client.js';
import { openEnvironment } from './environment.js';
import {
  brokenTraces,
  checkLiveness,
  deadlineMisses,
  faultsNeverFired,
  notExactlyOnce,
  slowestClaims,
} from './invariants.js';
import { RunObservers } from './observers.js';
import { reconcileAtEnd } from './reconciliation.js';
import { lateToleranceMs, posBudgetMs, scenarioForMode, seriesBucketMs } from './run-plan.js';
import type { Invariants, RunOptions, RunResult } from './run-types.js';
import { type Scenario, scenarioHash } from './scenario.js';
import { openSharedStore, type SharedStore } from './shared-store.js';
import { newRunId } from './store-namespace.js';
import { Traffic } from './traffic.js';

export { SIM_EPOCH } from './environment.js';
export { REAL_TIME_TOLERANCE_MS } from './run-plan.js';
export type { ClaimTrace, Invariants, RunMode, RunOptions, RunResult } from './run-types.js';

/** Runs a scenario to the end and checks every invariant. Deterministic in `virtual` mode. */
export async function runScenario(scenario: Scenario, options: RunOptions = {}): Promise<RunResult> {
  const mode = options.mode ?? 'virtual';
  const s = scenarioForMode(scenario, mode, options);
  const hash = scenarioHash(s);
  const virtual = mode === 'virtual';
  const env = await openEnvironment(s, mode, options);
  const { clock, start, model } = env;
  // No vendor model to ask against a target: what it answered is counted as it arrives.
  const targetStatuses = new Map<string, number>();
  const transport = mode === 'target' ? countingTransport(env.transport, targetStatuses) : env.transport;
  const tolerance = lateToleranceMs(virtual);
  const observers = new RunObservers({
    clock,
    start,
    virtual,
    bucketMs: seriesBucketMs(s),
    phiOracleSample: options.phiOracleSample,
    logFile: options.logFile,
    auditFile: options.auditFile,
    keepAudit: options.keepAudit ?? true,
    traceCorrelationIds: options.traceCorrelationIds ?? [],
  });

  const storePrefix = options.storePrefix ?? `rxgate:sim:${newRunId()}`;
  let store: SharedStore | undefined;
  if (options.store !== undefined) {
    if (virtual) throw new Error('a shared store runs on real time: use --loopback or --target with --store');
    const { ratePerSecond, burst } = s.client.limiter;
    store = await openSharedStore({
      url: options.store,
      prefix: storePrefix,
      clock,
      account: { ratePerSecond, burst },
      worker: options.share !== undefined,
    });
  }
  const restarts = s.faults.some((f) => f.kind === 'client-restart');
  const setup: ClientSetup = {
    s,
    hash,
    mode,
    options,
    clock,
    transport,
    nodes: routerNodes(env.urls, env.hasFallback),
    store,
    journal: restarts ? new MemoryJournal() : undefined,
    storePrefix,
    audit: observers.audit,
    logger: observers.logger,
    onEvent: observers.onEvent,
    onBreakerEvent: observers.onBreakerEvent,
  };
  const traffic = new Traffic({
    s,
    options,
    clock,
    start,
    model,
    observers,
    sharedLimiter: store?.limiter,
    toleranceMs: tolerance,
    restarts,
    first: await buildGeneration(setup),
    build: () => buildGeneration(setup),
  });
  traffic.begin();

  if (env.vclock) await env.vclock.run();
  await traffic.done;
  // At the end of the day, every claim left maybe-committed is asked again on its pinned node.
  const reconciliation = await reconcileAtEnd(traffic.gen.router, observers.outcomes, env.vclock);
  traffic.cancelTimers();
  await traffic.gen.router.close();
  await store?.close();
  await env.close();
  await observers.close();

  // Invariants.
  const total = traffic.submitted;
  const { phi, oracle, series } = observers;
  oracle.check();
  const once = notExactlyOnce(traffic.settleCount, total);
  const late = deadlineMisses(
    total,
    traffic.lanes,
    traffic.segments,
    traffic.elapsed,
    (seg) => posBudgetMs(s, seg),
    tolerance,
  );
  const spanMs = traffic.lastSettledAt - start;
  const faultsFired = model ? [...model.faultsFired] : s.faults.map(() => 0);
  const invariants: Invariants = {
    // Two payments standing at once, by content (a rebill after an accepted reversal is not).
    paidTwice: model ? [...model.paidTwice] : [],
    paidTwiceChecked: model !== undefined,
    notExactlyOnce: once,
    phiFound: phi.found,
    phiTextsScanned: phi.scanned,
    phiOracleFound: oracle.found,
    phiOracleTexts: oracle.searched,
    phiOracleValues: oracle.valuesChecked,
    maxProbesInFlight: observers.maxProbes,
    probeBound: s.client.breaker.maxProbes,
    deadlineMisses: late,
    liveness: checkLiveness(s, series, model?.quotaPerSecond, spanMs),
    faultsNeverFired: model ? faultsNeverFired(faultsFired) : [],
  };
  return {
    scenario: s,
    hash,
    mode,
    ...(mode === 'target' && options.target !== undefined ? { target: options.target } : {}),
    ...(options.claimsFile !== undefined ? { claimsFile: options.claimsFile } : {}),
    invalidClaims: traffic.invalidClaims,
    warnings: store?.warnings ?? [],
    ...(options.store !== undefined ? { storePrefix } : {}),
    spanMs,
    claims: total,
    outcomes: observers.outcomes,
    reconciliation,
    rejectCodes: observers.rejectCodes,
    statuses: Object.fromEntries(model ? model.statuses : targetStatuses),
    latency: observers.latency,
    attempts: observers.attempts,
    throttledAnswers: observers.throttledAnswers,
    failovers: observers.failovers,
    adjudicatedAnswers: observers.adjudicatedAnswers,
    quotaPerSecond: model?.quotaPerSecond,
    breakerTransitions: observers.transitions,
    series,
    invariants,
    broken: brokenTraces(traffic, [...once, ...late], observers.traced, (id) =>
      observers.auditByCorrelation.get(id),
    ),
    slowest: slowestClaims(traffic),
    deadLettered: traffic.deadLettered,
    faultsFired,
  };
}

/** A transport that counts answers by status, and failures by what they were (`refused`, `dns`, `tls`, …). */
function countingTransport(inner: Transport, counts: Map<string, number>): Transport {
  const bump = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  return {
    async send(node, request, signal) {
      try {
        const r = await inner.send(node, request, signal);
        bump(String(r.status));
        return r;
      } catch (e) {
        bump(transportFailure(e));
        throw e;
      }
    },
    close: () => inner.close(),
  };
}

/** A transport failure by kind, from its code; the code itself when it is none of the known kinds. */
export function transportFailure(e: unknown): string {
  const code = String(
    (e as { transportCode?: unknown; code?: unknown })?.transportCode ??
      (e as { code?: unknown })?.code ??
      'unknown',
  );
  if (code === 'ECONNREFUSED') return 'refused';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (
    code.startsWith('ERR_TLS') ||
    code.startsWith('ERR_SSL') ||
    /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/.test(code)
  )
    return 'tls';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect-timeout';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timeout';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || code === 'EPIPE') return 'reset';
  if (code === 'ABORTED' || code === 'UND_ERR_ABORTED') return 'aborted';
  return `transport:${code}`;
}
