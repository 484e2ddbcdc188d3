import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScenario } from './scenario.js';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const sim = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', cli, ...args], { encoding: 'utf8', timeout: 60_000 });

describe('rxgate-sim', () => {
  it('list and --help', () => {
    const list = sim('list');
    assert.equal(list.status, 0);
    for (const name of ['pharmacy-day', 'steady', '429-storm', 'crosswalk-repair'])
      assert.match(list.stdout, new RegExp(name));
    const help = sim('--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--claims-file/);
  });

  it('bare, it prints help and runs nothing; --version prints the version', async () => {
    const bare = sim();
    assert.equal(bare.status, 0, bare.stderr);
    assert.match(bare.stdout, /^rxgate-sim — /);
    assert.match(bare.stdout, /Usage:/);
    assert.doesNotMatch(bare.stdout, /claims over/);
    const pkg = JSON.parse(await readFile(new URL('../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    for (const flag of ['--version', '-v']) {
      const v = sim(flag);
      assert.equal(v.status, 0);
      assert.equal(v.stdout, `rxgate-sim ${pkg.version}\n`);
    }
  });

  it('a threshold naming no metric is refused before the run, naming it and the metrics there are', async () => {
    const s = await loadScenario('pharmacy-day');
    const file = join(tmpdir(), `rxgate-threshold-${process.pid}.json`);
    await writeFile(file, JSON.stringify({ ...s, thresholds: ['paid_rat>0.5', 'p99_ms<800'] }));
    const r = sim('run', file);
    // Exit 2 and no summary: nothing ran (after a run it would be exit 1 with "unknown metric").
    assert.equal(r.status, 2, r.stdout);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /thresholds: "paid_rat>0.5": no metric "paid_rat"; there are claims, .*paid_rate/);
    assert.doesNotMatch(r.stderr, /p99_ms<800/);
  });

  it('a reader that leaves early (| head) gets no EPIPE trace', () => {
    const r = spawnSync('sh', ['-c', `"${process.execPath}" --import tsx "${cli}" list | head -1`], {
      encoding: 'utf8',
    });
    assert.match(r.stdout, /^pharmacy-day +A whole day/);
    assert.doesNotMatch(r.stderr, /EPIPE|Error/);
  });

  it('says where the reports went, last', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-sim-out-'));
    const r = sim(
      'run',
      'steady',
      '--duration',
      '3s',
      '--report',
      join(dir, 'r.html'),
      '--out',
      join(dir, 'r.json'),
    );
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      new RegExp(`JSON report: ${join(dir, 'r.json')}\nHTML report: ${join(dir, 'r.html')}\n$`),
    );
    const json = sim('run', 'steady', '--duration', '3s', '--json', '--report', join(dir, 'j.html'));
    assert.doesNotThrow(() => JSON.parse(json.stdout), 'stdout stays pure JSON');
    assert.match(json.stderr, /HTML report: .*j\.html/);
  });

  it('the bin links at install and, before a build, says to build instead of a module-not-found trace', async () => {
    const bin = fileURLToPath(new URL('../bin/rxgate-sim.js', import.meta.url));
    // npm links the committed bin at install time: `npx rxgate-sim` never asks the registry.
    const linked = fileURLToPath(new URL('../../../node_modules/.bin/rxgate-sim', import.meta.url));
    assert.equal(await realpath(linked), await realpath(bin));
    // The same bin in a package that has no dist/ yet.
    const fresh = await mkdtemp(join(tmpdir(), 'rxgate-sim-unbuilt-'));
    await mkdir(join(fresh, 'bin'));
    await writeFile(join(fresh, 'package.json'), '{"type":"module"}');
    await copyFile(bin, join(fresh, 'bin', 'rxgate-sim.js'));
    const r = spawnSync(process.execPath, [join(fresh, 'bin', 'rxgate-sim.js'), '--help'], {
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^rxgate-sim is not built yet .*\nRun `npm run build` at the root of the rxgate repository first/,
    );
    assert.doesNotMatch(r.stderr, /MODULE_NOT_FOUND|at .*\(/);
  });

  it('run prints the summary, and --json the report; both exit 0 on a pass', () => {
    const text = sim('run', 'steady', '--duration', '5s');
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /thresholds/);
    assert.match(text.stdout, /PASS {2}replay: rxgate-sim run steady --seed 1/);
    const json = sim('run', 'steady', '--duration', '5s', '--json');
    assert.equal(json.status, 0);
    const report = JSON.parse(json.stdout) as {
      ok: boolean;
      seed: number;
      hash: string;
      timeSeries: { t: number[] };
    };
    assert.equal(report.ok, true);
    assert.equal(report.seed, 1);
    assert.ok(report.timeSeries.t.length >= 5);
  });

  it('overrides seed, claims and rate, and writes log and audit files without PHI', async () => {
    const log = join(tmpdir(), `rxgate-sim-${process.pid}.log`);
    const audit = join(tmpdir(), `rxgate-sim-${process.pid}.audit.jsonl`);
    const r = sim(
      'run',
      'steady',
      '--seed',
      '9',
      '--claims',
      '80',
      '--rate',
      '8',
      '--json',
      '--log-file',
      log,
      '--audit-file',
      audit,
    );
    assert.equal(r.status, 0, `exit ${r.status}: ${r.stderr}`);
    const report = JSON.parse(r.stdout) as { seed: number; claims: number; ok: boolean };
    assert.equal(report.ok, true, 'writing the audit file does not move simulated time');
    assert.equal(report.seed, 9);
    assert.equal(report.claims, 80);
    const auditText = await readFile(audit, 'utf8');
    assert.ok(auditText.split('\n').length > 80);
    assert.ok(!/ZX\d{7}/.test(auditText), 'no cardholder ID in the audit file');
  });

  it('a broken threshold exits 1; a bad scenario exits 2 naming the field', async () => {
    const s = await loadScenario('steady');
    const failing = join(tmpdir(), `rxgate-failing-${process.pid}.json`);
    await writeFile(
      failing,
      JSON.stringify({ ...s, traffic: { ...s.traffic, durationMs: 3000 }, thresholds: ['paid_rate>2'] }),
    );
    assert.equal(sim('run', failing).status, 1);
    const bad = join(tmpdir(), `rxgate-bad-${process.pid}.json`);
    await writeFile(
      bad,
      JSON.stringify({ ...s, vendor: { quota: { kind: 'window', limit: 0, windowMs: 1000 } } }),
    );
    const r = sim('run', bad);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /vendor\.quota\.limit/);
    assert.equal(sim('run', 'steady', '--lane', 'sideways').status, 2);
  });

  it('replay re-runs a saved run bit for bit and prints the timeline of a claim', async () => {
    const out = join(tmpdir(), `rxgate-run-${process.pid}.json`);
    const html = join(tmpdir(), `rxgate-run-${process.pid}`, 'report.html');
    assert.equal(sim('run', '429-storm', '--out', out, '--report', html).status, 0);
    const saved = JSON.parse(await readFile(out, 'utf8')) as {
      hash: string;
      slowest: Array<{ correlationId: string }>;
    };
    assert.match(await readFile(html, 'utf8'), /<svg/);
    const id = saved.slowest[0]!.correlationId;
    const r = sim('replay', out, '--claim', id);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`hash ${saved.hash}`));
    assert.match(r.stdout, /No claim broke an invariant/);
    assert.match(r.stdout, new RegExp(`correlation ${id}`));
    assert.match(r.stdout, /attempt 1 → primary: /);
    assert.match(r.stdout, /outcome /);
    const fromSeed = sim('replay', '2', '429-storm', '--claim', id);
    assert.equal(fromSeed.status, 0, fromSeed.stderr);
  });
});
