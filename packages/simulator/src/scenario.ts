import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { z } from 'zod';

const ndc = z.string().regex(/^\d{11}$/, 'must be an 11-digit NDC');
const rate = z.number().positive('must be > 0');
const prob = z.number().min(0, 'must be in [0, 1]').max(1, 'must be in [0, 1]');
const ms = z.number().min(0, 'must be >= 0');

export const FAULT_KINDS = [
  '429-storm',
  '503-maintenance',
  '503-throttle',
  'outage',
  'timeout',
  'reset',
  'ambiguous-commit',
  'host-error',
  'server-error',
  'credential-expiry',
  'latency-spike',
  // A gateway in front of the processor times out on it: the processor pays (or replays) every
  // request that reaches it, and the client hears 504 or 502.
  'gateway-timeout',
  // The router's process is killed (kill -9) when the window opens and started again from its
  // durable ledger; the pharmacy system sends every claim it has no answer for again.
  'client-restart',
  // When the window opens, the batch lane resubmits every dead letter and every claim left
  // for reconciliation so far.
  'dead-letter-resubmit',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const scenarioSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().default(''),
    seed: z.number().int().default(1),
    traffic: z
      .object({
        /** Stop after this many claims. */
        claims: z.number().int().positive().optional(),
        /** Or after this long (simulated). */
        durationMs: z.number().positive().optional(),
        /** Mean arrival rate, claims per second. */
        ratePerSecond: rate,
        /** `poisson` arrivals (default) or evenly spaced `constant` ones. */
        profile: z.enum(['poisson', 'constant']).default('poisson'),
        /** Peaks on the arrival rate: a bell of `widthMs` around `atMs`, times `multiplier` at its top. */
        peaks: z
          .array(
            z.object({ atMs: ms, widthMs: z.number().positive(), multiplier: z.number().min(0) }).strict(),
          )
          .default([]),
        /** Bursts: `count` claims at once at `atMs`. */
        bursts: z.array(z.object({ atMs: ms, count: z.number().int().positive() }).strict()).default([]),
        lanes: z
          .object({ pos: z.number().min(0), batch: z.number().min(0) })
          .strict()
          .default({ pos: 0.85, batch: 0.15 }),
        segments: z.record(z.string().min(1), z.number().min(0)).default({ retail: 0.9, specialty: 0.1 }),
        payers: z
          .array(
            z
              .object({
                bin: z.string().regex(/^\d{6}$/, 'must be a 6-digit BIN'),
                pcn: z.string().min(1).max(10),
                weight: z.number().positive().default(1),
              })
              .strict(),
          )
          .min(1)
          .default([{ bin: '610014', pcn: 'ADV', weight: 1 }]),
        products: z
          .array(z.object({ ndc, weight: z.number().positive().default(1) }).strict())
          .min(1)
          .default([{ ndc: '00002143380', weight: 1 }]),
        /** Share of claims that are a resubmission of an earlier one (the ledger answers). */
        resubmitRate: prob.default(0),
        /**
         * Share of claims that are a pharmacist's correction of an earlier one: the same claim
         * (identity) with another quantity. After a reject it is sent again, under a fresh key.
         */
        correctionRate: prob.default(0),
        /** Share of claims that are a B2 reversal of an earlier claim (its identity and product only). */
        reversalRate: prob.default(0),
        /** Share of claims that are a rebill: the B1 of an earlier reversal, billed again. */
        rebillRate: prob.default(0),
      })
      .strict()
      .refine((t) => t.claims !== undefined || t.durationMs !== undefined, {
        message: 'needs claims or durationMs',
        path: ['claims'],
      }),
    vendor: z
      .object({
        /**
         * The vendor's quota: a fixed `window` (`limit` requests per `windowMs`, reset at each
         * window's end: what X-RateLimit-Reset describes), or a token `bucket`.
         */
        quota: z.discriminatedUnion('kind', [
          z
            .object({
              kind: z.literal('window'),
              limit: z.number().int().positive(),
              windowMs: z.number().positive(),
            })
            .strict(),
          z.object({ kind: z.literal('bucket'), ratePerSecond: rate, burst: z.number().positive() }).strict(),
        ]),
        latency: z
          .object({ medianMs: z.number().positive(), p99Ms: z.number().positive() })
          .strict()
          .default({ medianMs: 40, p99Ms: 250 }),
        /** Token lifetime; absent means the vendor asks for no credentials. */
        tokenTtlSeconds: z.number().positive().optional(),
        retryAfter: z.enum(['seconds', 'http-date']).default('seconds'),
        /** Clinical and coverage rejects by 511-FB code, as a share of adjudications. */
        rejects: z
          .record(z.string().regex(/^[0-9A-Z]{2,3}$/), prob)
          .default({ '70': 0.01, '75': 0.01, '76': 0.005, '79': 0.02, '88': 0.005 }),
        /** BIN/PCN routes this vendor does not serve (answered 404). */
        unknownRoutes: z.array(z.string()).default([]),
        /** NDCs this vendor does not know (answered 404). */
        unknownProducts: z.array(ndc).default([]),
        /** NDCs answered 511-FB 21 (repairable): billed right only as their successor. */
        repairable: z.array(ndc).default([]),
      })
      .strict(),
    nodes: z
      .object({ fallback: z.boolean().default(false), sharedIdempotency: z.boolean().default(false) })
      .strict()
      .default({ fallback: false, sharedIdempotency: false }),
    client: z
      .object({
        limiter: z
          .object({
            ratePerSecond: rate,
            burst: z.number().positive(),
            concurrency: z.number().int().positive().optional(),
          })
          .strict(),
        breaker: z
          .object({
            windowMs: z.number().positive().default(10_000),
            minimumCalls: z.number().int().positive().default(20),
            failureRate: z.number().gt(0).max(1).default(0.5),
            openMs: z.number().positive().default(5_000),
            maxProbes: z.number().int().positive().default(2),
            successesToClose: z.number().int().positive().default(3),
          })
          .strict()
          .default({
            windowMs: 10_000,
            minimumCalls: 20,
            failureRate: 0.5,
            openMs: 5_000,
            maxProbes: 2,
            successesToClose: 3,
          }),
        budgets: z
          .object({
            pos: z.record(z.string(), z.number().positive()).default({ retail: 800, specialty: 1200 }),
            batchMs: z.number().positive().default(3_600_000),
          })
          .strict()
          .default({ pos: { retail: 800, specialty: 1200 }, batchMs: 3_600_000 }),
        readTimeoutMs: z.number().positive().default(3000),
        /** The crosswalk: NDC → { gpi, ndc (successor) }. */
        crosswalk: z
          .record(ndc, z.object({ gpi: z.string().min(1), ndc: ndc.optional() }).strict())
          .default({}),
      })
      .strict(),
    faults: z
      .array(
        z
          .object({
            kind: z.enum(FAULT_KINDS),
            node: z.enum(['primary', 'fallback', 'all']).default('primary'),
            startMs: ms,
            endMs: ms,
            probability: prob.default(1),
          })
          .strict()
          .refine((f) => f.endMs > f.startMs, { message: 'must end after it starts', path: ['endMs'] }),
      )
      .default([]),
    /** k6-style thresholds, e.g. `throttled_rate<0.01`, `pos_p99_ms<800`. */
    thresholds: z
      .array(
        z.string().regex(/^[a-z_0-9]+\s*(<=|>=|<|>|==)\s*-?\d+(\.\d+)?$/, 'must look like metric<number'),
      )
      .default([]),
    /** After the last fault window heals, throughput must be back within this long. */
    liveness: z
      .object({ withinMs: z.number().positive().default(30_000) })
      .strict()
      .default({ withinMs: 30_000 }),
  })
  .strict();

