// Stryker's command runner starts this once per mutant: it loads every test file named on the
// command line into this one process (node:test runs them in-process and sets a non-zero exit
// code when a test fails). One process instead of `node --test`'s one per file: a mutant costs
// one Node start and one tsx load, not four.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

for (const file of process.argv.slice(2)) await import(pathToFileURL(resolve(file)).href);
