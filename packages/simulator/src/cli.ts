// rxgate-sim: run a scenario in virtual time, over loopback HTTP, or against a vendor's sandbox.
// Started by bin/rxgate-sim.js, which says "build first" where this file is not built yet.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { renderHtml } from './html-report.js';
import { withPeer } from './optional-peer.js';
import { servePrometheus } from './prometheus.js';
import { buildReport, formatSummary, VERSION } from './report.js';
import { RunReportSchema } from './report-schema.js';
import { runScenario } from './runner.js';
import { loadScenario, parseScenario, SCENARIO_NAMES, type Scenario, ScenarioError } from './scenario.js';
import { fitToWidth, progressLine } from './terminal.js';
import { checkThresholds, THRESHOLD_METRICS as THRESHOLD_NAMES } from './thresholds.js';
import { formatTimeline } from './timeline.js';

const THRESHOLDS = fitToWidth(THRESHOLD_NAMES.join(', '), 76).replaceAll('\n', '\n  ');
const HELP = `rxgate-sim — prove rxgate's policies under chaos

Usage:
  rxgate-sim run <scenario|file.json> [options]   run a scenario (rxgate-sim list names them;
                                                  \`run\` alone runs pharmacy-day: 500,000 claims)
  rxgate-sim replay <run.json|seed> [scenario]    re-run a run bit for bit and print the timeline
                                                  of every claim that broke an invariant
                                                  (--claim ID prints one claim's timeline)
  rxgate-sim list                                 the named scenarios
  rxgate-sim --help | --version

Options for run:
  --seed N                 random seed (same scenario + seed = the same run, byte for byte)
  --claims N               number of claims
  --duration D             simulated duration: 500ms, 90s, 10m, 24h, or milliseconds
  --rate R                 arrival rate, claims per second
  --limit R                the client limiter's rate (with --target: a start the vendor's headers adapt)
  --burst B                the client limiter's burst
  --lane pos|batch         send every claim in one lane (claims files default to batch)
  --loopback               real HTTP to the vendor model on 127.0.0.1, at the scenario's real rate
  --target URL             real HTTP to a vendor that speaks the contract (its sandbox)
  --fallback URL           the fallback node with --target
                           (RXGATE_CLIENT_ID / RXGATE_CLIENT_SECRET: its /oauth/token credentials)
  --shared-idempotency     the nodes share one idempotency store
  --claims-file F          JSON lines of wire-form claims to send (with --target)
  --json                   print the JSON report instead of the summary
  --out F                  also write the JSON report to F
  --report F.html          also write the HTML report to F (one self-contained page)
  --log-file F             write the router's log lines (JSON lines) to F
  --audit-file F           write the audit log (JSON lines) to F
  --ledger F               target mode: the router's durable ledger (default .rxgate/target-ledger.jsonl);
                           a run killed and started again never pays a claim twice
  --store redis://H:P      a shared store: quota, ledger and negative cache in Redis (real time)
  --workers N              N processes sharing the quota through --store (loopback HTTP)
  --prefix P               with --store: the run's key namespace (default rxgate:sim:<fresh run id>);
                           the same P resumes a run's ledger, another run's keys are never read
  --metrics-port P         with --loopback or --target: serve the router's metrics for Prometheus on
                           http://127.0.0.1:P/metrics during the run (0: a free port); needs
                           @opentelemetry/sdk-metrics and @opentelemetry/exporter-prometheus
  --no-progress            no progress bar (there is none in pipes anyway)

Thresholds (in a scenario's "thresholds", checked before the run starts) name one of:
  ${THRESHOLDS}

Exit status: 0 when every threshold and invariant holds, 1 when one breaks, 2 on bad input.`;

function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  if (!m) throw new ScenarioError('--duration', [{ path: '--duration', message: `not a duration: ${v}` }]);
  const n = Number(m[1]);
  return n * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[(m[2] ?? 'ms') as 'ms'];
}

