// What a run watches: the router's log lines, events and audit records (each scanned for PHI by
// the fast scanner and offered to the independent oracle), the breakers' probes (the half-open
// bound, from outside), and the time series, latencies and counts of the report.
import { createWriteStream, type WriteStream } from 'node:fs';
import type { BreakerEvent } from '@rxgate/breaker';
import type { Clock } from '@rxgate/ratelimit';
import { type AuditRecord, JsonlAuditLog, type RouterEvent } from '@rxgate/router';
import { LatencyHistogram } from './latency.js';
import { PhiOracle } from './phi-oracle.js';
import { PhiScanner } from './phi-scan.js';
import type { RunResult } from './run-types.js';
import { Series } from './series.js';

// Verdicts that mean the vendor adjudicated the claim: goodput.
const ADJUDICATED = new Set(['adjudicated', 'terminal-reject', 'repairable', 'duplicate', 'routing-reject']);
const RESOLVED = Promise.resolve();

export interface ObserverOptions {
  readonly clock: Clock;
  readonly start: number;
  readonly virtual: boolean;
  readonly bucketMs: number;
  readonly phiOracleSample: number | undefined;
  readonly logFile: string | undefined;
  readonly auditFile: string | undefined;
  /** Keep every audit record while its claim runs (and after, if it broke an invariant). */
  readonly keepAudit: boolean;
  readonly traceCorrelationIds: readonly string[];
}

export class RunObservers {
  readonly series: Series;
  readonly phi = new PhiScanner();
  readonly oracle: PhiOracle;
  readonly latency = {
    all: new LatencyHistogram(),
    pos: new LatencyHistogram(),
    batch: new LatencyHistogram(),
  };
  readonly outcomes: Record<string, number> = {};
  readonly rejectCodes: Record<string, number> = {};
  readonly transitions: Array<RunResult['breakerTransitions'][number]> = [];
  readonly auditByCorrelation = new Map<string, AuditRecord[]>();
  readonly traced: ReadonlySet<string>;
  attempts = 0;
  throttledAnswers = 0;
  failovers = 0;
  adjudicatedAnswers = 0;
  /** Most half-open probes in flight at once in any breaker. */
  maxProbes = 0;
  readonly #probes = new Map<string, number>();
  readonly #o: ObserverOptions;
  readonly #log: WriteStream | undefined;
  readonly #fileAudit: JsonlAuditLog | undefined;
  #fileWrites: Promise<unknown> = Promise.resolve();

  constructor(o: ObserverOptions) {
    this.#o = o;
    this.series = new Series(o.bucketMs);
    this.oracle = new PhiOracle(o.phiOracleSample);
    this.traced = new Set(o.traceCorrelationIds);
    this.#log = o.logFile ? createWriteStream(o.logFile, { flags: 'w' }) : undefined;
    this.#fileAudit = o.auditFile ? new JsonlAuditLog(o.auditFile) : undefined;
  }

  /** Milliseconds since the run started. */
  rel(): number {
    return this.#o.clock.now() - this.#o.start;
  }

  /** The router's logger: JSON lines, scanned, offered to the oracle, written to the log file. */
  readonly logger = {
    debug: this.#logLine('debug'),
    info: this.#logLine('info'),
    warn: this.#logLine('warn'),
    error: this.#logLine('error'),
  };

  #logLine(level: string) {
    return (obj: object, msg?: string) => {
      const line = JSON.stringify({ level, t: Math.round(this.rel()), msg, ...obj });
      this.phi.scan('log', line);
      this.oracle.offer('log', line);
      this.#log?.write(`${line}\n`);
    };
  }

  /** The router's audit log: records kept while a claim is in flight, and afterwards only if it broke an invariant. */
  readonly audit = {
    append: (r: AuditRecord): Promise<void> => {
      this.phi.scanValue('audit', r);
      this.oracle.offer('audit', r);
      if (this.#o.keepAudit) {
        let list = this.auditByCorrelation.get(r.correlationId);
        if (list === undefined) {
          list = [];
          this.auditByCorrelation.set(r.correlationId, list);
        }
        list.push(r);
      }
      const file = this.#fileAudit;
      if (file === undefined) return RESOLVED;
      // On the virtual clock, waiting for the disk would let simulated time run on while the
      // claim waits: the file is written in order, and awaited once, at the end.
      if (this.#o.virtual) {
        this.#fileWrites = this.#fileWrites.then(() => file.append(r)).catch(() => undefined);
        return RESOLVED;
      }
      return file.append(r);
    },
    close: async () => {
      await this.#fileWrites;
      await this.#fileAudit?.close();
    },
  };

  readonly onEvent = (e: RouterEvent): void => {
    this.phi.scanValue('event', e);
    this.oracle.offer('event', e);
    const b = this.series.at(this.rel());
    if (e.type === 'attempt') {
      this.attempts++;
      b.sent++;
      if (e.verdict === 'throttled') {
        this.throttledAnswers++;
        b.throttled++;
      } else if (ADJUDICATED.has(e.verdict)) {
        this.adjudicatedAnswers++;
        b.adjudicated++;
      }
    } else if (e.type === 'decision' && e.decision.startsWith('failover')) {
      this.failovers++;
      b.failedOver++;
    } else if (e.type === 'breaker') {
      this.transitions.push({
        at: Math.round(e.at - this.#o.start),
        key: e.key,
        from: e.from,
        to: e.to,
        reason: e.reason,
      });
    }
  };

  /** The half-open bound, watched from outside: probes of the current episode in flight. */
  readonly onBreakerEvent = (key: string, e: BreakerEvent): void => {
    const probes = this.#probes;
    if (e.type === 'state-change') probes.set(key, 0);
    else if (e.type === 'probe-started') {
      const n = (probes.get(key) ?? 0) + 1;
      probes.set(key, n);
      if (n > this.maxProbes) this.maxProbes = n;
    } else if (e.type === 'probe-finished') probes.set(key, Math.max(0, (probes.get(key) ?? 0) - 1));
  };

  /** Ends the log file. */
  async close(): Promise<void> {
    const log = this.#log;
    if (log) await new Promise<void>((r) => log.end(r));
  }
}
