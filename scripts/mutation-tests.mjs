// Stryker's command runner starts this once per mutant: it loads every test file named on the
// command line into this one process (node:test runs them in-process and sets a non-zero exit
// code when a test fails). One process instead of `node --test`'s one per file: a mutant costs
// one Node start and one tsx load, not four.
//
// The test files of the mutated file go first: the mutant's id (__STRYKER_ACTIVE_MUTANT__) is
// looked up in the sandbox's instrumented sources, and for a mutant of src/quota.ts the files
// named quota.test.ts, quota-*.test.ts run before the others. Every named file still runs when
// nothing fails, so a verdict is the same in any order (the tests share no state across files);
// a killed mutant is only found sooner (the bail reporter ends the process at the first failure).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const named = process.argv.slice(2);

function mutatedStem(id) {
  if (id === undefined || id === '') return undefined;
  // The instrumenter's test for this mutant (@stryker-mutator/instrumenter's syntax-helpers).
  const call = `stryMutAct_9fa48("${id}")`;
  try {
    for (const file of readdirSync('src', { recursive: true })) {
      const path = String(file);
      if (!path.endsWith('.ts') || path.endsWith('.test.ts')) continue;
      if (readFileSync(join('src', path), 'utf8').includes(call)) return basename(path, '.ts');
    }
  } catch {}
  return undefined;
}

// biome-ignore lint/suspicious/noUndeclaredEnvVars: Stryker's own, set per mutant; no turbo task reads it.
const stem = mutatedStem(process.env.__STRYKER_ACTIVE_MUTANT__);
const own = (f) =>
  stem !== undefined && (basename(f) === `${stem}.test.ts` || basename(f).startsWith(`${stem}-`));
const files = [...named.filter(own), ...named.filter((f) => !own(f))];

for (const file of files) await import(pathToFileURL(resolve(file)).href);