function num(flag: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new ScenarioError(flag, [{ path: flag, message: `not a number: ${v}` }]);
  return n;
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'v' },
      seed: { type: 'string' },
      claims: { type: 'string' },
      duration: { type: 'string' },
      rate: { type: 'string' },
      limit: { type: 'string' },
      burst: { type: 'string' },
      lane: { type: 'string' },
      loopback: { type: 'boolean' },
      target: { type: 'string' },
      fallback: { type: 'string' },
      'shared-idempotency': { type: 'boolean' },
      'claims-file': { type: 'string' },
      prefix: { type: 'string' },
      json: { type: 'boolean' },
      out: { type: 'string' },
      'log-file': { type: 'string' },
      'audit-file': { type: 'string' },
      ledger: { type: 'string' },
      'no-progress': { type: 'boolean' },
      store: { type: 'string' },
      report: { type: 'string' },
      claim: { type: 'string', multiple: true },
      workers: { type: 'string' },
      'metrics-port': { type: 'string' },
    },
  });
  const [command = 'help', name = 'pharmacy-day'] = positionals;
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  if (values.version) {
    process.stdout.write(`rxgate-sim ${VERSION}\n`);
    return 0;
  }
  // Bare `rxgate-sim` prints help: a 500,000-claim run is asked for by name.
  if (values.help || command === 'help') {
    process.stdout.write(`${fitToWidth(HELP, columns)}\n`);
    return 0;
  }
  if (command === 'list') {
    // On a terminal, a description continues under itself, not under the name.
    const room = columns === undefined ? undefined : columns - 27;
    for (const n of SCENARIO_NAMES) {
      const { description } = await loadScenario(n);
      const line =
        room === undefined || room < 30
          ? fitToWidth(`${n.padEnd(26)} ${description}`, columns)
          : `${n.padEnd(26)} ${fitToWidth(description, room)
              .split('\n')
              .map((l) => l.trimStart())
              .join(`\n${' '.repeat(27)}`)}`;
      process.stdout.write(`${line}\n`);
    }
    return 0;
  }
  if (command === 'worker') {
    // A child of --workers: run this share, report back, exit.
    const job = JSON.parse(name) as {
      scenario: unknown;
      worker: number;
      of: number;
      target: string;
      fallback?: string;
      store: string;
      storePrefix: string;
    };
    const s = parseScenario(job.scenario, 'worker');
    const r = await runScenario(s, {
      mode: 'target',
      target: job.target,
      ...(job.fallback ? { fallbackTarget: job.fallback } : {}),
      store: job.store,
      storePrefix: job.storePrefix,
      share: { worker: job.worker, of: job.of },
      ...(s.vendor.tokenTtlSeconds !== undefined
        ? { credentials: { clientId: 'rxgate-sim', clientSecret: 'sim-secret' } }
        : {}),
    });
    const { summarize } = await withPeer(() => import('./workers.js'), 'ioredis', '--workers');
    await new Promise<void>((resolve) => process.send?.(summarize(r), () => resolve()));
    return 0;
  }
  if (command === 'replay')
    return replay(
      name === 'pharmacy-day' && positionals[1] === undefined ? undefined : name,
      positionals[2],
      values.claim ?? [],
    );
  if (command !== 'run') {
    process.stderr.write(`unknown command "${command}"\n\n${HELP}\n`);
    return 2;
  }

  const base = await loadScenario(name);
  let claims: Array<Record<string, unknown>> | undefined;
  // The file line of each claim: an invalid one is named by it.
  const claimLines: number[] = [];
  if (values['claims-file']) {
    const text = await readFile(values['claims-file'], 'utf8');
    claims = [];
    for (const [i, l] of text.split(/\r?\n/).entries()) {
      if (l.trim() === '') continue;
      try {
        claims.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        throw new ScenarioError(values['claims-file']!, [{ path: `line ${i + 1}`, message: 'not JSON' }]);
      }
      claimLines.push(i + 1);
    }
  }
  const lane = values.lane ?? (claims ? 'batch' : undefined);
  if (lane !== undefined && lane !== 'pos' && lane !== 'batch')
    throw new ScenarioError('--lane', [{ path: '--lane', message: 'must be pos or batch' }]);
  const overridden: Scenario = parseScenario(
    {
      ...base,
      seed: num('--seed', values.seed) ?? base.seed,
      traffic: {
        ...base.traffic,
        ...(values.claims ? { claims: num('--claims', values.claims) } : {}),
        ...(values.duration ? { durationMs: parseDuration(values.duration) } : {}),
        ...(values.claims && !values.duration ? { durationMs: undefined } : {}),
        ...(values.rate ? { ratePerSecond: num('--rate', values.rate) } : {}),
        ...(lane ? { lanes: lane === 'pos' ? { pos: 1, batch: 0 } : { pos: 0, batch: 1 } } : {}),
        ...(claims ? { claims: claims.length } : {}),
      },
      client: {
        ...base.client,
        limiter: {
          ...base.client.limiter,
          ...(values.limit ? { ratePerSecond: num('--limit', values.limit) } : {}),
          ...(values.burst ? { burst: num('--burst', values.burst) } : {}),
        },
      },
      nodes: {
        ...base.nodes,
        ...(values['shared-idempotency'] ? { sharedIdempotency: true } : {}),
        ...(values.fallback ? { fallback: true } : {}),
      },
    },
    name,
  );
  // A threshold naming no metric is an error now, not a line in the summary a whole run later.
  const badThresholds = checkThresholds(overridden.thresholds);
  if (badThresholds.length > 0)
    throw new ScenarioError(
      name,
      badThresholds.map((message) => ({ path: 'thresholds', message })),
    );

  const workers = values.workers === undefined ? undefined : num('--workers', values.workers);
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1))
    throw new ScenarioError('--workers', [{ path: '--workers', message: 'must be a whole number >= 1' }]);
  if (workers !== undefined && values.store === undefined)
    throw new ScenarioError('--workers', [
      { path: '--workers', message: 'processes share one quota through --store redis://…' },
    ]);
  const mode = values.target ? 'target' : values.loopback || values.store ? 'loopback' : 'virtual';
  const metricsPort = num('--metrics-port', values['metrics-port']);
  if (metricsPort !== undefined && (mode === 'virtual' || workers !== undefined))
    throw new ScenarioError('--metrics-port', [
      {
        path: '--metrics-port',
        message:
          mode === 'virtual'
            ? 'serves a real-time run: add --loopback or --target (a virtual run is over before a scrape)'
            : 'not with --workers (each worker is its own process)',
      },
    ]);
  const prometheus = metricsPort === undefined ? undefined : await servePrometheus(metricsPort);
  if (prometheus) process.stderr.write(`metrics: ${prometheus.url}\n`);
  const showProgress = !values['no-progress'] && !values.json && process.stderr.isTTY === true;
  const wall0 = performance.now();
  let lastDraw = Number.NEGATIVE_INFINITY;
  const draw = (
    p: { settled: number; submitted: number; total: number | undefined; elapsedMs: number },
    counting: 'claims' | 'requests' = 'claims',
  ) => {
    const now = performance.now();
    if (now - lastDraw < 100) return;
    lastDraw = now;
    const width = process.stderr.columns ?? 80;
    const line = progressLine(
      {
        settled: p.settled,
        submitted: p.submitted,
        totalClaims: p.total,
        elapsedMs: p.elapsedMs,
        durationMs: overridden.traffic.durationMs,
        wallMs: now - wall0,
        timeLabel: mode === 'virtual' ? 'simulated' : 'elapsed',
        counting,
      },
      width - 1,
    );
    process.stderr.write(`\r\x1b[2K${line}`);
  };
  const result =
    workers !== undefined
      ? await (await withPeer(() => import('./workers.js'), 'ioredis', '--workers')).runWorkers(overridden, {
          workers,
          store: values.store!,
          cliPath: fileURLToPath(import.meta.url),
          ...(showProgress
            ? {
                onProgress: (p) =>
                  draw(
                    { settled: p.requests, submitted: p.requests, total: undefined, elapsedMs: p.elapsedMs },
                    'requests',
                  ),
              }
            : {}),
        })
      : await runScenario(overridden, {
          ...(values.store ? { store: values.store } : {}),
          ...(values.prefix ? { storePrefix: values.prefix } : {}),
          mode,
          ...(values.target ? { target: values.target } : {}),
          ...(values.fallback ? { fallbackTarget: values.fallback } : {}),
          ...(values.target && process.env.RXGATE_CLIENT_ID && process.env.RXGATE_CLIENT_SECRET
            ? {
                credentials: {
                  clientId: process.env.RXGATE_CLIENT_ID,
                  clientSecret: process.env.RXGATE_CLIENT_SECRET,
                },
              }
            : {}),
          ...(claims
            ? {
                claims,
                claimLines,
                claimsFile: values['claims-file']!,
                asFastAsAdmitted: values.rate === undefined,
              }
            : {}),
          ...(values['log-file'] ? { logFile: values['log-file'] } : {}),
          ...(values['audit-file'] ? { auditFile: values['audit-file'] } : {}),
          ...(values.ledger ? { ledgerFile: values.ledger } : {}),
          ...(prometheus ? { telemetry: prometheus.telemetry } : {}),
          ...(showProgress
            ? {
                onProgress: (p) => draw(p),
              }
            : {}),
        });
  await prometheus?.close();
  if (showProgress) process.stderr.write('\r\x1b[2K');
  for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
  const wallMs = performance.now() - wall0;
  const report = buildReport(result);
  const json = `${JSON.stringify(report.json, null, 2)}\n`;
  if (values.out) {
    await mkdir(dirname(values.out), { recursive: true });
    await writeFile(values.out, json);
  }
  if (values.report) {
    await mkdir(dirname(values.report), { recursive: true });
    await writeFile(values.report, renderHtml(report.json));
  }
  if (values.json) process.stdout.write(json);
  else
    process.stdout.write(
      `${fitToWidth(formatSummary(result, report, { color: process.stdout.isTTY === true, wallMs }), columns)}\n`,
    );
  // Where the files went, last, where the eye lands (stderr under --json: stdout is the JSON).
  const written = [
    ...(values.out ? [`JSON report: ${shown(values.out)}`] : []),
    ...(values.report ? [`HTML report: ${shown(values.report)}`] : []),
    ...(values['log-file'] ? [`log: ${shown(values['log-file'])}`] : []),
    ...(values['audit-file'] ? [`audit log: ${shown(values['audit-file'])}`] : []),
  ];
  if (written.length > 0)
    (values.json ? process.stderr : process.stdout).write(`${fitToWidth(written.join('\n'), columns)}\n`);
  return report.ok ? 0 : 1;
}