export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Scenario = z.output<typeof scenarioSchema>;
export type FaultWindow = Scenario['faults'][number];

/** A scenario failed validation; `issues` name each bad field by its path. */
export class ScenarioError extends Error {
  readonly code = 'RXGATE_SIM_INVALID_SCENARIO';
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  constructor(source: string, issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) {
    super(`invalid scenario ${source}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'ScenarioError';
    this.issues = issues;
  }
}

export function parseScenario(input: unknown, source = '(inline)'): Scenario {
  const r = scenarioSchema.safeParse(input);
  if (!r.success)
    throw new ScenarioError(
      source,
      r.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', message: i.message })),
    );
  return r.data;
}

/** A short stable hash of a scenario after defaults: the same hash, the same run. */
export function scenarioHash(s: Scenario): string {
  return createHash('sha256').update(canonicalJson(s)).digest('hex').slice(0, 12);
}

function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    // A key holding undefined is no key (as in JSON): a scenario and its file hash the same.
    return `{${Object.keys(v)
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The named scenarios shipped with the package. */
export const SCENARIO_NAMES = [
  'pharmacy-day',
  'steady',
  '429-storm',
  '503-maintenance',
  'primary-outage-failover',
  'ambiguous-commits',
  'credential-expiry',
  'crosswalk-repair',
  'shared-quota',
  'exactly-once',
] as const;

/** Loads a named scenario, or a scenario file by path. */
export async function loadScenario(nameOrPath: string): Promise<Scenario> {
  const named = (SCENARIO_NAMES as readonly string[]).includes(nameOrPath);
  const url = named ? new URL(`../scenarios/${nameOrPath}.json`, import.meta.url) : undefined;
  const source = named ? nameOrPath : nameOrPath;
  let text: string;
  try {
    text = await readFile(url ?? nameOrPath, 'utf8');
  } catch {
    throw new ScenarioError(source, [
      {
        path: '(file)',
        message: `no scenario named "${nameOrPath}" and no such file (try: ${SCENARIO_NAMES.join(', ')})`,
      },
    ]);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ScenarioError(source, [{ path: '(file)', message: `not JSON: ${(e as Error).message}` }]);
  }
  return parseScenario(data, source);
}
