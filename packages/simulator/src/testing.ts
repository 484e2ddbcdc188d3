// @rxgate/simulator/testing — fast-check arbitraries and invariant checks for your own CI.
import { mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { buildReport } from './report.js';
import { type RunOptions, type RunResult, runScenario as run } from './runner.js';
import { FAULT_KINDS, parseScenario, type Scenario, type ScenarioInput, scenarioHash } from './scenario.js';

const digits = (n: number) => fc.stringMatching(new RegExp(`^[0-9]{${n}}$`));

/** Valid wire-form claims (the vendor contract's fields). */
export const validClaimArbitrary = (): fc.Arbitrary<Record<string, unknown>> =>
  fc.record({
    '103-A3': fc.constant('B1'),
    '101-A1': digits(6),
    '104-A4': fc.stringMatching(/^[A-Z]{2,8}$/),
    '302-C2': fc.stringMatching(/^[A-Z]{2}[0-9]{7,12}$/),
    '310-CA': fc.stringMatching(/^[A-Z]{2,12}$/),
    '201-B1': digits(10),
    '402-D2': fc.stringMatching(/^[0-9]{1,12}$/),
    '403-D3': fc.integer({ min: 0, max: 99 }),
    '407-D7': digits(11),
    '442-E7': fc
      .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 999 }))
      .map(([a, b]) => `${a}.${String(b).padStart(3, '0')}`),
    '405-D5': fc.integer({ min: 1, max: 365 }),
    '401-D1': fc
      .date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10).replaceAll('-', '')),
    '409-D9': fc
      .tuple(fc.integer({ min: 0, max: 99999 }), fc.integer({ min: 0, max: 99 }))
      .map(([a, b]) => `${a}.${String(b).padStart(2, '0')}`),
  });

/** Claims with at least one bad field, and the codes of the fields made bad. */
export const invalidClaimArbitrary = (): fc.Arbitrary<{
  claim: Record<string, unknown>;
  badFields: string[];
}> =>
  fc
    .tuple(
      validClaimArbitrary(),
      fc.subarray(
        [
          ['101-A1', '12345'],
          ['407-D7', 'not-an-ndc'],
          ['442-E7', 30],
          ['409-D9', 12.34],
          ['401-D1', '20261340'],
          ['403-D3', -1],
          ['201-B1', '12345'],
          ['103-A3', 'ZZ'],
        ] as Array<[string, unknown]>,
        { minLength: 1 },
      ),
    )
    .map(([claim, bad]) => ({
      claim: { ...claim, ...Object.fromEntries(bad) },
      badFields: bad.map(([f]) => f),
    }));

/** A vendor's behaviour: quota, latency, credentials, reject mix. */
export const vendorArbitrary = () =>
  fc.record({
    quota: fc.record({
      kind: fc.constant('window' as const),
      limit: fc.integer({ min: 3, max: 30 }),
      windowMs: fc.constantFrom(1000, 2000, 5000),
    }),
    latency: fc.integer({ min: 5, max: 120 }).chain((medianMs) =>
      fc.record({
        medianMs: fc.constant(medianMs),
        p99Ms: fc.integer({ min: medianMs + 1, max: medianMs * 8 }),
      }),
    ),
    tokenTtlSeconds: fc.option(fc.integer({ min: 5, max: 600 }), { nil: undefined }),
    retryAfter: fc.constantFrom('seconds' as const, 'http-date' as const),
    rejects: fc.record({
      '70': fc.double({ min: 0, max: 0.05, noNaN: true }),
      '79': fc.double({ min: 0, max: 0.05, noNaN: true }),
    }),
  });

/** A fault schedule within `durationMs`. */
export const faultScheduleArbitrary = (durationMs: number) =>
  fc.array(
    fc
      .record({
        kind: fc.constantFrom(...FAULT_KINDS),
        node: fc.constantFrom('primary' as const, 'fallback' as const, 'all' as const),
        startMs: fc.integer({ min: 0, max: Math.max(1, durationMs - 1000) }),
        lengthMs: fc.integer({ min: 500, max: Math.max(501, Math.floor(durationMs / 2)) }),
        probability: fc.double({ min: 0.05, max: 1, noNaN: true }),
      })
      .map(({ lengthMs, ...f }) => ({ ...f, endMs: f.startMs + lengthMs })),
    { maxLength: 4 },
  );

