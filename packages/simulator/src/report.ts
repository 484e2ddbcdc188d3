import { readFileSync } from 'node:fs';
import type { RunReport } from './report-schema.js';
import type { RunResult } from './runner.js';
import { evaluateThresholds, metricsOf, type ThresholdResult } from './thresholds.js';

/** This package's version: `rxgate-sim --version` and every JSON report. */
export const VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface InvariantLine {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
}

/** The reconciliation rate before and after `router.reconcile()` at the end of the run. */
export function reconciliationDetail(r: RunResult): string {
  const c = r.reconciliation;
  const pct = (n: number) => `${((n / Math.max(1, r.claims)) * 100).toFixed(3)} %`;
  return `${c.before} needs-reconciliation (${pct(c.before)}) before, ${c.settled} of ${c.asked} settled by reconcile, ${c.after} left (${pct(c.after)})`;
}

/** The invariants in words, each ok or not. */
export function invariantLines(r: RunResult): InvariantLine[] {
  const i = r.invariants;
  return [
    {
      name: 'no claim paid twice',
      ok: i.paidTwice.length === 0,
      detail: i.paidTwiceChecked
        ? `${i.paidTwice.length} claims paid more than once (vendor ledger)`
        : 'not checked: an external vendor keeps its own ledger',
    },
    {
      name: 'exactly one outcome per claim',
      ok: i.notExactlyOnce.length === 0,
      detail: `${i.notExactlyOnce.length} claims without exactly one outcome`,
    },
    {
      name: 'no PHI in logs, events or audit',
      ok: i.phiFound.length === 0,
      detail: `${i.phiFound.length} finds in ${i.phiTextsScanned.toLocaleString('en')} texts scanned`,
    },
    {
      name: 'no PHI (substring oracle)',
      ok: i.phiOracleFound.length === 0,
      detail: `${i.phiOracleFound.length} finds: ${i.phiOracleValues.toLocaleString('en')} values in ${i.phiOracleTexts.toLocaleString('en')} sampled texts`,
    },
    {
      name: 'half-open probe bound',
      ok: i.maxProbesInFlight <= i.probeBound,
      detail: `at most ${i.maxProbesInFlight} probes at once (bound ${i.probeBound})`,
    },
    {
      name: 'pos deadlines kept',
      ok: i.deadlineMisses.length === 0,
      detail: `${i.deadlineMisses.length} pos claims finished past their deadline (+${r.mode === 'virtual' ? '1 ms tick' : '25 ms timer lateness'})`,
    },
    // Against a target nothing is injected: no fault line applies.
    ...(r.mode === 'target' ? [] : faultLines(r, i)),
  ];
}

function faultLines(r: RunResult, i: RunResult['invariants']): InvariantLine[] {
  return [
    {
      name: 'liveness after the faults heal',
      ok: i.liveness.ok,
      detail: !i.liveness.applicable
        ? 'not applicable (no fault window, or no traffic after it)'
        : i.liveness.recoveredAfterMs === undefined
          ? `throughput never came back (allowed ${i.liveness.withinMs} ms)`
          : `throughput back ${Math.round(i.liveness.recoveredAfterMs)} ms after the last fault window (allowed ${i.liveness.withinMs} ms)`,
    },
    {
      name: 'every fault fired',
      ok: i.faultsNeverFired.length === 0,
      detail:
        i.faultsNeverFired.length === 0
          ? `${r.faultsFired.length} fault windows, each fired`
          : `never fired: ${i.faultsNeverFired.map((n) => r.scenario.faults[n]!.kind).join(', ')}`,
    },
  ];
}

export interface Report {
  readonly ok: boolean;
  readonly thresholds: ThresholdResult[];
  readonly invariants: InvariantLine[];
  /** The JSON report: checked against {@link RunReportSchema} in the tests, parsed by replay. */
  readonly json: RunReport;
}

