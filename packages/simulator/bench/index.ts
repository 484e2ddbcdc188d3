// npm run bench -w @rxgate/simulator — (1) pharmacy-day in virtual time: wall time, simulated
// claims per second, peak RSS; (2) loopback accuracy: real HTTP through undici to the vendor
// model's msw handlers with more offered load than the quota — how close the achieved
// adjudication rate comes to the quota, and how many answers were throttled.
import {
  evaluateThresholds,
  invariantLines,
  loadScenario,
  metricsOf,
  parseScenario,
  type RunResult,
  runScenario,
} from '../dist/index.js';

const days = Number(process.env.DAYS ?? 1);
const loopbackRuns = Number(process.env.LOOPBACK_RUNS ?? 3);
const young =
  process.execArgv.find((a) => a.startsWith('--max-semi-space-size')) ?? 'V8 default semi-space size';
// `npm run bench` starts with --max-semi-space-size=64, as the rxgate-sim bin starts a run.
console.log(`# @rxgate/simulator benchmark (node ${process.version}, ${young})\n`);

console.log('## pharmacy-day, virtual time, full router pipeline, every invariant checked\n');
console.log('| run | claims | simulated | wall | claims/s | invariants | thresholds |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
const day = await loadScenario('pharmacy-day');
for (let i = 0; i < days; i++) {
  const t0 = performance.now();
  const r = await runScenario(day);
  const wall = (performance.now() - t0) / 1000;
  const inv = invariantLines(r);
  const thr = evaluateThresholds(r.scenario.thresholds, metricsOf(r));
  console.log(
    `| ${i + 1} | ${r.claims.toLocaleString('en')} | ${(r.spanMs / 3_600_000).toFixed(1)} h | ${wall.toFixed(1)} s | ${Math.round(r.claims / wall).toLocaleString('en')} | ${inv.filter((x) => x.ok).length}/${inv.length} held | ${thr.filter((x) => x.ok).length}/${thr.length} met |`,
  );
}
console.log(`\npeak RSS of this process: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB\n`);

/**
 * Adjudications per second over the saturated seconds: from the 3rd second (the first holds the
 * burst) to the last full second before the queue ran dry (after the traffic stops, the queue
 * drains at the quota).
 */
function saturatedRate(r: RunResult): { rate: number; seconds: number } {
  const b = r.series.buckets.filter((x) => x.t >= 2000 && x.t + r.series.bucketMs <= r.spanMs - 1000);
  const seconds = (b.length * r.series.bucketMs) / 1000;
  return { rate: b.reduce((a, x) => a + x.adjudicated, 0) / seconds, seconds };
}

const offered = 25;
const quota = 10;
const steady = await loadScenario('steady');
const saturated = parseScenario({
  ...steady,
  name: 'loopback-saturated',
  traffic: { ...steady.traffic, durationMs: 20_000, ratePerSecond: offered, lanes: { pos: 0, batch: 1 } },
});
console.log(
  `## loopback: ${offered}/s offered against ${quota} per 1 s window, batch lane, 20 s of traffic\n`,
);
console.log('| seed | achieved over the saturated seconds | of the quota | throttled answers |');
console.log('| --- | --- | --- | --- |');
for (let i = 0; i < loopbackRuns; i++) {
  const seed = saturated.seed + i;
  const r = await runScenario({ ...saturated, seed }, { mode: 'loopback' });
  const { rate, seconds } = saturatedRate(r);
  console.log(
    `| ${seed} | ${rate.toFixed(2)}/s over ${seconds} s | ${((rate / quota) * 100).toFixed(1)} % | ${r.throttledAnswers} of ${r.attempts} (${((r.throttledAnswers / Math.max(1, r.attempts)) * 100).toFixed(2)} %) |`,
  );
}

// (3) The same saturation against other vendors, in virtual time (deterministic): where the
// limiter's reading of X-RateLimit-Remaining/Reset as a window's budget fits, and where not.
console.log('\n## other vendors, virtual time: 30 s of traffic, batch lane\n');
console.log('| vendor | offered | achieved of the quota | throttled answers |');
console.log('| --- | --- | --- | --- |');
const others: Array<[string, Record<string, unknown>, Record<string, unknown>, number]> = [
  ['1 s window of 10', { kind: 'window', limit: 10, windowMs: 1000 }, { medianMs: 40, p99Ms: 250 }, 25],
  ['1 s window of 10', { kind: 'window', limit: 10, windowMs: 1000 }, { medianMs: 40, p99Ms: 250 }, 15],
  ['10 s window of 100', { kind: 'window', limit: 100, windowMs: 10_000 }, { medianMs: 40, p99Ms: 250 }, 25],
  [
    '1 s window of 10, slow (median 120 ms, p99 600 ms)',
    { kind: 'window', limit: 10, windowMs: 1000 },
    { medianMs: 120, p99Ms: 600 },
    25,
  ],
  [
    'token bucket 10/s, burst 10 (reset = time to full)',
    { kind: 'bucket', ratePerSecond: 10, burst: 10 },
    { medianMs: 40, p99Ms: 250 },
    25,
  ],
];
for (const [name, q, latency, rate] of others) {
  const s = parseScenario({
    ...steady,
    vendor: { ...steady.vendor, quota: q, latency },
    traffic: { ...steady.traffic, durationMs: 30_000, ratePerSecond: rate, lanes: { pos: 0, batch: 1 } },
  });
  const r = await runScenario(s);
  const got = saturatedRate(r).rate;
  console.log(
    `| ${name} | ${rate}/s | ${((got / quota) * 100).toFixed(1)} % | ${r.throttledAnswers} of ${r.attempts} |`,
  );
}
