// rxgate-sim in a real terminal: tmux gives it a pseudo-terminal of a set size, records every
// byte it writes (progress frames included) and shows the screen as a person would see it.
// A pipe shows none of this: no progress bar, no terminal width. Where tmux is missing the tests
// say so loudly and skip; under CI its absence is an error (.ci/run installs it).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { loadScenario } from './scenario.js';
import { stripAnsi, visibleWidth } from './terminal.js';

const haveTmux = spawnSync('tmux', ['-V'], { encoding: 'utf8' }).status === 0;
if (!haveTmux && process.env.CI)
  throw new Error('tmux is missing under CI: .ci/run must install it (apt-get install -y tmux)');
if (!haveTmux)
  process.stderr.write(
    '\n!!! tmux not found: the terminal tests of rxgate-sim are SKIPPED (apt-get install tmux)\n\n',
  );

const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
let sessions = 0;

interface Terminal {
  /** Every byte written, escapes and carriage returns included. */
  readonly raw: string;
  /** The screen and its scrollback, wrapped lines joined back (so a too-long line shows as one). */
  readonly lines: string[];
  readonly status: number;
}

/** Runs `rxgate-sim ...args` in a tmux pane `columns` wide, to the end. */
async function inTerminal(args: string[], columns: number): Promise<Terminal> {
  const socket = `rxgate-sim-test-${process.pid}-${sessions++}`;
  const dir = await mkdtemp(join(tmpdir(), 'rxgate-tty-'));
  const rawFile = join(dir, 'raw');
  const tmux = (...a: string[]) => {
    const r = spawnSync('tmux', ['-L', socket, ...a], { encoding: 'utf8' });
    assert.equal(r.status, 0, `tmux ${a.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  const command = [process.execPath, '--import', 'tsx', cli, ...args].map(quote).join(' ');
  // The program waits for "go": recording starts before its first byte.
  tmux(
    'new-session',
    '-d',
    '-x',
    String(columns),
    '-y',
    '50',
    '-s',
    'sim',
    `tmux -L ${socket} wait-for go; ${command}`,
  );
  try {
    tmux('set-option', '-t', 'sim', 'remain-on-exit', 'on');
    tmux('pipe-pane', '-t', 'sim', '-o', `cat >> ${quote(rawFile)}`);
    tmux('wait-for', '-S', 'go');
    const deadline = Date.now() + 120_000;
    while (tmux('display-message', '-p', '-t', 'sim', '#{pane_dead}').trim() !== '1') {
      assert.ok(Date.now() < deadline, `still running:\n${tmux('capture-pane', '-p', '-t', 'sim')}`);
      await sleep(100);
    }
    const status = Number(tmux('display-message', '-p', '-t', 'sim', '#{pane_dead_status}').trim());
    const lines = tmux('capture-pane', '-p', '-J', '-t', 'sim', '-S', '-', '-E', '-')
      .split('\n')
      .map((l) => l.trimEnd())
      .filter((l) => !/^Pane is dead/.test(l));
    while (lines.at(-1) === '') lines.pop();
    // The recording catches up with the pane: wait until it holds the last line shown.
    let raw = '';
    while (Date.now() < deadline) {
      raw = await readFile(rawFile, 'utf8').catch(() => '');
      if (stripAnsi(raw).includes(lines.at(-1) ?? '')) break;
      await sleep(50);
    }
    return { raw, lines, status };
  } finally {
    spawnSync('tmux', ['-L', socket, 'kill-server']);
  }
}

/** The progress frames: each one is drawn over the last, after a carriage return. */
function frames(raw: string): string[] {
  return stripAnsi(raw.replaceAll('\u001b[2K', ''))
    .split(/\r(?=\[)/)
    .slice(1)
    .map((f) => f.split(/\r?\n|\r/)[0]!)
    .filter((f) => /^\[[#.]*\]/.test(f));
}

const percent = (frame: string) => Number(/\] +(\d+)%/.exec(frame)?.[1] ?? Number.NaN);

describe('rxgate-sim in a terminal (tmux)', { skip: !haveTmux && 'tmux is not installed' }, () => {
  it('fits the summary to 80 columns, draws a progress line that fits, and says where the report went', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-tty-report-'));
    const report = join(dir, 'outage.html');
    // This run's breaker line is 167 columns long unfitted.
    const t = await inTerminal(
      ['run', 'primary-outage-failover', '--duration', '60s', '--report', report],
      80,
    );
    assert.ok(t.lines.some((l) => l.includes('primary:retail')));
    for (const line of t.lines) assert.ok(visibleWidth(line) <= 80, `wider than 80 columns: ${line}`);
    assert.equal(t.lines.at(-1), `HTML report: ${report}`);
    const drawn = frames(t.raw);
    assert.ok(drawn.length >= 1, `no progress frame in ${JSON.stringify(t.raw.slice(0, 300))}`);
    for (const f of drawn) {
      assert.ok(visibleWidth(f) <= 79, `progress wider than the terminal: ${f}`);
      assert.match(f, /\d+%.* claims .*\/1m00s simulated .*ETA /);
    }
  });

  it('in loopback mode the progress line counts toward the end of the run, with time, rate and ETA', async () => {
    // Steady without its thresholds: in real time they measure the machine as well (a p99 of
    // 799.8 ms against 800 on a loaded CI), and this test is about the progress line. The
    // invariants still hold the exit status.
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-tty-steady-'));
    const scenario = join(dir, 'steady.json');
    await writeFile(scenario, JSON.stringify({ ...(await loadScenario('steady')), thresholds: [] }));
    const t = await inTerminal(['run', scenario, '--duration', '4s', '--loopback'], 70);
    assert.equal(t.status, 0, t.lines.join('\n'));
    const drawn = frames(t.raw);
    assert.ok(drawn.length >= 1, 'no progress frame');
    // Not "claims so far" (always full): partly filled, and never going back.
    assert.ok(
      drawn.some((f) => percent(f) < 100 && f.includes('.]')),
      drawn.join('\n'),
    );
    for (const [i, f] of drawn.entries()) {
      assert.match(f, /\/4s elapsed .*claims\/s {2}ETA /);
      assert.ok(visibleWidth(f) <= 69, f);
      if (i > 0) assert.ok(percent(f) >= percent(drawn[i - 1]!), drawn.join('\n'));
    }
    for (const line of t.lines) assert.ok(visibleWidth(line) <= 70, `wider than 70 columns: ${line}`);
  });

  it('bare, it prints help fitted to a narrow terminal; list continues descriptions under themselves', async () => {
    const t = await inTerminal([], 50);
    assert.equal(t.status, 0);
    assert.ok(t.lines.includes('Usage:'), t.lines.join('\n'));
    for (const line of t.lines) assert.ok(visibleWidth(line) <= 50, `wider than 50 columns: ${line}`);
    const list = await inTerminal(['list'], 72);
    assert.equal(list.status, 0);
    for (const line of list.lines) {
      assert.ok(visibleWidth(line) <= 72, `wider than 72 columns: ${line}`);
      assert.match(line, /^([a-z0-9-]+ +| {27})\S/, `neither a scenario nor its description: ${line}`);
    }
    assert.ok(list.lines.length > 9, 'descriptions wrapped');
  });
});
