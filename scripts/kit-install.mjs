#!/usr/bin/env node
// `npm run check:kit`: what `@rxgate/simulator/testing` brings into someone else's CI. Packs
// the simulator and every @rxgate package it depends on (router, classifier, breaker, ratelimit,
// core), installs the tarballs in an empty directory with fast-check (the kit's one
// required peer) as a consumer would, counts the packages installed, and runs the kit there:
// a generated scenario, its invariants, and its replay file through the installed rxgate-sim.
// `--count-only` installs and counts only (74 for the tree before the kit's peers); `--keep`
// leaves the directory. Fails when the count reaches LIMIT, or msw or ioredis (optional peers)
// came along.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 15;
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
// --count-only: install and count, run nothing (to count an older tree's install).
const countOnly = process.argv.includes('--count-only');
const fastCheck = JSON.parse(
  readFileSync(join(root, 'node_modules/fast-check/package.json'), 'utf8'),
).version;

// The simulator and the @rxgate packages it depends on, at any depth (what a consumer of the
// kit gets; the other published packages, retry and undici, are not the kit's).
const manifests = new Map(
  readdirSync(join(root, 'packages'))
    .map((dir) => join(root, 'packages', dir))
    .filter((dir) => statSync(join(dir, 'package.json'), { throwIfNoEntry: false }))
    .map((dir) => [JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), dir])
    .filter(([m]) => !m.private)
    .map(([m, dir]) => [m.name, { manifest: m, dir }]),
);
const closure = new Set();
const visit = (name) => {
  if (closure.has(name) || !manifests.has(name)) return;
  closure.add(name);
  for (const dep of Object.keys(manifests.get(name).manifest.dependencies ?? {})) visit(dep);
};
visit('@rxgate/simulator');
const packages = [...closure].map((name) => manifests.get(name).dir);
const work = mkdtempSync(join(tmpdir(), 'rxgate-kit-'));
const tarballs = packages.map((dir) => {
  const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
    cwd: dir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
  });
  return join(work, JSON.parse(stdout.slice(stdout.search(/^\[$/m)))[0].filename);
});

const app = join(work, 'app');
execFileSync('mkdir', ['-p', app]);
writeFileSync(
  join(app, 'package.json'),
  JSON.stringify({ name: 'kit-consumer', private: true, type: 'module' }),
);
execFileSync(
  'npm',
  ['install', '--no-audit', '--no-fund', '--loglevel=error', ...tarballs, `fast-check@${fastCheck}`],
  {
    cwd: app,
    stdio: 'inherit',
  },
);

// Every package directory under node_modules, at any depth (scoped ones counted once each).
const installed = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    if (name.startsWith('@')) {
      walk(path);
      continue;
    }
    if (!statSync(join(path, 'package.json'), { throwIfNoEntry: false })) continue;
    installed.push(JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')).name);
    const nested = join(path, 'node_modules');
    if (statSync(nested, { throwIfNoEntry: false })) walk(nested);
  }
};
walk(join(app, 'node_modules'));
installed.sort();

if (countOnly) {
  console.log(`installed ${installed.length} packages: ${installed.join(', ')}`);
  if (!keep) rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

// The kit in use: a generated scenario in virtual time, its invariants; a broken one's replay file.
writeFileSync(
  join(app, 'kit.mjs'),
  `import fc from 'fast-check';
import { assertInvariants, InvariantError, runScenario, scenarioArbitrary, writeScenarioFile } from '@rxgate/simulator/testing';
const [scenario] = fc.sample(scenarioArbitrary({ maxDurationMs: 4000 }), { seed: 17, numRuns: 1 });
const r = await runScenario(scenario);
assertInvariants(r);
const file = writeScenarioFile(r.scenario, 'generated-scenario.json');
console.log(JSON.stringify({ claims: r.claims, outcomes: r.outcomes, file, isError: typeof InvariantError }));
`,
);
const kit = JSON.parse(execFileSync(process.execPath, ['kit.mjs'], { cwd: app, encoding: 'utf8' }));
// Exit 0 or 1 (the CLI's report also judges liveness and fault reach); 2 would be bad input.
const replay = spawnSync(join(app, 'node_modules/.bin/rxgate-sim'), ['run', kit.file, '--json'], {
  cwd: app,
  encoding: 'utf8',
});
if (replay.status !== 0 && replay.status !== 1)
  throw new Error(`rxgate-sim run ${kit.file}: ${replay.stderr}`);
const replayed = JSON.parse(replay.stdout);

const problems = [];
if (installed.length >= LIMIT)
  problems.push(`${installed.length} packages installed, the limit is under ${LIMIT}`);
for (const optional of ['msw', 'ioredis', '@opentelemetry/sdk-metrics'])
  if (installed.includes(optional)) problems.push(`${optional} (an optional peer) was installed`);
if (replayed.claims !== kit.claims)
  problems.push(`rxgate-sim run ${kit.file}: ${replayed.claims} claims, the kit ran ${kit.claims}`);

console.log(`installed ${installed.length} packages: ${installed.join(', ')}`);
console.log(
  `kit: a generated scenario ran ${kit.claims} claims; rxgate-sim run ${kit.file} ran it again (${replayed.claims})`,
);
if (!keep) rmSync(work, { recursive: true, force: true });
else console.log(`kept ${work}`);
if (problems.length > 0) {
  for (const p of problems) console.error(`check:kit: ${p}`);
  process.exit(1);
}
