#!/usr/bin/env node
// The rxgate-sim command. This file is committed, not built: npm links a bin at install time,
// before any build, and a bin that does not exist yet is not linked, so `npx rxgate-sim` would
// go to the public registry for a package of that name. It starts the built CLI, and says what
// to do where there is none yet instead of printing a module-not-found trace.
//
// A young generation of 64 MB semi-spaces (V8's default is 16 MB on 64-bit): a run keeps
// thousands of claims in flight (queued behind the limiter, waiting on the vendor's virtual
// latency), and with the default each of them is copied by several scavenges before it ends.
// V8 reads the size only at start-up, so `run` and `replay` start the CLI again in a child
// process with the flag (unless the size is already given, in the command or NODE_OPTIONS, or
// RXGATE_SIM_SEMI_SPACE_MB=0 asks for V8's default); the child's exit code or signal is this
// process's. See the simulator README (Performance).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write(
    'rxgate-sim is not built yet (@rxgate/simulator has no dist/).\n' +
      'Run `npm run build` at the root of the rxgate repository first, then try again.\n',
  );
  process.exitCode = 1;
} else {
  const { childArgv, semiSpaceArgv } = await import('./semi-space.js');
  const extra = semiSpaceArgv(process.argv.slice(2), process.execArgv, process.env);
  if (extra.length === 0) await import(cli.href);
  else {
    // `--inspect*` (in the command or NODE_OPTIONS) goes to the child unchanged: the run to
    // debug is there. This process lets go of the inspector's port first, so the child can
    // listen on the same host:port the user gave.
    const inspector = await import('node:inspector');
    if (inspector.url() !== undefined) inspector.close();
    const child = spawn(
      process.execPath,
      childArgv(extra, process.execArgv, fileURLToPath(cli), process.argv.slice(2)),
      { stdio: 'inherit' },
    );
    // Signals go on to the child, and the parent waits for it to end. Ctrl-C at a terminal
    // reaches both (the whole group): a second SIGINT to a child that ends on the first is moot,
    // and a `kill -INT` of this pid alone (a supervisor) still stops the run.
    const forward = (signal) => child.kill(signal);
    child.on('error', (e) => {
      process.stderr.write(`rxgate-sim: could not start node: ${e.message}\n`);
      process.exitCode = 1;
    });
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    process.on('SIGHUP', forward);
    child.on('exit', (code, signal) => {
      if (signal !== null) {
        process.removeAllListeners(signal);
        process.kill(process.pid, signal);
      } else process.exitCode = code ?? 1;
    });
  }
}
