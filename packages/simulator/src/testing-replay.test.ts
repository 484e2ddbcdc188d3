// The replay line of an InvariantError runs: a generated scenario is written to a file, and
// `rxgate-sim run <file>` (the line, as printed) runs the same scenario, same hash.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { assertInvariants, InvariantError, runScenario, scenarioArbitrary } from './testing.js';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

describe('InvariantError replay line', () => {
  it('names a scenario file that rxgate-sim run takes, and runs the same scenario again', async () => {
    const [scenario] = fc.sample(scenarioArbitrary({ maxDurationMs: 3000 }), { seed: 4242, numRuns: 1 });
    const r = await runScenario(scenario!);
    // A broken invariant, made so: the run itself holds them all (assertInvariants passes on it).
    assertInvariants(r);
    const broken = { ...r, invariants: { ...r.invariants, paidTwice: ['610014|ADV|x'] } };
    const dir = mkdtempSync(join(tmpdir(), 'rxgate-replay-'));
    let error: unknown;
    try {
      assertInvariants(broken as typeof r, { scenarioFile: join(dir, 'generated.json') });
    } catch (e) {
      error = e;
    }
    assert.ok(error instanceof InvariantError, 'a broken invariant throws');
    assert.equal(error.scenarioFile, join(dir, 'generated.json'));
    assert.match(error.replay, /^npx rxgate-sim run \S+ {2}# scenario hash [0-9a-f]+$/);
    assert.match(error.message, /replay: npx rxgate-sim run /);
    // The line as printed, run: `npx rxgate-sim` is this CLI.
    const [, file] = /run (\S+)/.exec(error.replay)!;
    const run = spawnSync(process.execPath, ['--import', 'tsx', cli, 'run', file!, '--json'], {
      encoding: 'utf8',
    });
    // 0 or 1 (the CLI's report also judges liveness and fault reach); 2 would be bad input.
    assert.ok(run.status === 0 || run.status === 1, `exit ${run.status}: ${run.stderr}`);
    const report = JSON.parse(run.stdout) as { hash: string; claims: number };
    assert.equal(report.hash, r.hash, 'the same scenario');
    assert.ok(error.replay.endsWith(r.hash));
    assert.equal(report.claims, r.claims);
    assert.equal(JSON.parse(readFileSync(file!, 'utf8')).seed, scenario!.seed);
  });

  it('replays a saved run of --claims without --duration (its scenario held an undefined key: the hash differed)', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'rxgate-replay-')), 'run.json');
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', cli, 'run', 'steady', '--claims', '30', '--out', out],
      {
        encoding: 'utf8',
      },
    );
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const replay = spawnSync(process.execPath, ['--import', 'tsx', cli, 'replay', out], { encoding: 'utf8' });
    assert.equal(replay.status, 0, replay.stderr);
    assert.match(replay.stdout, /30 claims/);
  });
});
