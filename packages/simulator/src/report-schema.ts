import { z } from 'zod';

// The JSON report of a run (`--json`, `--out`), defined once: the writer builds a `RunReport`,
// the HTML renderer reads one, and replay parses a saved file against this schema.

const counts = z.record(z.string(), z.number());
const lanePercentiles = z.record(z.string(), z.number());
const seriesOf = z.array(z.number().nullable());

export const RunReportSchema = z.object({
  rxgate: z.string(),
  scenario: z.string(),
  seed: z.number(),
  hash: z.string(),
  mode: z.enum(['virtual', 'loopback', 'target']),
  ok: z.boolean(),
  claims: z.number(),
  spanMs: z.number(),
  thresholds: z.array(
    z.object({ expression: z.string(), metric: z.string(), actual: z.number().optional(), ok: z.boolean() }),
  ),
  invariants: z
    .object({ lines: z.array(z.object({ name: z.string(), ok: z.boolean(), detail: z.string() })) })
    .catchall(z.unknown()),
  metrics: counts,
  outcomes: counts,
  rejectCodes: counts,
  statuses: counts,
  latency: z.object({
    all: lanePercentiles,
    pos: lanePercentiles,
    batch: lanePercentiles,
    histogram: z.array(z.tuple([z.number(), z.number()])),
  }),
  attempts: z.number(),
  throttledAnswers: z.number(),
  failovers: z.number(),
  goodput: z.object({
    adjudicatedAnswers: z.number(),
    perSecond: z.number(),
    quotaPerSecond: z.number().nullable(),
  }),
  /** Claims left maybe-committed by the run, and after `router.reconcile()` at its end. */
  reconciliation: z.object({ before: z.number(), asked: z.number(), settled: z.number(), after: z.number() }),
  breakerTransitions: z.array(
    z.object({ at: z.number(), key: z.string(), from: z.string(), to: z.string(), reason: z.string() }),
  ),
  faults: z.array(
    z
      .object({
        kind: z.string(),
        node: z.string(),
        startMs: z.number(),
        endMs: z.number(),
        fired: z.number(),
      })
      .catchall(z.unknown()),
  ),
  timeSeries: z.object({
    bucketMs: z.number(),
    t: z.array(z.number()),
    submitted: z.array(z.number()),
    sent: z.array(z.number()),
    adjudicated: z.array(z.number()),
    throttled: z.array(z.number()),
    failedOver: z.array(z.number()),
    remainingQuota: seriesOf,
    limiterRate: seriesOf,
    latency: z.object({
      pos: z.object({ p50: seriesOf, p95: seriesOf, p99: seriesOf }),
      batch: z.object({ p50: seriesOf, p95: seriesOf, p99: seriesOf }),
    }),
  }),
  slowest: z.array(
    z.object({ correlationId: z.string(), lane: z.string(), elapsedMs: z.number(), kind: z.string() }),
  ),
  deadLettered: z.array(z.object({ correlationId: z.string(), reason: z.string() })),
  invalidClaims: z.array(z.object({ line: z.number(), fields: z.array(z.string()) })).optional(),
  warnings: z.array(z.string()).optional(),
  storePrefix: z.string().optional(),
  /** The claims that broke an invariant, with their audit trail (see `ClaimTrace`). */
  broken: z.array(z.unknown()),
  replay: z.string(),
  /** The whole scenario after defaults: `rxgate-sim replay run.json` re-runs exactly this. */
  definition: z.unknown(),
});

export type RunReport = z.infer<typeof RunReportSchema>;

/** A saved report, checked: the error names the first paths that do not fit. */
export function parseRunReport(input: unknown): RunReport {
  return RunReportSchema.parse(input);
}
