// npm run bench:zoo:loopback -w @rxgate/simulator — the vendor zoo over real HTTP on loopback:
// each vendor served by node:http with real timers, the rxgate limiter sending through the
// router's undici transport and reading answers with @rxgate/classifier. Bounded: each run
// sends load x rate x 10 claims (10 s), a few runs at once. The quota is 50/s here (the
// virtual zoo's 20/s would take minutes). One throttle style per header style.
// SEED=n, HEADERS=..., MODELS=... (comma-separated), CONCURRENCY=n (default 6), RATE=n (default 50); RUN_SECONDS=n (default 10)
// and WARMUP_SHARE=x (default 0.3): each run's length and the share of it not measured (the
// virtual zoo's 70 s measured from 10 s: RUN_SECONDS=70 WARMUP_SHARE=0.143). VENDOR_THREAD=own: each vendor on a
// worker thread of its own, not on the client's (see runZooLoopback's vendorThread).
import { table } from '@rxgate/testkit';
import { QUOTA_MODELS } from '../src/zoo/quota-models.js';
import type { HeaderStyle, ThrottleStyle } from '../src/zoo/vendor-headers.js';
import { HEADER_STYLES } from '../src/zoo/vendor-headers.js';
import { runZooLoopback } from '../src/zoo/zoo-loopback.js';
import type { LatencyProfile, ZooRunResult } from '../src/zoo/zoo-run.js';

const seed = Number(process.env.SEED ?? 1);
const rate = Number(process.env.RATE ?? 50);
const concurrency = Number(process.env.CONCURRENCY ?? 6);
const seconds = Number(process.env.RUN_SECONDS ?? 10);
const warmupShare = Number(process.env.WARMUP_SHARE ?? 0.3);
const onlyHeaders = process.env.HEADERS?.split(',');
const onlyModels = process.env.MODELS?.split(',');
const vendorThread = process.env.VENDOR_THREAD === 'own' ? 'own-thread' : 'client-thread';
const loads = [1.5, 3] as const;
const latencies: readonly LatencyProfile[] = ['fast', 'slow'];
const throttleOf = (h: HeaderStyle): ThrottleStyle => (h === 'none' ? '429' : '429-seconds');
// Half the quota or twice it; a vendor with no header only twice it (nothing says more is allowed).
const clientsOf = (h: HeaderStyle) =>
  h === 'none'
    ? [{ rateShare: 2, burstShare: 1 }]
    : [
        { rateShare: 0.5, burstShare: 0.5 },
        { rateShare: 2, burstShare: 1 },
      ];

interface Job {
  readonly row: number;
  readonly col: number;
  readonly run: () => Promise<ZooRunResult>;
}
const rows: { label: string; headers: HeaderStyle; cells: ZooRunResult[][] }[] = [];
const jobs: Job[] = [];
for (const model of QUOTA_MODELS) {
  if (onlyModels !== undefined && !onlyModels.includes(model)) continue;
  for (const headers of HEADER_STYLES) {
    if (onlyHeaders !== undefined && !onlyHeaders.includes(headers)) continue;
    const throttle = throttleOf(headers);
    const row = rows.length;
    rows.push({ label: `${model} / ${headers} / ${throttle}`, headers, cells: [] });
    let col = 0;
    for (const load of loads) {
      for (const latency of latencies) {
        const c = col++;
        rows[row]!.cells[c] = [];
        for (const configured of clientsOf(headers))
          jobs.push({
            row,
            col: c,
            run: () =>
              runZooLoopback({
                vendor: { model, headers, throttle },
                configured,
                load,
                latency,
                ratePerSecond: rate,
                claims: Math.round(load * rate * seconds),
                warmupShare,
                seed,
                vendorThread,
              }),
          });
      }
    }
  }
}

const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      rows[job.row]!.cells[job.col]!.push(await job.run());
    }
  }),
);

let headerCells = 0;
let headerMet = 0;
let quietCells = 0;
let quietMet = 0;
let deadLettered = 0;
const out = rows.map((r) => [
  r.label,
  r.headers === 'none' ? 'rxgate (limit 2x)' : 'rxgate (limit 0.5x and 2x, worst)',
  ...r.cells.map((rs) => {
    const goodput = Math.min(...rs.map((x) => x.goodputPct));
    const throttled = Math.max(...rs.map((x) => x.throttledPct));
    const dl = rs.reduce((a, x) => a + x.deadLettered, 0);
    deadLettered += dl;
    if (r.headers === 'none') {
      quietCells++;
      if (goodput >= 90 && throttled <= 3) quietMet++;
    } else {
      headerCells++;
      if (goodput >= 95 && throttled <= 1) headerMet++;
    }
    return `${goodput.toFixed(1)} / ${throttled.toFixed(2)}${dl > 0 ? ` (${dl} DL)` : ''}`;
  }),
]);
console.log(
  `# vendor zoo over loopback HTTP (quota ${rate}/s, seed ${seed}, vendors on the ${vendorThread === 'own-thread' ? 'threads of their own' : "client's thread"}, node ${process.version})\n`,
);
console.log('Each cell: goodput (% of the quota) / throttled (% of the requests the vendor received),');
console.log(
  `runs of ${seconds} s measured after their first ${(warmupShare * seconds).toFixed(1)} s; "DL": claims with budget left dead-lettered by the limiter.\n`,
);
console.log(
  table(
    [
      'vendor (model / headers / throttle)',
      'client',
      ...loads.flatMap((l) => latencies.map((lat) => `${l}x ${lat}`)),
    ],
    out,
  ),
);
console.log(
  `\nvendors with quota headers: ${headerMet}/${headerCells} cells at >= 95 % goodput and <= 1 % throttled`,
);
console.log(`vendors without: ${quietMet}/${quietCells} cells at >= 90 % and <= 3 %`);
console.log(`claims with budget left dead-lettered by the limiter: ${deadLettered}`);
console.log(`(${jobs.length} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
