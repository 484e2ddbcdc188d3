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
// Without a full run's result (reports/ is not checked in) it rechecks the lines of the checked-in
// mutation-survivors.txt instead; sound only while the source is as it was when the list was
// written.
//
// --recheck --only <file>[,<file>…]: rechecks the lines of the listed survivors of those files
// alone (from mutation-survivors.txt, whatever full.json holds), the other files' lines kept as
// they are; no package score. Sound while those files' source is as it was when listed.
//
// --recheck --unexplained: from the list, only the lines of survivors without a reason.
//
// --only <file>[,<file>…] (source paths inside the package): mutates those files alone and puts
// their answers into the last run's result in place of theirs (every mutant of those files run
// anew), so a package can be measured file by file; the score line says which files the result
// holds when it is not every file of the package's `mutate`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

const GOALS = { classifier: 90, breaker: 90, router: 90, ratelimit: 80 };
const args = process.argv.slice(2);
const recheck = args.includes('--recheck');
const unexplained = args.includes('--unexplained');
const onlyAt = args.indexOf('--only');
const only = onlyAt < 0 ? undefined : (args[onlyAt + 1] ?? '').split(',').filter(Boolean);
const asked = args.filter((a, i) => !a.startsWith('--') && !(onlyAt >= 0 && i === onlyAt + 1));
const packages = asked.length > 0 ? asked : Object.keys(GOALS);
const lines = [];
let short = false;

// A mutant's line in mutation-survivors.txt: file, start line:column, end line:column (nested
// mutants of `a && b && c` start at the same place and differ only in their end), mutator and
// the replacement of that node.
const replacementText = (m) =>
  String(m.replacement ?? '')
    .replace(/\s+/g, ' ')
    .slice(0, 80);
const key = (path, m) =>
  `${path}:${m.location.start.line}:${m.location.start.column}-${m.location.end.line}:${m.location.end.column} ${m.mutatorName} → ${replacementText(m)}`;
// The same without the end, as lists written before the end was in them spell it: their reasons
// are found by it once (two nested mutants that this spelling cannot tell apart share the reason).
const oldKey = (path, m) =>
  `${path}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${replacementText(m)}`;
const alive = (m) => m.status === 'Survived' || m.status === 'NoCoverage';

// Test files that import a mutated file directly but are not in the command Stryker runs: their
// tests never see a mutant, so a mutant only they would kill is counted as surviving (a test file
// added to the package and not to stryker.config.json's command). Said in the score line.
function unrunTests(dir) {
  const config = JSON.parse(readFileSync(join(dir, 'stryker.config.json'), 'utf8'));
  const named = new Set(config.commandRunner.command.split(/\s+/).filter((a) => a.endsWith('.test.ts')));
  const mutated = config.mutate
    .filter((m) => !m.startsWith('!') && !m.includes('*'))
    .map((m) => basename(m, '.ts'));
  const all = config.mutate.includes('src/**/*.ts');
  const unrun = [];
  for (const file of readdirSync(join(dir, 'src'))) {
    if (!file.endsWith('.test.ts') || named.has(`src/${file}`)) continue;
    const text = readFileSync(join(dir, 'src', file), 'utf8');
    const imports = [...text.matchAll(/from '\.\/([\w.-]+)\.js'/g)].map((m) => m[1]);
    if (imports.some((i) => (all ? !i.endsWith('.test') : mutated.includes(i)))) unrun.push(`src/${file}`);
  }
  return unrun;
}