/** The report of a run: thresholds, invariants, and the JSON for machines (deterministic in virtual time). */
export function buildReport(r: RunResult): Report {
  const metrics = metricsOf(r);
  const thresholds = evaluateThresholds(r.scenario.thresholds, metrics);
  const invariants = invariantLines(r);
  const ok = thresholds.every((t) => t.ok) && invariants.every((i) => i.ok);
  const pct = (h: RunResult['latency']['all']) => ({
    count: h.count,
    p50: round(h.percentile(50)),
    p90: round(h.percentile(90)),
    p95: round(h.percentile(95)),
    p99: round(h.percentile(99)),
    max: round(h.max),
  });
  const json: RunReport = {
    rxgate: VERSION,
    scenario: r.scenario.name,
    seed: r.scenario.seed,
    hash: r.hash,
    mode: r.mode,
    ok,
    claims: r.claims,
    spanMs: Math.round(r.spanMs),
    thresholds,
    invariants: { lines: invariants, ...r.invariants },
    metrics: Object.fromEntries(Object.entries(metrics).map(([k, v]) => [k, round(v, 4)])),
    outcomes: sorted(r.outcomes),
    rejectCodes: sorted(r.rejectCodes),
    statuses: sorted(r.statuses),
    latency: {
      all: pct(r.latency.all),
      pos: pct(r.latency.pos),
      batch: pct(r.latency.batch),
      histogram: r.latency.all.buckets(),
    },
    attempts: r.attempts,
    throttledAnswers: r.throttledAnswers,
    failovers: r.failovers,
    goodput: {
      adjudicatedAnswers: r.adjudicatedAnswers,
      perSecond: round(metrics.goodput_per_second!, 3),
      quotaPerSecond: r.quotaPerSecond ?? null,
    },
    reconciliation: {
      before: r.reconciliation.before,
      asked: r.reconciliation.asked,
      settled: r.reconciliation.settled,
      after: r.reconciliation.after,
    },
    breakerTransitions: [...r.breakerTransitions],
    faults: r.scenario.faults.map((f, i) => ({ ...f, fired: r.faultsFired[i] ?? 0 })),
    timeSeries: r.series.toJSON(),
    slowest: [...r.slowest],
    deadLettered: r.deadLettered.slice(0, 100),
    ...(r.invalidClaims.length > 0
      ? { invalidClaims: r.invalidClaims.slice(0, 100).map((c) => ({ line: c.line, fields: [...c.fields] })) }
      : {}),
    ...(r.warnings.length > 0 ? { warnings: [...r.warnings] } : {}),
    ...(r.storePrefix !== undefined ? { storePrefix: r.storePrefix } : {}),
    broken: [...r.broken],
    replay: replayLine(r),
    // The whole scenario after defaults: `rxgate-sim replay run.json` re-runs exactly this.
    definition: r.scenario,
  };
  return { ok, thresholds, invariants, json };
}

export function replayLine(r: RunResult): string {
  if (r.mode === 'target') {
    // A target's answers are its own: the same claims can be sent again, not the same run.
    const file = r.claimsFile === undefined ? '' : ` --claims-file ${r.claimsFile}`;
    return `rxgate-sim run ${r.scenario.name} --seed ${r.scenario.seed} --target ${r.target ?? 'URL'}${file}  # sends the same claims again; the target's answers are its own`;
  }
  return `rxgate-sim run ${r.scenario.name} --seed ${r.scenario.seed}  # scenario hash ${r.hash}`;
}

