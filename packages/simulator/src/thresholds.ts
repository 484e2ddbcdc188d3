import type { RunResult } from './runner.js';

/** The figures a threshold can name. */
export const THRESHOLD_METRICS = [
  'claims',
  'attempts_per_claim',
  'throttled_rate',
  'paid_rate',
  'rejected_rate',
  'dead_letter_rate',
  'reconciliation_rate',
  'reconciliation_left_rate',
  'invalid_rate',
  'failovers',
  'p50_ms',
  'p99_ms',
  'pos_p50_ms',
  'pos_p95_ms',
  'pos_p99_ms',
  'batch_p99_ms',
  'goodput_per_second',
  'goodput_ratio',
] as const;

export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

const EXPRESSION = /^([a-z_0-9]+)\s*(<=|>=|<|>|==)\s*(-?\d+(?:\.\d+)?)$/;

/**
 * What is wrong with threshold expressions, before any run: each one that does not parse, or
 * names a metric there is none of (with the names there are). Empty when all are good.
 */
export function checkThresholds(expressions: readonly string[]): string[] {
  const known: readonly string[] = THRESHOLD_METRICS;
  return expressions.flatMap((expression) => {
    const m = EXPRESSION.exec(expression.trim());
    if (!m) return [`"${expression}" is not metric<number (also <=, >, >=, ==)`];
    if (!known.includes(m[1]!))
      return [`"${expression}": no metric "${m[1]}"; there are ${THRESHOLD_METRICS.join(', ')}`];
    return [];
  });
}

/** The figures of a run, by the names thresholds use. */
export function metricsOf(r: RunResult): Record<ThresholdMetric, number> {
  const claims = Math.max(1, r.claims);
  const o = (k: string) => r.outcomes[k] ?? 0;
  const spanS = Math.max(0.001, r.spanMs / 1000);
  const goodput = r.adjudicatedAnswers / spanS;
  return {
    claims: r.claims,
    attempts_per_claim: r.attempts / claims,
    throttled_rate: r.attempts === 0 ? 0 : r.throttledAnswers / r.attempts,
    paid_rate: (o('paid') + o('approved') + o('captured') + o('duplicate')) / claims,
    rejected_rate: o('rejected') / claims,
    dead_letter_rate: o('dead-lettered') / claims,
    reconciliation_rate: o('needs-reconciliation') / claims,
    // Still maybe-committed after router.reconcile() at the end of the run.
    reconciliation_left_rate: r.reconciliation.after / claims,
    invalid_rate: o('invalid') / claims,
    failovers: r.failovers,
    p50_ms: r.latency.all.percentile(50),
    p99_ms: r.latency.all.percentile(99),
    pos_p50_ms: r.latency.pos.percentile(50),
    pos_p95_ms: r.latency.pos.percentile(95),
    pos_p99_ms: r.latency.pos.percentile(99),
    batch_p99_ms: r.latency.batch.percentile(99),
    goodput_per_second: goodput,
    goodput_ratio: r.quotaPerSecond ? goodput / r.quotaPerSecond : 0,
  };
}

export interface ThresholdResult {
  readonly expression: string;
  readonly metric: string;
  readonly actual: number | undefined;
  readonly ok: boolean;
}

export function evaluateThresholds(
  expressions: readonly string[],
  metrics: Readonly<Record<string, number>>,
): ThresholdResult[] {
  return expressions.map((expression) => {
    const m = EXPRESSION.exec(expression.trim());
    if (!m) return { expression, metric: expression, actual: undefined, ok: false };
    const [, metric, op, raw] = m as unknown as [string, string, string, string];
    const actual = metrics[metric];
    const limit = Number(raw);
    const ok =
      actual !== undefined &&
      (op === '<'
        ? actual < limit
        : op === '<='
          ? actual <= limit
          : op === '>'
            ? actual > limit
            : op === '>='
              ? actual >= limit
              : actual === limit);
    return { expression, metric, actual, ok };
  });
}
