import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
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
    const { readFile } = await import('node:fs/promises');
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
    assert.equal(sim('run', '429-storm', '--duration', '40s', '--out', out, '--report', html).status, 0);
    const { readFile } = await import('node:fs/promises');
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
