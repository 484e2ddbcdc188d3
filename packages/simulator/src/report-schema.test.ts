import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildReport } from './report.js';
import { RunReportSchema } from './report-schema.js';
import { runScenario } from './runner.js';
import { loadScenario, parseScenario } from './scenario.js';

describe('RunReport', () => {
  it('the JSON writer produces what the schema describes, through JSON and back', async () => {
    for (const name of ['steady', 'exactly-once']) {
      const s = await loadScenario(name);
      const short = parseScenario({ ...s, traffic: { ...s.traffic, durationMs: 30_000 } });
      const run = await runScenario(short);
      const json = JSON.parse(JSON.stringify(buildReport(run).json));
      const parsed = RunReportSchema.safeParse(json);
      // The reconciliation rate before and after is in the report, as the run counted it.
      assert.deepEqual(json.reconciliation, { ...run.reconciliation });
      assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
      // Nothing the writer wrote is unknown to the schema at the top level.
      assert.deepEqual(
        Object.keys(json).filter((k) => !(k in RunReportSchema.shape)),
        [],
      );
    }
  });

  it('replay refuses a file that is not a run report, naming the path that does not fit', async () => {
    const s = await loadScenario('steady');
    const short = parseScenario({ ...s, traffic: { ...s.traffic, durationMs: 5000 } });
    const json = JSON.parse(JSON.stringify(buildReport(await runScenario(short)).json));
    delete json.timeSeries;
    const file = join(tmpdir(), `rxgate-bad-report-${process.pid}.json`);
    await writeFile(file, JSON.stringify(json));
    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    const r = spawnSync(process.execPath, ['--import', 'tsx', cli, 'replay', file], { encoding: 'utf8' });
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, /timeSeries/);
  });
});
