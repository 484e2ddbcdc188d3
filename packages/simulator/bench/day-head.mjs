// The first N claims of pharmacy-day through runScenario, from the built simulator of any
// checkout (the release's included): wall and CPU time on stdout. Plain JavaScript, so that a
// run under callgrind counts the simulator and not a TypeScript loader. From the repository
// root:
//
//   node --max-semi-space-size=64 packages/simulator/bench/day-head.mjs <root> 50000
//
// Instructions a claim, repeatable whatever else the machine is doing (the difference of two
// lengths, so start-up cancels out; V8's --predictable runs GC on this thread and in a fixed
// order). Whether a mark-compact lands between the two lengths moves the figure by about
// ±20,000: to compare two builds, add --initial-old-space-size=2000 to both, which keeps it out.
//
//   for n in 5000 15000; do valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.$n \
//     node --predictable --max-semi-space-size=64 packages/simulator/bench/day-head.mjs <root> $n; done
//   # (I(15000) - I(5000)) / 10000, I = "Collected" in valgrind's output
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [rootArg = '.', nArg = '50000'] = process.argv.slice(2);
const n = Number(nArg);
if (!Number.isInteger(n) || n <= 0) throw new Error(`claims: a positive integer, not ${nArg}`);
const entry = pathToFileURL(resolve(rootArg, 'packages/simulator/dist/index.js')).href;
const sim = await import(entry);
const day = await sim.loadScenario('pharmacy-day');
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const r = await sim.runScenario({ ...day, traffic: { ...day.traffic, claims: n } });
const cpu = process.cpuUsage(cpu0);
const wallMs = performance.now() - t0;
console.log(
  JSON.stringify({
    root: rootArg,
    claims: n,
    wallMs: Math.round(wallMs),
    userMs: Math.round(cpu.user / 1000),
    systemMs: Math.round(cpu.system / 1000),
    rssMb: Math.round(process.memoryUsage().rss / 1e6),
    outcomes: r.outcomes,
  }),
);