/** Whole scenarios: traffic, vendor, nodes, client and a fault schedule (small enough for CI). */
export const scenarioArbitrary = (o: { maxDurationMs?: number } = {}): fc.Arbitrary<Scenario> =>
  fc.integer({ min: 2000, max: o.maxDurationMs ?? 20_000 }).chain((durationMs) =>
    fc
      .record({
        seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        rate: fc.double({ min: 0.5, max: 12, noNaN: true }),
        pos: fc.double({ min: 0, max: 1, noNaN: true }),
        vendor: vendorArbitrary(),
        fallback: fc.boolean(),
        sharedIdempotency: fc.boolean(),
        limiterRate: fc.integer({ min: 2, max: 25 }),
        burst: fc.integer({ min: 1, max: 10 }),
        readTimeoutMs: fc.integer({ min: 100, max: 3000 }),
        faults: faultScheduleArbitrary(durationMs),
        resubmitRate: fc.constantFrom(0, 0, 0.05),
      })
      .map((x) => {
        const input: ScenarioInput = {
          name: 'generated',
          seed: x.seed,
          traffic: {
            durationMs,
            ratePerSecond: x.rate,
            lanes: { pos: x.pos, batch: 1 - x.pos + 0.0001 },
            payers: [
              { bin: '610014', pcn: 'ADV', weight: 3 },
              { bin: '004336', pcn: 'MEDD', weight: 1 },
            ],
            resubmitRate: x.resubmitRate,
          },
          vendor: {
            ...x.vendor,
            ...(x.vendor.tokenTtlSeconds === undefined ? {} : { tokenTtlSeconds: x.vendor.tokenTtlSeconds }),
          },
          nodes: { fallback: x.fallback, sharedIdempotency: x.sharedIdempotency },
          client: {
            limiter: { ratePerSecond: x.limiterRate, burst: x.burst },
            readTimeoutMs: x.readTimeoutMs,
            budgets: { pos: { retail: 800, specialty: 1200 }, batchMs: 60_000 },
          },
          faults: x.faults,
        };
        return parseScenario(input, 'generated');
      }),
  );

/** Runs a scenario in virtual time (deterministic: the same scenario and seed, the same run). */
export function runScenario(
  scenario: Scenario,
  options: { readonly seed?: number } & RunOptions = {},
): Promise<RunResult> {
  const { seed, ...rest } = options;
  return run(seed === undefined ? scenario : { ...scenario, seed }, { mode: 'virtual', ...rest });
}

/**
 * Writes `scenario` (seed included) as JSON for `rxgate-sim run <file>` and returns the path.
 * @default path `<os.tmpdir()>/rxgate-sim/<name>-<scenario hash>.json`
 */
export function writeScenarioFile(scenario: Scenario, path?: string): string {
  const file = path ?? join(tmpdir(), 'rxgate-sim', `${scenario.name}-${scenarioHash(scenario)}.json`);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(scenario, null, 2)}\n`);
  return file;
}

/** Thrown by {@link assertInvariants}: what broke, and the command that runs it again. */
export class InvariantError extends Error {
  /** `npx rxgate-sim run <file>  # scenario hash …`: the same run, byte for byte. */
  readonly replay: string;
  /** The scenario as a file `rxgate-sim run` (and `replay`'s scenario argument) takes. */
  readonly scenarioFile: string;
  readonly broken: readonly string[];
  constructor(broken: readonly string[], replay: string, scenarioFile: string, scenario: Scenario) {
    super(
      `rxgate invariants broken: ${broken.join('; ')}\nreplay: ${replay}\nscenario: ${JSON.stringify(scenario)}`,
    );
    this.name = 'InvariantError';
    this.broken = broken;
    this.replay = replay;
    this.scenarioFile = scenarioFile;
  }
}

/**
 * Throws when a safety invariant broke: a claim paid twice, a claim without exactly one
 * outcome, PHI in any log line, event or audit record, the half-open probe bound, a pos
 * deadline. The scenario is written to a file (`scenarioFile`, else see {@link writeScenarioFile})
 * and the error's `replay` runs it again: `npx rxgate-sim run <file>`.
 * `{ liveness: true, reachability: true }` also require throughput to return after the faults
 * and every fault window to have fired.
 */
export function assertInvariants(
  r: RunResult,
  o: { readonly liveness?: boolean; readonly reachability?: boolean; readonly scenarioFile?: string } = {},
): void {
  const lines = buildReport(r).invariants.filter((i) => {
    if (i.name.startsWith('liveness')) return o.liveness === true;
    if (i.name.startsWith('every fault')) return o.reachability === true;
    return true;
  });
  const broken = lines.filter((i) => !i.ok).map((i) => `${i.name}: ${i.detail}`);
  if (broken.length === 0) return;
  const file = writeScenarioFile(r.scenario, o.scenarioFile);
  const arg = /^[\w./:-]+$/.test(file) ? file : JSON.stringify(file);
  throw new InvariantError(broken, `npx rxgate-sim run ${arg}  # scenario hash ${r.hash}`, file, r.scenario);
}
