import { type ChildProcess, fork } from 'node:child_process';
import { systemClock } from '@rxgate/ratelimit';
import { Redis } from 'ioredis';
import { serveHandlers, vendorHandlers } from './handlers.js';
import { LatencyHistogram } from './latency.js';
import type { RunResult } from './runner.js';
import { type Scenario, scenarioHash } from './scenario.js';
import { Series } from './series.js';
import { foreignKeys, foreignKeysWarning, newRunId } from './store-namespace.js';
import { VendorModel } from './vendor-model.js';

/** What one worker process reports back to the parent. */
export interface WorkerSummary {
  readonly claims: number;
  readonly spanMs: number;
  readonly outcomes: Record<string, number>;
  readonly reconciliation: RunResult['reconciliation'];
  readonly rejectCodes: Record<string, number>;
  readonly attempts: number;
  readonly throttledAnswers: number;
  readonly failovers: number;
  readonly adjudicatedAnswers: number;
  readonly latency: Record<'all' | 'pos' | 'batch', Array<[number, number]>>;
  readonly notExactlyOnce: number;
  readonly deadlineMisses: number;
  readonly phiFound: RunResult['invariants']['phiFound'];
  readonly phiTextsScanned: number;
  readonly phiOracleFound: RunResult['invariants']['phiOracleFound'];
  readonly phiOracleTexts: number;
  readonly phiOracleValues: number;
  readonly maxProbesInFlight: number;
  readonly breakerTransitions: RunResult['breakerTransitions'];
  readonly deadLettered: RunResult['deadLettered'];
}

export function summarize(r: RunResult): WorkerSummary {
  const lanes = ['all', 'pos', 'batch'] as const;
  return {
    claims: r.claims,
    spanMs: r.spanMs,
    outcomes: { ...r.outcomes },
    reconciliation: r.reconciliation,
    rejectCodes: { ...r.rejectCodes },
    attempts: r.attempts,
    throttledAnswers: r.throttledAnswers,
    failovers: r.failovers,
    adjudicatedAnswers: r.adjudicatedAnswers,
    latency: Object.fromEntries(lanes.map((l) => [l, r.latency[l].buckets()])) as WorkerSummary['latency'],
    notExactlyOnce: r.invariants.notExactlyOnce.length,
    deadlineMisses: r.invariants.deadlineMisses.length,
    phiFound: r.invariants.phiFound,
    phiTextsScanned: r.invariants.phiTextsScanned,
    phiOracleFound: r.invariants.phiOracleFound,
    phiOracleTexts: r.invariants.phiOracleTexts,
    phiOracleValues: r.invariants.phiOracleValues,
    maxProbesInFlight: r.invariants.maxProbesInFlight,
    breakerTransitions: r.breakerTransitions,
    deadLettered: r.deadLettered.slice(0, 100),
  };
}

/**
 * Runs a scenario in `workers` processes that share one quota, one ledger and one negative
 * cache in Redis (`store`), against the vendor model served here over loopback HTTP — so the
 * vendor's ledger sees every process, and "paid twice" is checked across all of them.
 */
