#!/usr/bin/env node
// `npm run mutation [package…]`: StrykerJS over the policies' pure cores, one package at a time
// with one test process (CPU heavy: a separate script, not part of `npm test` or CI), then the
// score per package. Stryker's command runner runs each package's node:test files under tsx.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ALL = { classifier: 90, breaker: 90, router: 90, ratelimit: 80 };
const asked = process.argv.slice(2);
const packages = asked.length > 0 ? asked : Object.keys(ALL);
const lines = [];
let short = false;
for (const name of packages) {
  const dir = join('packages', name);
  // A fixed fast-check seed: a mutant is killed or not the same way every run.
  const env = { ...process.env, FC_SEED: process.env.FC_SEED ?? '20261130' };
  const run = spawnSync('npx', ['stryker', 'run'], { cwd: dir, stdio: 'inherit', env });
  if (run.status !== 0) {
    lines.push(`${name}: stryker failed (exit ${run.status})`);
    short = true;
    continue;
  }
  const report = JSON.parse(readFileSync(join(dir, 'reports/mutation/mutation.json'), 'utf8'));
  const count = {};
  const survivors = [];
  for (const [path, file] of Object.entries(report.files))
    for (const m of file.mutants) {
      count[m.status] = (count[m.status] ?? 0) + 1;
      if (m.status === 'Survived' || m.status === 'NoCoverage')
        survivors.push(
          `${path}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${String(
            m.replacement ?? '',
          )
            .replace(/\s+/g, ' ')
            .slice(0, 80)}`,
        );
    }
  // The checked-in list: each survivor gets a test, or a one-line reason after " # ".
  writeFileSync(join(dir, 'mutation-survivors.txt'), `${survivors.join('\n')}\n`);
  const killed = (count.Killed ?? 0) + (count.Timeout ?? 0);
  const valid = killed + (count.Survived ?? 0) + (count.NoCoverage ?? 0);
  const score = valid === 0 ? 0 : (killed / valid) * 100;
  const goal = ALL[name] ?? 80;
  if (score < goal) short = true;
  lines.push(
    `${name}: ${score.toFixed(1)} % killed (${killed} of ${valid}; survived ${count.Survived ?? 0}, no coverage ${count.NoCoverage ?? 0}; goal ${goal} %)`,
  );
}
process.stdout.write(`\nmutation scores\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
process.exitCode = short ? 1 : 0;
