// Loaded with `node --import` by every package's test script. A fixed seed makes a CI run
// reproducible; fast-check prints the seed and the counterexample path on every failure. It also
// gives the process a temporary directory of its own, removed at exit (test-tmpdir.mjs).
import fc from 'fast-check';
import './test-tmpdir.mjs';

const fromEnv = process.env.FC_SEED;
const seed =
  fromEnv !== undefined && fromEnv !== ''
    ? Number(fromEnv)
    : process.env.CI
      ? 20261130
      : Date.now() ^ (Math.random() * 0x7fffffff);
const numRuns = process.env.FC_NUM_RUNS ? Number(process.env.FC_NUM_RUNS) : undefined;
fc.configureGlobal({ seed, ...(numRuns ? { numRuns } : {}) });
process.on('exit', (code) => {
  if (code !== 0) process.stderr.write(`fast-check global seed: FC_SEED=${seed}\n`);
});