/** The terminal summary. */
export function formatSummary(
  r: RunResult,
  report: Report,
  opts: { color?: boolean; wallMs?: number } = {},
): string {
  const c = opts.color === true;
  const green = (s: string) => (c ? `\x1b[32m${s}\x1b[0m` : s);
  const red = (s: string) => (c ? `\x1b[31m${s}\x1b[0m` : s);
  const bold = (s: string) => (c ? `\x1b[1m${s}\x1b[0m` : s);
  const mark = (ok: boolean) => (ok ? green('✓') : red('✗'));
  const lines: string[] = [];
  const simulated =
    r.spanMs >= 3_600_000 ? `${(r.spanMs / 3_600_000).toFixed(2)} h` : `${(r.spanMs / 1000).toFixed(1)} s`;
  lines.push(bold(`rxgate-sim · ${r.scenario.name} · seed ${r.scenario.seed} · hash ${r.hash} · ${r.mode}`));
  lines.push(
    `${r.claims.toLocaleString('en')} claims over ${simulated} ${r.mode === 'virtual' ? 'simulated' : 'real'}` +
      (opts.wallMs !== undefined
        ? ` in ${(opts.wallMs / 1000).toFixed(1)} s wall (${Math.round(r.claims / (opts.wallMs / 1000)).toLocaleString('en')} claims/s)`
        : ''),
  );
  lines.push('');
  lines.push(bold('thresholds'));
  if (report.thresholds.length === 0) lines.push('  (none)');
  for (const t of report.thresholds)
    lines.push(
      `  ${mark(t.ok)} ${t.expression.padEnd(28)} actual ${t.actual === undefined ? 'unknown metric' : round(t.actual, 4)}`,
    );
  lines.push(bold('invariants'));
  for (const i of report.invariants) lines.push(`  ${mark(i.ok)} ${i.name.padEnd(32)} ${i.detail}`);
  lines.push(bold('outcomes'));
  for (const [k, v] of Object.entries(sorted(r.outcomes)))
    lines.push(
      `  ${k.padEnd(22)} ${String(v).padStart(9)}  ${((v / Math.max(1, r.claims)) * 100).toFixed(2).padStart(6)} %`,
    );
  lines.push(`${bold('reconciliation')}  ${reconciliationDetail(r)}`);
  if (r.invalidClaims.length > 0) {
    const shown = r.invalidClaims.slice(0, 10).map((c) => `line ${c.line}: ${c.fields.join(', ')}`);
    const more = (r.outcomes.invalid ?? 0) - shown.length;
    lines.push(`${bold('invalid claims')}  ${shown.join('; ')}${more > 0 ? `; and ${more} more` : ''}`);
  }
  if (Object.keys(r.rejectCodes).length)
    lines.push(
      `${bold('reject codes')}  ${Object.entries(sorted(r.rejectCodes))
        .map(([k, v]) => `${k}:${v}`)
        .join('  ')}`,
    );
  if (Object.keys(r.statuses).length)
    lines.push(
      `${bold('vendor answers')}  ${Object.entries(sorted(r.statuses))
        .map(([k, v]) => `${k}:${v}`)
        .join('  ')}`,
    );
  const l = (h: RunResult['latency']['all']) =>
    `p50 ${round(h.percentile(50))}  p90 ${round(h.percentile(90))}  p95 ${round(h.percentile(95))}  p99 ${round(h.percentile(99))}  max ${round(h.max)} ms  (n=${h.count})`;
  lines.push(bold('latency (submit to outcome)'));
  lines.push(`  all    ${l(r.latency.all)}`);
  lines.push(`  pos    ${l(r.latency.pos)}`);
  lines.push(`  batch  ${l(r.latency.batch)}`);
  const m = metricsOf(r);
  lines.push(
    `${bold('goodput')}  ${round(m.goodput_per_second!, 2)} adjudicated/s` +
      (r.quotaPerSecond
        ? ` against a quota of ${round(r.quotaPerSecond, 2)}/s (${(m.goodput_ratio! * 100).toFixed(1)} %)`
        : '') +
      `  · attempts ${r.attempts.toLocaleString('en')}  · throttled ${r.throttledAnswers.toLocaleString('en')} (${(m.throttled_rate! * 100).toFixed(2)} %)  · failovers ${r.failovers}`,
  );
  const byKey = new Map<string, string[]>();
  for (const t of r.breakerTransitions)
    byKey.set(t.key, [...(byKey.get(t.key) ?? []), `${t.to}@${(t.at / 1000).toFixed(1)}s`]);
  lines.push(`${bold('breaker transitions')}  ${byKey.size === 0 ? 'none' : ''}`);
  for (const [k, v] of byKey)
    lines.push(`  ${k.padEnd(20)} ${v.slice(0, 8).join(' → ')}${v.length > 8 ? ` … (${v.length})` : ''}`);
  lines.push('');
  lines.push(`${report.ok ? green('PASS') : red('FAIL')}  replay: ${replayLine(r)}`);
  return lines.join('\n');
}

function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

function sorted(o: Readonly<Record<string, number>>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
