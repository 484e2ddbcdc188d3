// --metrics-port: a loopback run serves the router's metrics for Prometheus, and a scrape taken
// while claims are still arriving finds the claim counters (by outcome and lane) below the total.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { servePrometheus } from './prometheus.js';
import { runScenario } from './runner.js';
import { loadScenario, parseScenario } from './scenario.js';

/** The value of each sample of `metric` in a Prometheus text page, by its label set. */
function samples(page: string, metric: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of page.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? ([0-9.e+-]+)/.exec(line);
    if (m && m[1] === metric) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

describe('Prometheus metrics (--metrics-port)', () => {
  it('a scrape during a run finds the claim counters, below the total', async () => {
    const base = await loadScenario('steady');
    // A virtual run (deterministic: no real second, no scheduling): the scrape is taken at the
    // simulated instant of the first progress report with some claims ended and at least 4 s of
    // traffic still to arrive. Its page is the one the endpoint serves (the same exporter and
    // serializer); that it is served over HTTP during a loopback run is the CLI test's below.
    const durationMs = 12_000;
    const s = parseScenario({ ...base, traffic: { ...base.traffic, durationMs, ratePerSecond: 10 } });
    const endpoint = await servePrometheus(0);
    let scrape: Promise<{ page: string; settled: number }> | undefined;
    const result = await runScenario(s, {
      mode: 'virtual',
      telemetry: endpoint.telemetry,
      onProgress: (p) => {
        if (scrape === undefined && p.settled >= 5 && p.elapsedMs <= durationMs - 4000) {
          const settled = p.settled;
          scrape = endpoint.scrape().then((page) => ({ page, settled }));
        }
      },
    });
    await endpoint.close();
    assert.ok(scrape, 'a progress report came while the run went on');
    const { page, settled } = await scrape;
    const claims = samples(page, 'rxgate_router_claims_total');
    assert.ok(claims.size > 0, `no rxgate_router_claims_total in\n${page.slice(0, 2000)}`);
    const scraped = [...claims.values()].reduce((a, b) => a + b, 0);
    assert.ok(scraped >= settled, `${scraped} claims counted, ${settled} had ended`);
    assert.ok(scraped < result.claims, `scraped during the run: ${scraped} of ${result.claims}`);
    for (const labels of claims.keys()) assert.match(labels, /rxgate_lane="(pos|batch)".*rxgate_outcome="/);
    // The attempts, their durations and the limiter's instruments come along.
    assert.ok(samples(page, 'rxgate_router_attempts_total').size > 0);
    assert.ok(samples(page, 'rxgate_router_attempt_duration_count').size > 0);
    assert.ok(samples(page, 'rxgate_limiter_acquired_total').size > 0);
  });

  it('the CLI serves it from the start of a loopback run and names the URL; a virtual run refuses it', async () => {
    const cli = fileURLToPath(new URL('./cli.ts', import.meta.url));
    // A run far longer than the test: the scrape cannot come after its end however slow the
    // machine, and the test stops it once it has scraped (no real seconds waited for its end).
    const child = spawn(process.execPath, [
      '--import',
      'tsx',
      cli,
      'run',
      'steady',
      '--duration',
      '10m',
      '--loopback',
      '--metrics-port',
      '0',
    ]);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    let stderr = '';
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (c: Buffer) => {
          stderr += c;
          const m = /metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(stderr);
          if (m) resolve(m[1]!);
        });
        void exited.then(() => reject(new Error(`exited before naming the metrics URL:\n${stderr}`)));
        // A bound on a hang (the run would go on for 10 minutes), not a measurement.
        setTimeout(() => reject(new Error(`no metrics URL named within 60 s:\n${stderr}`)), 60_000).unref();
      });
      const r = await fetch(url);
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /text\/plain/);
      assert.match(await r.text(), /target_info/);
    } finally {
      child.kill('SIGINT');
    }
    // Stopped by our SIGINT, not ended on its own (2, a usage error, would have come first).
    assert.deepEqual(await exited, { code: null, signal: 'SIGINT' }, stderr);

    const refused = spawn(process.execPath, ['--import', 'tsx', cli, 'run', 'steady', '--metrics-port', '9']);
    let err = '';
    refused.stderr.on('data', (c: Buffer) => {
      err += c;
    });
    assert.equal(await new Promise((resolve) => refused.on('exit', resolve)), 2);
    assert.match(err, /--metrics-port.*--loopback or --target/s);
  });
});