export async function runWorkers(
  s: Scenario,
  o: {
    readonly workers: number;
    readonly store: string;
    readonly cliPath: string;
    /**
     * Called about every 250 ms: the parent sees the vendor's answers (its requests) and the
     * time, not the workers' claims, until they report at the end.
     */
    readonly onProgress?: (p: { readonly requests: number; readonly elapsedMs: number }) => void;
  },
): Promise<RunResult> {
  const start = Date.now();
  // One namespace for the run's processes, none other's: a run before this one in the same
  // Redis must not answer this one's claims from its ledger.
  const storePrefix = `rxgate:sim:${newRunId()}`;
  const warnings: string[] = [];
  {
    const redis = new Redis(o.store, { maxRetriesPerRequest: 1, lazyConnect: true });
    redis.on('error', () => {});
    try {
      await redis.connect();
      const others = await foreignKeys(redis, storePrefix);
      if (others.length > 0) warnings.push(foreignKeysWarning(others, storePrefix));
    } finally {
      redis.disconnect();
    }
  }
  const model = new VendorModel(s, systemClock, start);
  const progress =
    o.onProgress === undefined
      ? undefined
      : setInterval(() => o.onProgress?.({ requests: model.requests, elapsedMs: Date.now() - start }), 250);
  progress?.unref();
  const servers = [await serveHandlers((base) => vendorHandlers(model, 'primary', base))];
  if (s.nodes.fallback) servers.push(await serveHandlers((base) => vendorHandlers(model, 'fallback', base)));
  const children: ChildProcess[] = [];
  let summaries: WorkerSummary[];
  try {
    summaries = await Promise.all(
      Array.from({ length: o.workers }, (_, worker) => {
        const child = fork(
          o.cliPath,
          [
            'worker',
            JSON.stringify({
              scenario: s,
              worker,
              of: o.workers,
              target: servers[0]!.url,
              fallback: servers[1]?.url,
              store: o.store,
              storePrefix,
            }),
          ],
          {
            execArgv: process.execArgv,
            stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
          },
        );
        children.push(child);
        return new Promise<WorkerSummary>((resolve, reject) => {
          child.once('message', (m) => resolve(m as WorkerSummary));
          child.once('exit', (code) =>
            reject(new Error(`worker ${worker} exited (${code}) without a summary`)),
          );
        });
      }),
    );
  } finally {
    clearInterval(progress);
    for (const c of children) if (c.exitCode === null) c.kill();
    await Promise.all(servers.map((x) => x.close()));
  }
  const sum = (f: (w: WorkerSummary) => number) => summaries.reduce((a, w) => a + f(w), 0);
  const merge = (f: (w: WorkerSummary) => Record<string, number>) => {
    const out: Record<string, number> = {};
    for (const w of summaries) for (const [k, v] of Object.entries(f(w))) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  const latency = { all: new LatencyHistogram(), pos: new LatencyHistogram(), batch: new LatencyHistogram() };
  for (const w of summaries)
    for (const lane of ['all', 'pos', 'batch'] as const) latency[lane].merge(w.latency[lane]);
  const faultsFired = [...model.faultsFired];
  return {
    scenario: s,
    hash: scenarioHash(s),
    mode: 'loopback',
    invalidClaims: [],
    warnings,
    storePrefix,
    spanMs: Math.max(...summaries.map((w) => w.spanMs)),
    claims: sum((w) => w.claims),
    outcomes: merge((w) => w.outcomes),
    reconciliation: {
      before: sum((w) => w.reconciliation.before),
      asked: sum((w) => w.reconciliation.asked),
      settled: sum((w) => w.reconciliation.settled),
      after: sum((w) => w.reconciliation.after),
    },
    rejectCodes: merge((w) => w.rejectCodes),
    statuses: Object.fromEntries(model.statuses),
    latency,
    attempts: sum((w) => w.attempts),
    throttledAnswers: sum((w) => w.throttledAnswers),
    failovers: sum((w) => w.failovers),
    adjudicatedAnswers: sum((w) => w.adjudicatedAnswers),
    quotaPerSecond: model.quotaPerSecond,
    breakerTransitions: summaries.flatMap((w) => w.breakerTransitions),
    series: new Series(1000),
    invariants: {
      paidTwice: [...model.payments].filter(([, n]) => n > 1).map(([k]) => k),
      paidTwiceChecked: true,
      notExactlyOnce: Array.from({ length: sum((w) => w.notExactlyOnce) }, () => -1),
      phiFound: summaries.flatMap((w) => w.phiFound),
      phiTextsScanned: sum((w) => w.phiTextsScanned),
      phiOracleFound: summaries.flatMap((w) => w.phiOracleFound),
      phiOracleTexts: sum((w) => w.phiOracleTexts),
      phiOracleValues: sum((w) => w.phiOracleValues),
      maxProbesInFlight: Math.max(...summaries.map((w) => w.maxProbesInFlight)),
      probeBound: s.client.breaker.maxProbes,
      deadlineMisses: Array.from({ length: sum((w) => w.deadlineMisses) }, () => -1),
      liveness: { applicable: false, recoveredAfterMs: undefined, withinMs: s.liveness.withinMs, ok: true },
      faultsNeverFired: faultsFired.flatMap((n, i) => (n === 0 ? [i] : [])),
    },
    broken: [],
    slowest: [],
    deadLettered: summaries.flatMap((w) => w.deadLettered),
    faultsFired,
  };
}
