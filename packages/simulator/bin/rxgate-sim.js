#!/usr/bin/env node
// The rxgate-sim command. This file is committed, not built: npm links a bin at install time,
// before any build, and a bin that does not exist yet is not linked, so `npx rxgate-sim` would
// go to the public registry for a package of that name. It starts the built CLI, and says what
// to do where there is none yet instead of printing a module-not-found trace.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (existsSync(cli)) {
  await import(cli.href);
} else {
  process.stderr.write(
    'rxgate-sim is not built yet (@rxgate/simulator has no dist/).\n' +
      'Run `npm run build` at the root of the rxgate repository first, then try again.\n',
  );
  process.exitCode = 1;
}
