// node --import tsx bench/zoo-heldout.ts (from packages/simulator) — the zoo on vendors its table does not show,
// to check the limiter was built to how vendors behave and not to the zoo's 20/s and 1 s:
// another quota (7/s), a 10 s window of 100, a 60 s window of 600, round trips of p50 300 ms
// (p99 1.5 s). Virtual time, slow round trips (p50 120 ms) unless told, 1.5x and 3x load, the
// limiter configured at half the quota and at twice it (worst shown); a vendor without headers
// at twice it, beside the AWS reference. And a model the table does not have: a sliding counter
// whose X-RateLimit-Reset is the time until one more request fits (0 while there is room; its
// other header styles say what the zoo's sliding counter says). And a gateway of two quotas at
// once (twice the rate a second, and the rate over the window or a minute: Kong's `second` and
// `minute`), reporting the one with the least left, also with Kong's own headers (`kong`).
// SEED=n, HEADERS=..., ONLY=<config name part>, MODELS=<model,...>.
import { table } from '@rxgate/testkit';
import { QUOTA_MODELS, type QuotaModelName } from '../src/zoo/quota-models.js';
import { HEADER_STYLES, throttleStylesOf } from '../src/zoo/vendor-headers.js';
import { type LatencyProfile, runZoo, type ZooClient } from '../src/zoo/zoo-run.js';
import {
  beatsOrMatches,
  beatsStrictly,
  type Cell,
  cellOf,
  meetsHeaderGoal,
  meetsQuietGoal,
  showCell,
} from './zoo-cells.js';

interface HeldOut {
  readonly name: string;
  readonly ratePerSecond: number;
  readonly windowMs: number;
  readonly latency: LatencyProfile;
  /** Long enough for ten windows measured, after a warm-up of a window (10 s at least). */
  readonly warmupMs: number;
  readonly durationMs: number;
}

const CONFIGS: readonly HeldOut[] = [
  {
    name: '7/s, 1 s window, slow',
    ratePerSecond: 7,
    windowMs: 1000,
    latency: 'slow',
    warmupMs: 10_000,
    durationMs: 70_000,
  },
  {
    name: '100 per 10 s, slow',
    ratePerSecond: 10,
    windowMs: 10_000,
    latency: 'slow',
    warmupMs: 20_000,
    durationMs: 140_000,
  },
  {
    name: '600 per 60 s, slow',
    ratePerSecond: 10,
    windowMs: 60_000,
    latency: 'slow',
    warmupMs: 60_000,
    durationMs: 660_000,
  },
  {
    name: '20/s, 1 s window, p50 300 ms',
    ratePerSecond: 20,
    windowMs: 1000,
    latency: 'slower',
    warmupMs: 10_000,
    durationMs: 70_000,
  },
];

const seed = Number(process.env.SEED ?? 1);
const onlyHeaders = process.env.HEADERS?.split(',');
const only = process.env.ONLY;
const onlyModels = process.env.MODELS?.split(',');
const loads = [1.5, 3] as const;

const t0 = performance.now();
const totals: string[] = [];
for (const config of CONFIGS) {
  if (only !== undefined && !config.name.includes(only)) continue;
  const q = config.ratePerSecond;
  const headerClients: readonly ZooClient[] = [
    { kind: 'rxgate', ratePerSecond: q / 2, burst: Math.max(1, q / 2) },
    { kind: 'rxgate', ratePerSecond: 2 * q, burst: q },
  ];
  const quietClients: readonly ZooClient[] = [{ kind: 'rxgate', ratePerSecond: 2 * q, burst: q }];
  const rows: string[][] = [];
  let headerCells = 0;
  let headerMet = 0;
  let quietCells = 0;
  let quietMet = 0;
  let strict = 0;
  let lenient = 0;
  let deadLettered = 0;
  for (const model of [
    ...QUOTA_MODELS,
    'sliding-counter-next-fit',
    'two-tier',
  ] as const satisfies readonly QuotaModelName[]) {
    // A gateway of two quotas also speaks as Kong does (each quota's window by its name).
    for (const headers of model === 'two-tier' ? ([...HEADER_STYLES, 'kong'] as const) : HEADER_STYLES) {
      if (onlyHeaders !== undefined && !onlyHeaders.includes(headers)) continue;
      if (onlyModels !== undefined && !onlyModels.includes(model)) continue;
      if (model === 'sliding-counter-next-fit' && headers !== 'x-ratelimit') continue;
      for (const throttle of throttleStylesOf(headers)) {
        if (throttle === '503-date') continue; // read as 429-seconds by the limiter: the same cells
        const quiet = headers === 'none';
        const vendor = { model, headers, throttle, ratePerSecond: q, windowMs: config.windowMs };
        const run = (client: ZooClient, load: number) =>
          runZoo({
            vendor,
            client,
            load,
            latency: config.latency,
            seed,
            warmupMs: config.warmupMs,
            durationMs: config.durationMs,
          });
        const ours: Cell[] = [];
        const aws: Cell[] = [];
        for (const load of loads) {
          const rs = [];
          for (const client of quiet ? quietClients : headerClients) rs.push(await run(client, load));
          const c = cellOf(rs);
          ours.push(c);
          deadLettered += c.deadLettered;
          if (quiet) {
            const a = cellOf([await run({ kind: 'aws-adaptive' }, load)]);
            aws.push(a);
            quietCells++;
            if (meetsQuietGoal(c)) quietMet++;
            if (beatsStrictly(c, a)) strict++;
            if (beatsOrMatches(c, a)) lenient++;
          } else {
            headerCells++;
            if (meetsHeaderGoal(c)) headerMet++;
          }
        }
        rows.push([
          `${model} / ${headers} / ${throttle}`,
          quiet ? 'rxgate (limit 2x)' : 'rxgate (limit 0.5x and 2x, worst)',
          ...ours.map(showCell),
        ]);
        if (quiet) rows.push(['', 'AWS SDK adaptive (reference)', ...aws.map(showCell)]);
      }
    }
  }
  console.log(
    `\n## ${config.name} (seed ${seed}; measured from ${config.warmupMs / 1000} s to ${config.durationMs / 1000} s)\n`,
  );
  console.log(table(['vendor (model / headers / throttle)', 'client', ...loads.map((l) => `${l}x`)], rows));
  const line =
    `${config.name}: with headers ${headerMet}/${headerCells} at >= 98 % / <= 0.5 %; ` +
    `without ${quietMet}/${quietCells} at >= 90 % / <= 3 %, above AWS ${strict}/${quietCells} strictly ` +
    `(${lenient}/${quietCells} counting no less goodput with fewer throttled); dead-lettered ${deadLettered}`;
  totals.push(line);
}
console.log(`\n${totals.join('\n')}`);
console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