for (const name of packages) {
  const dir = join('packages', name);
  const unrun = unrunTests(dir);
  const unrunNote =
    unrun.length === 0 ? '' : `; not run on mutants though they import mutated code: ${unrun.join(', ')}`;
  const reportPath = join(dir, 'reports/mutation/mutation.json');
  const fullPath = join(dir, 'reports/mutation/full.json');
  // A fixed fast-check seed: a mutant is killed or not the same way every run.
  const env = { ...process.env, FC_SEED: process.env.FC_SEED ?? '20261130' };
  let previous;
  const stryker = ['stryker', 'run'];
  const listPath = join(dir, 'mutation-survivors.txt');
  let fromList = false;
  // The list's lines (file:line) a recheck from the list ran again; the others stay as listed.
  const rechecked = new Set();
  if (only && !recheck) {
    stryker.push('--mutate', only.join(','));
    if (existsSync(fullPath)) previous = JSON.parse(readFileSync(fullPath, 'utf8'));
  } else if (recheck) {
    const ranges = new Set();
    if (existsSync(fullPath) && !only) {
      previous = JSON.parse(readFileSync(fullPath, 'utf8'));
      for (const [path, file] of Object.entries(previous.files))
        for (const m of file.mutants)
          if (alive(m)) ranges.add(`${path}:${m.location.start.line}-${m.location.end.line}`);
    } else if (existsSync(listPath)) {
      // "src/x.ts:12:4-12:20 Mutator → replacement # reason": the line of each listed survivor.
      fromList = true;
      for (const line of readFileSync(listPath, 'utf8').split('\n')) {
        // A mutant may span lines (a condition over several): its range to its end line.
        const at = /^(\S+?):(\d+):\d+(?:-(\d+):\d+)? /.exec(line);
        if (!at || (only && !only.includes(at[1])) || (unexplained && line.includes(' # '))) continue;
        ranges.add(`${at[1]}:${at[2]}-${at[3] ?? at[2]}`);
        rechecked.add(`${at[1]}:${at[2]}`);
      }
    } else {
      lines.push(`${name}: nothing to recheck (no full run, no survivors list)`);
      short = true;
      continue;
    }
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
  if (only && !recheck && previous) {
    for (const [path, file] of Object.entries(report.files)) previous.files[path] = file;
    report = previous;
  } else if (previous && recheck) {
    // The recheck's answer for each mutant it ran, by file, place, mutator and replacement.
    const now = new Map();
    for (const [path, file] of Object.entries(report.files))
      for (const m of file.mutants) now.set(key(path, m), m.status);
    for (const [path, file] of Object.entries(previous.files))
      for (const m of file.mutants) if (alive(m) && now.has(key(path, m))) m.status = now.get(key(path, m));
    report = previous;
  }
  // A recheck of the list's lines holds only those lines: no full result to keep.
  if (!fromList) writeFileSync(fullPath, JSON.stringify(report));

  const count = {};
  const survivors = [];
  for (const [path, file] of Object.entries(report.files))
    for (const m of file.mutants) {
      count[m.status] = (count[m.status] ?? 0) + 1;
      if (alive(m)) survivors.push([key(path, m), oldKey(path, m)]);
    }
  // The checked-in list: each survivor has a test, or a one-line reason after " # " (kept across runs).
  const reasons = new Map();
  // Lines of files this result does not hold (a file measured by --only not yet) stay as they were.
  const kept = [];
  if (existsSync(listPath))
    for (const line of readFileSync(listPath, 'utf8').split('\n')) {
      const i = line.indexOf(' # ');
      if (i > 0) reasons.set(line.slice(0, i), line.slice(i + 3));
      const file = line.split(':')[0];
      const at = /^(\S+?):(\d+):/.exec(line);
      const ranAgain = fromList ? at !== null && rechecked.has(`${at[1]}:${at[2]}`) : file in report.files;
      if (line !== '' && !ranAgain) kept.push(line);
    }
  const reasonOf = ([k, old]) => reasons.get(k) ?? reasons.get(old);
  const listed = [
    ...survivors.map((s) => (reasonOf(s) === undefined ? s[0] : `${s[0]} # ${reasonOf(s)}`)),
    ...kept,
  ];
  const place = (line) => {
    const [, f = '', l = '0', c = '0'] = /^(\S+?):(\d+):(\d+)/.exec(line) ?? [];
    return [f, Number(l), Number(c)];
  };
  listed.sort((a, b) => {
    const [fa, la, ca] = place(a);
    const [fb, lb, cb] = place(b);
    return fa.localeCompare(fb) || la - lb || ca - cb;
  });
  writeFileSync(listPath, `${listed.join('\n')}\n`);
  const explained = survivors.filter((s) => reasonOf(s) !== undefined).length;

  const killed = (count.Killed ?? 0) + (count.Timeout ?? 0);
  const valid = killed + (count.Survived ?? 0) + (count.NoCoverage ?? 0);
  const score = valid === 0 ? 0 : (killed / valid) * 100;
  const goal = GOALS[name] ?? 80;
  const files = Object.keys(report.files).sort();
  const what = only ? `--only, result over ${files.join(', ')}` : recheck ? 'recheck' : 'full run';
  if (score < goal) short = true;
  if (fromList) {
    // Only the listed lines ran: no package score, just what is alive on them now.
    lines.push(
      `${name}: recheck of the listed survivors' lines: ${survivors.length} alive of ${valid} mutants on them (${explained} with a reason); no package score without a full run; ${minutes} min${unrunNote}`,
    );
    continue;
  }
  lines.push(
    `${name}: ${score.toFixed(1)} % killed (${killed} of ${valid}; survived ${count.Survived ?? 0}, no coverage ${count.NoCoverage ?? 0}, ${explained} of them with a reason; goal ${goal} %; ${what} ${minutes} min)${unrunNote}`,
  );
}
process.stdout.write(`\nmutation scores\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
process.exitCode = short ? 1 : 0;
