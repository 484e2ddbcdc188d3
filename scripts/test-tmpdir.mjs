// Loaded (through fc-setup.mjs) by every package's test process. Each test process writes its
// temporary files (claims files, ledgers, reports, audit logs, and those of the CLIs it spawns,
// which inherit TMPDIR) under a directory of its own, removed when the process exits: a run of
// the suites left about 28 files in the machine's temporary directory, and they piled up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'rxgate-test-'));
process.env.TMPDIR = dir;
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
