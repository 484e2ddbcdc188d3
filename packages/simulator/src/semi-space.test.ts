import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { type AddressInfo, createServer } from 'node:net';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

type SemiSpaceArgv = (
  args: readonly string[],
  execArgv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
) => string[];
// The bin's own module (plain JS, committed, not built).
const binModule = '../bin/semi-space.js';
const { childArgv, semiSpaceArgv, SEMI_SPACE_MB } = (await import(binModule)) as {
  childArgv: (
    extra: readonly string[],
    execArgv: readonly string[],
    cli: string,
    args: readonly string[],
  ) => string[];
  semiSpaceArgv: SemiSpaceArgv;
  SEMI_SPACE_MB: number;
};
const bin = fileURLToPath(new URL('../bin/rxgate-sim.js', import.meta.url));

describe('rxgate-sim: the young generation a run gets', () => {
  it('run and replay get --max-semi-space-size=64 unless it is given or asked otherwise (a table)', () => {
    const flag = [`--max-semi-space-size=${SEMI_SPACE_MB}`];
    const cases: Array<[string[], string[], Record<string, string>, string[]]> = [
      [['run', 'pharmacy-day'], [], {}, flag],
      [['replay', 'r.json'], [], {}, flag],
      [['run'], ['--max-semi-space-size=8'], {}, []],
      // V8 reads `_` and `-` alike: a size given either way is the size given.
      [['run'], ['--max_semi_space_size=8'], {}, []],
      [['replay', 'r.json'], ['--max_semi-space_size=8'], {}, []],
      [['run'], [], { NODE_OPTIONS: '--max_semi_space_size=32' }, []],
      [['run'], [], { NODE_OPTIONS: '--max-old-space-size=4096 --max_semi_space_size 32' }, []],
      // Another flag whose name begins the same is not the size.
      [['run'], ['--max-semi-space-size-x=8'], {}, flag],
      [['run'], ['--inspect'], {}, flag],
      [['run'], [], { NODE_OPTIONS: '--max-old-space-size=4096 --max-semi-space-size=32' }, []],
      [['run'], [], { NODE_OPTIONS: '--max-old-space-size=4096' }, flag],
      [['run'], [], { RXGATE_SIM_SEMI_SPACE_MB: '0' }, []],
      [['run'], [], { RXGATE_SIM_SEMI_SPACE_MB: '128' }, ['--max-semi-space-size=128']],
      [['run'], [], { RXGATE_SIM_SEMI_SPACE_MB: 'big' }, []],
      [['run'], [], { RXGATE_SIM_SEMI_SPACE_MB: '' }, flag],
      [['list'], [], {}, []],
      [['--help'], [], {}, []],
      [[], [], {}, []],
    ];
    for (const [args, execArgv, env, expected] of cases)
      assert.deepEqual(semiSpaceArgv(args, execArgv, env), expected, JSON.stringify({ args, execArgv, env }));
  });

  it("the child gets node's own flags unchanged, --inspect* included, after the size", () => {
    for (const inspect of [
      '--inspect',
      '--inspect=127.0.0.1:9230',
      '--inspect-brk',
      '--inspect-brk=0.0.0.0:9231',
      '--inspect-wait',
      '--inspect-port=9232',
    ]) {
      const execArgv = ['--enable-source-maps', inspect, '--import', 'tsx'];
      assert.deepEqual(childArgv(['--max-semi-space-size=64'], execArgv, '/cli.js', ['run', 'steady']), [
        '--max-semi-space-size=64',
        '--enable-source-maps',
        inspect,
        '--import',
        'tsx',
        '/cli.js',
        'run',
        'steady',
      ]);
    }
  });

  it('node --inspect=host:port of the bin: the child listens on that same port (the bin lets go of it)', async () => {
    // A free port, to give both processes the same one.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const probe =
      'data:text/javascript,process.stderr.write("execArgv="+JSON.stringify(process.execArgv)+"\\n")';
    const env = { ...process.env, NODE_OPTIONS: undefined, RXGATE_SIM_SEMI_SPACE_MB: undefined };
    const inspect = `--inspect=127.0.0.1:${port}`;
    const r = spawnSync(
      process.execPath,
      [inspect, '--import', probe, bin, 'run', 'steady', '--duration', '5s', '--json'],
      { encoding: 'utf8', env, timeout: 60_000 },
    );
    assert.equal(r.status, 0, r.stderr);
    const seen = [...r.stderr.matchAll(/^execArgv=(.*)$/gm)].map((m) => JSON.parse(m[1]!) as string[]);
    assert.equal(seen.length, 2, r.stderr);
    assert.ok(seen[1]!.includes(inspect), JSON.stringify(seen));
    assert.ok(seen[1]!.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`), JSON.stringify(seen));
    assert.doesNotMatch(r.stderr, /address already in use|Starting inspector .* failed/i);
    const listening = r.stderr.match(new RegExp(`Debugger listening on ws://127\\.0\\.0\\.1:${port}/`, 'g'));
    assert.equal(listening?.length, 2, r.stderr);
  });

  it('the bin runs the CLI with the flag, and passes on its exit code', () => {
    // A preload prints the flags each process runs with: the bin's, then the CLI's child's.
    const probe =
      'data:text/javascript,process.stderr.write("execArgv="+JSON.stringify(process.execArgv)+"\\n")';
    const env = { ...process.env, NODE_OPTIONS: undefined, RXGATE_SIM_SEMI_SPACE_MB: undefined };
    const r = spawnSync(
      process.execPath,
      ['--import', probe, bin, 'run', 'steady', '--duration', '5s', '--json'],
      {
        encoding: 'utf8',
        env,
        timeout: 60_000,
      },
    );
    assert.equal(r.status, 0, r.stderr);
    const seen = [...r.stderr.matchAll(/^execArgv=(.*)$/gm)].map((m) => JSON.parse(m[1]!) as string[]);
    assert.equal(seen.length, 2, r.stderr);
    assert.ok(!seen[0]!.some((a) => a.startsWith('--max-semi-space-size')));
    assert.ok(seen[1]!.includes(`--max-semi-space-size=${SEMI_SPACE_MB}`), JSON.stringify(seen));
    assert.doesNotThrow(() => JSON.parse(r.stdout));
    // A failing command's exit code comes back through the parent.
    const bad = spawnSync(process.execPath, [bin, 'run', 'no-such-scenario'], { encoding: 'utf8', env });
    assert.equal(bad.status, 2, bad.stderr);
  });

  it('a SIGINT sent to the bin alone (a supervisor, not the terminal) stops the run', async () => {
    const probe =
      'data:text/javascript,process.stderr.write("execArgv="+JSON.stringify(process.execArgv)+"\\n")';
    const env = { ...process.env, NODE_OPTIONS: undefined, RXGATE_SIM_SEMI_SPACE_MB: undefined };
    const parent = spawn(process.execPath, ['--import', probe, bin, 'run', 'pharmacy-day', '--json'], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      parent.on('exit', (code, signal) => resolve({ code, signal })),
    );
    // Once the child runs (its probe line carries the flag), signal the parent's pid only.
    await new Promise<void>((resolve) => {
      parent.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        if (stderr.includes('--max-semi-space-size')) resolve();
      });
    });
    parent.kill('SIGINT');
    // Ignored, the whole day would run on and end with code 0.
    assert.deepEqual(await ended, { code: null, signal: 'SIGINT' }, stderr);
  });
});
