// npm run bench:zoo -w @rxgate/simulator — the vendor zoo in virtual time: every quota model,
// header style and throttle style, at 1.5x and 3x the quota, fast and slow latency, against
// the rxgate limiter fed by @rxgate/classifier's quota signals (as the router feeds it), and,
// for vendors that send no quota header, the AWS SDKs' adaptive mode (CUBIC) side by side.
// SEED=n picks another seed; HEADERS=remaining-only,none runs only those header styles, MODELS=gcra,… those models;
// WAY_THERE=half: the vendor counts each request half a round trip after it left (a symmetric path), not 1-3 ms.
import { table } from '@rxgate/testkit';
import { QUOTA_MODELS } from '../src/zoo/quota-models.js';
import { HEADER_STYLES, throttleStylesOf } from '../src/zoo/vendor-headers.js';
import { type LatencyProfile, runZoo, type ZooClient, type ZooRunResult } from '../src/zoo/zoo-run.js';
import { beatsOrMatches, beatsStrictly } from './zoo-cells.js';

const seed = Number(process.env.SEED ?? 1);
const wayThere = process.env.WAY_THERE === 'half' ? ('half' as const) : ('short' as const);
const onlyHeaders = process.env.HEADERS?.split(',');
const onlyModels = process.env.MODELS?.split(',');
const loads = [1.5, 3] as const;
const latencies: readonly LatencyProfile[] = ['fast', 'slow'];
// A user who does not know the quota (20/s): half of it, or twice it. A vendor that sends no
// quota header cannot say more is allowed, so there the limiter is configured above it.
const headerClients: readonly ZooClient[] = [
  { kind: 'rxgate', ratePerSecond: 10, burst: 10 },
  { kind: 'rxgate', ratePerSecond: 40, burst: 20 },
];
const quietClients: readonly ZooClient[] = [{ kind: 'rxgate', ratePerSecond: 40, burst: 20 }];

interface Cell {
  goodput: number;
  throttled: number;
  deadLettered: number;
}

const cell = (rs: readonly ZooRunResult[]): Cell => ({
  goodput: Math.min(...rs.map((r) => r.goodputPct)),
  throttled: Math.max(...rs.map((r) => r.throttledPct)),
  deadLettered: rs.reduce((a, r) => a + r.deadLettered, 0),
});
const show = (c: Cell): string =>
  `${c.goodput.toFixed(1)} / ${c.throttled.toFixed(2)}${c.deadLettered > 0 ? ` (${c.deadLettered} DL)` : ''}`;

const t0 = performance.now();
const header = [
  'vendor (model / headers / throttle)',
  'client',
  ...loads.flatMap((l) => latencies.map((lat) => `${l}x ${lat}`)),
];
const rows: string[][] = [];
let headerCells = 0;
let headerMet = 0;
let quietCells = 0;
let quietMet = 0;
let beatAws = 0;
let matchAws = 0;
let deadLettered = 0;
for (const model of QUOTA_MODELS) {
  if (onlyModels !== undefined && !onlyModels.includes(model)) continue;
  for (const headers of HEADER_STYLES) {
    if (onlyHeaders !== undefined && !onlyHeaders.includes(headers)) continue;
    for (const throttle of throttleStylesOf(headers)) {
      const quiet = headers === 'none';
      const vendor = { model, headers, throttle };
      const ours: Cell[] = [];
      const aws: Cell[] = [];
      for (const load of loads) {
        for (const latency of latencies) {
          const rs: ZooRunResult[] = [];
          for (const client of quiet ? quietClients : headerClients)
            rs.push(await runZoo({ vendor, client, load, latency, seed, wayThere }));
          const c = cell(rs);
          ours.push(c);
          deadLettered += c.deadLettered;
          if (quiet) {
            const a = cell([
              await runZoo({ vendor, client: { kind: 'aws-adaptive' }, load, latency, seed, wayThere }),
            ]);
            aws.push(a);
            quietCells++;
            if (c.goodput >= 90 && c.throttled <= 3) quietMet++;
            if (beatsStrictly(c, a)) beatAws++;
            if (beatsOrMatches(c, a)) matchAws++;
          } else {
            headerCells++;
            if (c.goodput >= 98 && c.throttled <= 0.5) headerMet++;
          }
        }
      }
      rows.push([
        `${model} / ${headers} / ${throttle}`,
        quiet ? 'rxgate (limit 40)' : 'rxgate (limit 10 and 40, worst)',
        ...ours.map(show),
      ]);
      if (quiet) rows.push(['', 'AWS SDK adaptive (reference)', ...aws.map(show)]);
    }
  }
}
console.log(
  `# vendor zoo, virtual time (seed ${seed}${wayThere === 'half' ? ', the way there half of each round trip' : ''}, node ${process.version})\n`,
);
console.log('Each cell: goodput (% of the quota) / throttled (% of the requests the vendor received),');
console.log(
  'from 10 s to 70 s of virtual time; "DL": claims with budget left dead-lettered by the limiter.\n',
);
console.log(table(header, rows));
// Per-payer sub-quotas: the account's 20/s ("default") and 5/s for payer A ("per-payer"),
// IETF headers, one claim in three for A: at most 5/s for A and 15/s for B, 100 %.
const payerRows: string[][] = [];
let payerCells = 0;
let payerMet = 0;
for (const model of QUOTA_MODELS) {
  for (const payerPolicy of ['payer', 'account'] as const) {
    const cells: string[] = [];
    for (const load of loads) {
      for (const latency of latencies) {
        const rs: ZooRunResult[] = [];
        for (const client of headerClients)
          rs.push(
            await runZoo({
              vendor: { model, headers: 'ietf', throttle: '429-seconds', payerQuotaPerSecond: 5 },
              client: { ...(client as ZooClient & { kind: 'rxgate' }), payerPolicy },
              load,
              latency,
              seed,
              wayThere,
            }),
          );
        const c = cell(rs);
        if (payerPolicy === 'payer') {
          payerCells++;
          deadLettered += c.deadLettered;
          if (c.goodput >= 98 && c.throttled <= 0.5) payerMet++;
        }
        cells.push(show(c));
      }
    }
    payerRows.push([
      payerPolicy === 'payer' ? `${model} / ietf + "per-payer" 5/s / 429-seconds` : '',
      payerPolicy === 'payer'
        ? 'rxgate, "per-payer" at the payer key (limit 10 and 40, worst)'
        : 'rxgate, every signal at the account (the router before)',
      ...cells,
    ]);
  }
}
console.log('\nPer-payer sub-quotas (account 20/s, payer A 5/s; one claim in three for A):\n');
console.log(table(header, payerRows));

console.log(
  `\nvendors with quota headers: ${headerMet}/${headerCells} cells at >= 98 % goodput and <= 0.5 % throttled`,
);
console.log(
  `vendors without: ${quietMet}/${quietCells} cells at >= 90 % and <= 3 %; ${beatAws}/${quietCells} above the AWS reference strictly (more goodput, as shown), ${matchAws}/${quietCells} counting no less goodput with fewer throttled`,
);
console.log(
  `per-payer sub-quotas: ${payerMet}/${payerCells} cells at >= 98 % and <= 0.5 % (observed at the payer key)`,
);
console.log(`claims with budget left dead-lettered by the limiter: ${deadLettered}`);
console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s)`);
