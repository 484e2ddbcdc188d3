// rxgate-sim --target as a new user runs it: a sandbox that speaks the contract, claims from a
// file. The summary says only what applies, the process exits by itself, and a bad claim is
// named by its line and fields.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serveHandlers, vendorHandlers } from './handlers.js';
import { loadScenario } from './scenario.js';
import { VendorModel } from './vendor-model.js';
import { VirtualClock } from './virtual-clock.js';

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));

/** Runs the CLI without blocking this process (the target answers from here). */
function sim(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], {
        env: { ...process.env, ...env },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (c: Buffer) => {
        stdout += c;
      });
      child.stderr.on('data', (c: Buffer) => {
        stderr += c;
      });
      // A process kept alive by a timer is killed here, and the test says so.
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('exit', (status, signal) => {
        clearTimeout(guard);
        resolve({ status, signal, stdout, stderr });
      });
    },
  );
}

const claim = (i: number, over: Record<string, unknown> = {}) => ({
  '103-A3': 'B1',
  '101-A1': '610014',
  '104-A4': 'ADV',
  '302-C2': `TGT${i}XYZ`,
  '310-CA': 'ZOË',
  '201-B1': '1234567890',
  '402-D2': String(7000 + i),
  '403-D3': 0,
  '407-D7': '00002143380',
  '442-E7': '30.000',
  '405-D5': 30,
  '401-D1': '20261130',
  '409-D9': '12.34',
  ...over,
});

const closers: Array<() => Promise<void>> = [];
after(async () => {
  for (const c of closers) await c();
});

describe('rxgate-sim run --target', () => {
  it('reports what the target answered, no fault line, names invalid claims by line and field, exits by itself', async () => {
    // pharmacy-day: faults all day and client faults hours ahead, none of which applies to a target.
    const s = await loadScenario('steady');
    const clock = new VirtualClock(0);
    const model = new VendorModel(
      s,
      { now: () => Date.now(), setTimer: clock.setTimer.bind(clock) },
      Date.now(),
    );
    const server = await serveHandlers((base) => vendorHandlers(model, 'primary', base));
    closers.push(() => server.close());
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-target-'));
    const file = join(dir, 'claims.jsonl');
    const lines = [
      JSON.stringify(claim(1)),
      JSON.stringify(claim(2)),
      '',
      JSON.stringify(claim(3)),
      JSON.stringify(claim(4, { '407-D7': 'not-an-ndc', '101-A1': undefined })),
      JSON.stringify(claim(5)),
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const r = await sim(
      [
        'run',
        'pharmacy-day',
        '--target',
        server.url,
        '--claims-file',
        file,
        '--ledger',
        join(dir, 'ledger.jsonl'),
      ],
      { RXGATE_CLIENT_ID: 'id', RXGATE_CLIENT_SECRET: 'secret' },
    );
    assert.equal(r.signal, null, `killed: the process did not exit by itself\n${r.stdout}`);
    assert.doesNotMatch(r.stdout, /fault/i, 'no fault was injected: no fault line');
    assert.doesNotMatch(r.stdout, /liveness/);
    // Four valid claims went to the target; their answers are counted by status.
    assert.match(r.stdout, /vendor answers +200:\d+/);
    assert.match(r.stdout, /invalid claims +line 5: (101-A1, 407-D7|407-D7, 101-A1)/);
    assert.doesNotMatch(r.stdout, /not-an-ndc|TGT4XYZ|ZOË/, 'the values of a bad claim are not printed');
    assert.match(
      r.stdout,
      new RegExp(
        `replay: rxgate-sim run pharmacy-day --seed \\d+ --target ${server.url} --claims-file ${file}`,
      ),
    );
    assert.equal(model.payments.size, 4);
  });

  it('a target that refuses connections: the answers say refused', async () => {
    // Port 1 (tcpmux): nothing here listens on it and no test binds it, so it refuses for the
    // whole run (a closed server's port could be taken by another process in the meantime).
    const url = 'http://127.0.0.1:1';
    const refuses = await new Promise<boolean>((resolve) => {
      const s = connect(1, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        resolve(false);
      });
      s.once('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
    });
    assert.ok(refuses, 'port 1 refuses connections here (the premise of this test)');
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-refused-'));
    const file = join(dir, 'claims.jsonl');
    await writeFile(file, `${JSON.stringify(claim(1))}\n`);
    const r = await sim([
      'run',
      'steady',
      '--target',
      url,
      '--claims-file',
      file,
      '--lane',
      'pos',
      '--ledger',
      join(dir, 'ledger.jsonl'),
    ]);
    assert.equal(r.signal, null);
    assert.match(r.stdout, /vendor answers +refused:\d+/, `exit ${r.status}, stderr:\n${r.stderr}`);
  });
});
