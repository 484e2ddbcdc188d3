#!/usr/bin/env node
// `npm test`: runs every package's tests through turbo, streams the output, and closes with
// one summed line ("tests: N passed, N failed") so a reader (or CI) sees the whole result.
import { spawn } from 'node:child_process';

// --continue: a failing package does not cancel the others, so the closing line counts every test.
const args = [
  'turbo',
  'run',
  'test',
  '--continue',
  '--log-order=grouped',
  '--output-logs=full',
  ...process.argv.slice(2),
];
const child = spawn('npx', args, {
  stdio: ['ignore', 'pipe', 'pipe'],
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
});
let passed = 0;
let failed = 0;
let skipped = 0;
let buffer = '';
const count = (line) => {
  const m = /(?:ℹ|#) (pass|fail|skipped) (\d+)\s*$/.exec(line);
  if (!m) return;
  const n = Number(m[2]);
  if (m[1] === 'pass') passed += n;
  else if (m[1] === 'fail') failed += n;
  else skipped += n;
};
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  buffer += chunk.toString();
  const lines = buffer.split('\n');
  buffer = lines.pop() ?? '';
  lines.forEach(count);
});
child.stderr.pipe(process.stderr);
child.on('close', (code) => {
  count(buffer);
  process.stdout.write(
    `\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`,
  );
  process.exit(code ?? 1);
});
