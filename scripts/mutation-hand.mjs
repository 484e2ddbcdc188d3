#!/usr/bin/env node
// `node scripts/mutation-hand.mjs <package> [--ids 3,17,…] [--sample N] [--status Survived]`:
// checks Stryker's verdicts by applying mutants by hand. For each mutant picked from the last
// Stryker run's result (packages/<package>/reports/mutation/mutation.json) it writes the mutated
// source as text into a plain copy of the package (no instrumentation, no mutant switching) at
// the sandbox's depth (.stryker-tmp/hand, so the package's own command runs unchanged), runs the
// command of the package's stryker.config.json there with the same FC_SEED, and compares the
// exit code (non-zero: killed) with Stryker's status. Prints every disagreement; exit code 1 if
// there is one. One mutant at a time (CPU heavy: nothing else of yours alongside).
//
// --sample N picks N mutants spread evenly over the result (every k-th, deterministic).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i < 0 ? undefined : args[i + 1];
};
const name = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!name) {
  process.stderr.write(
    'usage: node scripts/mutation-hand.mjs <package> [--ids a,b] [--sample N] [--status S]\n',
  );
  process.exit(2);
}
const dir = resolve('packages', name);
const config = JSON.parse(readFileSync(join(dir, 'stryker.config.json'), 'utf8'));
const report = JSON.parse(
  readFileSync(opt('--report') ?? join(dir, 'reports/mutation/mutation.json'), 'utf8'),
);

let mutants = [];
for (const [path, file] of Object.entries(report.files))
  for (const m of file.mutants) mutants.push({ path, source: file.source, ...m });
const ids = opt('--ids')?.split(',');
const status = opt('--status');
if (ids) mutants = mutants.filter((m) => ids.includes(m.id));
if (status) mutants = mutants.filter((m) => m.status === status);
const sample = Number(opt('--sample') ?? 0);
if (sample > 0 && mutants.length > sample) {
  const step = mutants.length / sample;
  mutants = Array.from({ length: sample }, (_, i) => mutants[Math.floor(i * step)]);
}

// A plain copy of the package where Stryker puts its sandbox.
const hand = join(dir, '.stryker-tmp', 'hand');
rmSync(hand, { recursive: true, force: true });
mkdirSync(hand, { recursive: true });
for (const entry of ['src', 'README.md', 'package.json', 'tsconfig.json'])
  if (existsSync(join(dir, entry))) cpSync(join(dir, entry), join(hand, entry), { recursive: true });

// Report locations: lines and columns from 1, the end exclusive. Stryker mutates the syntax
// tree: its replacement is one node, so as text it goes in parentheses wherever it is an
// expression. `a && b && c` is `(a && b) && c`; the mutant `a || b` of its inner node is
// `(a || b) && c`, while the text `a || b` put in place unbracketed would read `a || (b && c)`,
// another program (the mistake that made Stryker look as if it under-counted at quota.ts:148).
const STATEMENTS = new Set(['BlockStatement']);
function apply(source, { start, end }, replacement, mutator) {
  const lines = source.split('\n');
  const offset = (p) => lines.slice(0, p.line - 1).reduce((n, l) => n + l.length + 1, 0) + p.column - 1;
  const statement = STATEMENTS.has(mutator) || /^(case\b|default\s*:)/.test(replacement);
  const text = statement ? replacement : `(${replacement})`;
  return source.slice(0, offset(start)) + text + source.slice(offset(end));
}

const env = { ...process.env, FC_SEED: process.env.FC_SEED ?? '20261130' };
delete env.__STRYKER_ACTIVE_MUTANT__;
const verdict = (s) => (s === 'Killed' || s === 'Timeout' ? 'killed' : s === 'Survived' ? 'survived' : s);
const disagree = [];
try {
  for (const m of mutants) {
    const target = join(hand, m.path);
    writeFileSync(target, apply(m.source, m.location, m.replacement, m.mutatorName));
    const run = spawnSync(config.commandRunner.command, {
      cwd: hand,
      env,
      shell: true,
      encoding: 'utf8',
      timeout: 120_000,
    });
    writeFileSync(target, m.source);
    const byHand = run.status === 0 ? 'survived' : 'killed';
    const agree = byHand === verdict(m.status);
    const at = `${m.path}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${String(m.replacement).replace(/\s+/g, ' ').slice(0, 60)}`;
    process.stdout.write(
      `${agree ? 'agree   ' : 'DISAGREE'} #${m.id} stryker ${verdict(m.status)}, by hand ${byHand}: ${at}\n`,
    );
    if (!agree) disagree.push({ m, out: `${run.stdout.slice(-400)}${run.stderr.slice(-800)}` });
  }
} finally {
  rmSync(hand, { recursive: true, force: true });
}
for (const { m, out } of disagree) process.stdout.write(`\n#${m.id} by hand:\n${out}\n`);
process.stdout.write(
  `\n${mutants.length} mutants applied by hand, ${disagree.length} disagree with Stryker\n`,
);
process.exitCode = disagree.length > 0 ? 1 : 0;
