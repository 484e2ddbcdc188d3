#!/usr/bin/env node
// `npm run mutation [-- --recheck] [package…]`: StrykerJS over the policies' pure cores, one
// package at a time with one test process (CPU heavy: a separate script, not part of `npm test`
// or CI), then the score per package. Stryker's command runner runs each package's test files
// (its stryker.config.json names them) in one process per mutant (scripts/mutation-tests.mjs).
//
// --recheck: runs only the mutants the last full run left alive (Stryker mutation ranges over
// their lines) and merges the answers into that run's result. Sound while the source is as it
// was and tests were only added: a mutant killed before is killed still. Run it to check new
// tests in minutes; the README quotes the full run's result and says when a recheck followed.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const GOALS = { classifier: 90, breaker: 90, router: 90, ratelimit: 80 };
const args = process.argv.slice(2);
const recheck = args.includes('--recheck');
const asked = args.filter((a) => !a.startsWith('--'));
const packages = asked.length > 0 ? asked : Object.keys(GOALS);
const lines = [];
let short = false;

const key = (path, m) =>
  `${path}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${String(
    m.replacement ?? '',
  )
    .replace(/\s+/g, ' ')
    .slice(0, 80)}`;
const alive = (m) => m.status === 'Survived' || m.status === 'NoCoverage';

for (const name of packages) {
  const dir = join('packages', name);
  const reportPath = join(dir, 'reports/mutation/mutation.json');
  const fullPath = join(dir, 'reports/mutation/full.json');
  // A fixed fast-check seed: a mutant is killed or not the same way every run.
  const env = { ...process.env, FC_SEED: process.env.FC_SEED ?? '20261130' };
  let previous;
  const stryker = ['stryker', 'run'];
  if (recheck) {
    if (!existsSync(fullPath)) {
      lines.push(`${name}: no full run to recheck (run without --recheck first)`);
      short = true;
      continue;
    }
    previous = JSON.parse(readFileSync(fullPath, 'utf8'));
    const ranges = new Set();
    for (const [path, file] of Object.entries(previous.files))
      for (const m of file.mutants)
        if (alive(m)) ranges.add(`${path}:${m.location.start.line}-${m.location.end.line}`);
    if (ranges.size === 0) {
      lines.push(`${name}: nothing alive to recheck`);
      continue;
    }
    stryker.push('--mutate', [...ranges].join(','));
  }
  const started = Date.now();
  const run = spawnSync('npx', stryker, { cwd: dir, stdio: 'inherit', env });
  const minutes = ((Date.now() - started) / 60_000).toFixed(1);
  if (run.status !== 0) {
    lines.push(`${name}: stryker failed (exit ${run.status})`);
    short = true;
    continue;
  }
  let report = JSON.parse(readFileSync(reportPath, 'utf8'));
  if (previous) {
    // The recheck's answer for each mutant it ran, by file, place, mutator and replacement.
    const now = new Map();
    for (const [path, file] of Object.entries(report.files))
      for (const m of file.mutants) now.set(key(path, m), m.status);
    for (const [path, file] of Object.entries(previous.files))
      for (const m of file.mutants) if (alive(m) && now.has(key(path, m))) m.status = now.get(key(path, m));
    report = previous;
  }
  writeFileSync(fullPath, JSON.stringify(report));

  const count = {};
  const survivors = [];
  for (const [path, file] of Object.entries(report.files))
    for (const m of file.mutants) {
      count[m.status] = (count[m.status] ?? 0) + 1;
      if (alive(m)) survivors.push(key(path, m));
    }
  // The checked-in list: each survivor has a test, or a one-line reason after " # " (kept across runs).
  const listPath = join(dir, 'mutation-survivors.txt');
  const reasons = new Map();
  if (existsSync(listPath))
    for (const line of readFileSync(listPath, 'utf8').split('\n')) {
      const i = line.indexOf(' # ');
      if (i > 0) reasons.set(line.slice(0, i), line.slice(i + 3));
    }
  const listed = survivors.map((s) => (reasons.has(s) ? `${s} # ${reasons.get(s)}` : s));
  writeFileSync(listPath, `${listed.join('\n')}\n`);
  const explained = survivors.filter((s) => reasons.has(s)).length;

  const killed = (count.Killed ?? 0) + (count.Timeout ?? 0);
  const valid = killed + (count.Survived ?? 0) + (count.NoCoverage ?? 0);
  const score = valid === 0 ? 0 : (killed / valid) * 100;
  const goal = GOALS[name] ?? 80;
  if (score < goal) short = true;
  lines.push(
    `${name}: ${score.toFixed(1)} % killed (${killed} of ${valid}; survived ${count.Survived ?? 0}, no coverage ${count.NoCoverage ?? 0}, ${explained} of them with a reason; goal ${goal} %; ${recheck ? 'recheck' : 'full run'} ${minutes} min)`,
  );
}
process.stdout.write(`\nmutation scores\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
process.exitCode = short ? 1 : 0;