/** A path as the user can open it: relative to where they are, unless that climbs out. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

async function replay(
  what: string | undefined,
  scenarioName: string | undefined,
  claims: string[],
): Promise<number> {
  if (what === undefined)
    throw new ScenarioError('replay', [{ path: 'replay', message: 'give a run.json or a seed' }]);
  let scenario: Scenario;
  let expectedHash: string | undefined;
  if (/^-?\d+$/.test(what)) {
    const base = await loadScenario(scenarioName ?? 'pharmacy-day');
    scenario = parseScenario({ ...base, seed: Number(what) }, scenarioName ?? 'pharmacy-day');
  } else {
    const checked = RunReportSchema.safeParse(JSON.parse(await readFile(what, 'utf8')));
    if (!checked.success)
      throw new ScenarioError(
        what,
        checked.error.issues.slice(0, 5).map((i) => ({
          path: i.path.join('.') || '(report)',
          message: `not a run report of rxgate-sim (--json/--out): ${i.message}`,
        })),
      );
    const saved = checked.data;
    scenario = parseScenario(saved.definition, what);
    expectedHash = saved.hash;
  }
  const result = await runScenario(scenario, {
    keepAudit: true,
    ...(claims.length ? { traceCorrelationIds: claims } : {}),
  });
  const report = buildReport(result);
  if (expectedHash !== undefined && expectedHash !== result.hash) {
    process.stderr.write(
      `scenario hash ${result.hash} differs from the run's ${expectedHash}: not the same run\n`,
    );
    return 2;
  }
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  process.stdout.write(`${fitToWidth(formatTimeline(result, claims), columns)}\n`);
  return report.ok ? 0 : 1;
}

// `rxgate-sim list | head -3`: the reader left; nothing more to say, and no trace about it.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof ScenarioError) {
      process.stderr.write(
        `${fitToWidth(e.message, process.stderr.isTTY ? process.stderr.columns : undefined)}\n`,
      );
      process.exitCode = 2;
    } else if (e instanceof Error && (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(
        `${e.message}\n\n${fitToWidth(HELP, process.stderr.isTTY ? process.stderr.columns : undefined)}\n`,
      );
      process.exitCode = 2;
    } else {
      process.stderr.write(`rxgate-sim: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 2;
    }
  },
);
