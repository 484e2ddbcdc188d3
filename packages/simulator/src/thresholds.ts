import type { RunResult } from './runner.js';

/** The figures a threshold can name. */
export function metricsOf(r: RunResult): Record<string, number> {
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
  metrics: Record<string, number>,
): ThresholdResult[] {
  return expressions.map((expression) => {
    const m = /^([a-z_0-9]+)\s*(<=|>=|<|>|==)\s*(-?\d+(?:\.\d+)?)$/.exec(expression.trim());
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
