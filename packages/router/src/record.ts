import type { Verdict } from '@rxgate/classifier';
import type { AuditRecord } from './audit.js';
import { AuditKeeper } from './audit-keeper.js';
import { hasSubscribers, publish } from './channels.js';
import { decimalFixed } from './claim.js';
import type { Lane } from './decide.js';
import type { Resolved } from './options.js';
import { type RouterOtel, routerOtel } from './otel.js';
import type { Outcome } from './outcome.js';
import {
  type CounterHandle,
  type GaugeHandle,
  type HistogramHandle,
  labels,
  Metrics,
  type RouterEvent,
  type SafeLogger,
  safeLogger,
} from './telemetry.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The PHI-free identity of one submission, as every record names it. */
export interface Subject {
  readonly correlationId: string;
  readonly claimKey: string;
  readonly lane: Lane;
}

interface NodeMetrics {
  readonly attempts: Map<string, CounterHandle>;
  readonly latency: HistogramHandle;
  readonly remaining: GaugeHandle;
  readonly throttled: CounterHandle;
  readonly backoffs: CounterHandle;
}

/**
 * Telemetry in one place: each thing the router records — an attempt, a decision, an outcome —
 * goes to the audit log, the event callback, the metrics and the log together, here and
 * nowhere else. Nothing here sees a claim: subjects and outcomes carry no PHI.
 */
export class Recorder {
  readonly metrics: Metrics;
  readonly log: SafeLogger;
  readonly audit: AuditKeeper;
  /** OpenTelemetry, when @opentelemetry/api is installed (and `telemetry` is not false). */
  readonly otel: RouterOtel | undefined;
  readonly #o: Resolved;
  readonly #nodes: Map<string, NodeMetrics>;
  readonly #outcomes: Record<Lane, Map<string, CounterHandle>> = { pos: new Map(), batch: new Map() };
  readonly #claimLatency: Record<Lane, HistogramHandle>;
  readonly #waits: Record<Lane, HistogramHandle>;
  readonly #auditBacklog: GaugeHandle;
  readonly #auditDropped: CounterHandle;

  constructor(o: Resolved) {
    this.#o = o;
    const metrics = o.metrics ?? new Metrics();
    this.metrics = metrics;
    this.log = safeLogger(o.logger);
    this.otel = routerOtel(o.telemetry);
    this.otel?.watch(o.limiter, o.breakers);
    this.#nodes = new Map(
      o.nodes.map((n) => [
        n.name,
        {
          attempts: new Map(),
          latency: metrics.histogram('rxgate_attempt_latency_ms', labels(n.name, undefined)),
          remaining: metrics.gauge('rxgate_remaining_quota', labels(n.name, undefined)),
          throttled: metrics.counter('rxgate_throttled_total', labels(n.name, undefined)),
          backoffs: metrics.counter('rxgate_backoffs_total', labels(n.name, undefined)),
        },
      ]),
    );
    this.#claimLatency = {
      pos: metrics.histogram('rxgate_claim_latency_ms', labels(undefined, 'pos')),
      batch: metrics.histogram('rxgate_claim_latency_ms', labels(undefined, 'batch')),
    };
    this.#waits = {
      pos: metrics.histogram('rxgate_wait_ms', labels(undefined, 'pos')),
      batch: metrics.histogram('rxgate_wait_ms', labels(undefined, 'batch')),
    };
    this.#auditBacklog = metrics.gauge('rxgate_audit_backlog', {});
    this.#auditDropped = metrics.counter('rxgate_audit_dropped_total', {});
    this.audit = new AuditKeeper(o.audit, o.clock, o.auditBacklogLimit, o.auditRetryBaseMs, (alarm) => {
      this.#auditBacklog.set(this.audit.backlog);
      this.otel?.auditBacklog(this.audit.backlog);
      if (alarm.state === 'dropped') this.#auditDropped.inc(alarm.records);
      this.emit(alarm);
      if (alarm.state === 'recovered')
        this.log.info({ audit: 'recovered', written: alarm.written }, 'audit log recovered');
      else
        this.log.error(
          {
            audit: alarm.state,
            ...('backlog' in alarm
              ? { backlog: alarm.backlog, error: alarm.error }
              : { records: alarm.records }),
          },
          'audit log failing',
        );
    });
  }

  /** Whether an event of `type` reaches anyone: the per-claim events are built only then. */
  #heard(type: RouterEvent['type']): boolean {
    return this.#o.onEvent !== undefined || this.otel !== undefined || hasSubscribers(type);
  }

  /** One event, to every listener: `onEvent`, the diagnostics channels, OpenTelemetry. */
  emit(e: RouterEvent): void {
    this.#o.onEvent?.(e);
    publish(e);
    this.otel?.event(e, this.#o.clock.now());
  }

  /** The audit log's close failed: what it could not write is counted out, and the router closes all the same. */
  auditCloseFailed(e: unknown): void {
    const records = (e as { records?: unknown } | null)?.records;
    if (typeof records === 'number' && records > 0) this.audit.drop(records);
    else {
      const code =
        typeof (e as { code?: unknown } | null)?.code === 'string' ? (e as { code: string }).code : 'error';
      this.log.error({ audit: 'close-failed', error: code }, 'audit log failing');
    }
  }

  /** A decision of the router about one claim (`wait:throttled`, `failover:transient`, …). */
  decision(s: Subject, path: string[], decision: string, extra?: Partial<Mutable<AuditRecord>>): void {
    path.push(decision);
    if (this.#heard('decision')) {
      // Built field by field, not spread: one object a decision, not three.
      const e: Mutable<Extract<RouterEvent, { type: 'decision' }>> = {
        type: 'decision',
        correlationId: s.correlationId,
        decision,
      };
      if (extra?.waitMs !== undefined) e.waitMs = extra.waitMs;
      this.emit(e);
    }
    if (decision.startsWith('wait:') && extra?.waitMs !== undefined)
      (s.lane === 'pos' ? this.#waits.pos : this.#waits.batch).observe(extra.waitMs);
    const record: Mutable<AuditRecord> = {
      at: this.#o.clock.now(),
      correlationId: s.correlationId,
      claimKey: s.claimKey,
      type: 'decision',
      decision,
      lane: s.lane,
    };
    if (extra !== undefined) Object.assign(record, extra);
    void this.audit.append(record);
  }

  /** One request and its verdict. */
  attempt(s: Subject, attempt: number, node: string, verdict: Verdict, latencyMs: number, at: number): void {
    const nm = this.#nodes.get(node)!;
    let attempts = nm.attempts.get(verdict.kind);
    if (attempts === undefined) {
      attempts = this.metrics.counter('rxgate_attempts_total', labels(node, undefined, verdict.kind));
      nm.attempts.set(verdict.kind, attempts);
    }
    attempts.inc();
    nm.latency.observe(latencyMs);
    if (verdict.quota?.remaining !== undefined) {
      nm.remaining.set(verdict.quota.remaining);
      this.otel?.remaining(node, verdict.quota.remaining);
    }
    if (verdict.kind === 'throttled') nm.throttled.inc();
    if (verdict.kind === 'transient' || verdict.kind === 'ambiguous') nm.backoffs.inc();
    if (this.#heard('attempt')) {
      const e: Mutable<Extract<RouterEvent, { type: 'attempt' }>> = {
        type: 'attempt',
        correlationId: s.correlationId,
        node,
        attempt,
        verdict: verdict.kind,
        latencyMs,
      };
      if (verdict.status !== undefined) e.status = verdict.status;
      this.emit(e);
    }
    const record: Mutable<AuditRecord> = {
      at,
      correlationId: s.correlationId,
      claimKey: s.claimKey,
      type: 'attempt',
      attempt,
      node,
      lane: s.lane,
      verdict: verdict.kind,
    };
    if (verdict.status !== undefined) record.status = verdict.status;
    if ('rejectCodes' in verdict && verdict.rejectCodes !== undefined && verdict.rejectCodes.length > 0)
      record.codes = verdict.rejectCodes.map((c) => c.code);
    void this.audit.append(record);
  }

  /** The claim's one outcome: counted, announced, and written durably (or held: then `auditDegraded`). */
  outcome(outcome: Outcome, lane: Lane): Promise<Outcome> {
    // Lanes by name: a keyed read of two names is a megamorphic property access.
    const byKind = lane === 'pos' ? this.#outcomes.pos : this.#outcomes.batch;
    let outcomes = byKind.get(outcome.kind);
    if (outcomes === undefined) {
      outcomes = this.metrics.counter('rxgate_outcomes_total', labels(undefined, lane, outcome.kind));
      byKind.set(outcome.kind, outcomes);
    }
    outcomes.inc();
    (lane === 'pos' ? this.#claimLatency.pos : this.#claimLatency.batch).observe(outcome.elapsedMs);
    if (this.#heard('outcome'))
      this.emit({
        type: 'outcome',
        correlationId: outcome.correlationId,
        kind: outcome.kind,
        lane,
        attempts: outcome.attempts,
        elapsedMs: outcome.elapsedMs,
        path: outcome.path,
      });
    const record: Mutable<AuditRecord> = {
      at: this.#o.clock.now(),
      correlationId: outcome.correlationId,
      claimKey: outcome.claimKey,
      type: 'outcome',
      lane,
      path: outcome.path,
      outcome: auditView(outcome),
    };
    if (outcome.snapshotVersion !== undefined) record.snapshotVersion = outcome.snapshotVersion;
    // No promise chain when the keeper knows at once (the memory log, or a held record).
    const now = this.audit.appendAtOnce(record);
    if (now !== undefined) return Promise.resolve(this.#written(outcome, now));
    return this.audit.append(record).then((written) => this.#written(outcome, written));
  }

  /** The outcome once its record is written (or held: then it says `auditDegraded`). */
  #written(outcome: Outcome, written: boolean): Outcome {
    this.#auditBacklog.set(this.audit.backlog);
    this.otel?.auditBacklog(this.audit.backlog);
    if (!written) (outcome as Mutable<Outcome>).auditDegraded = true;
    return outcome;
  }
}

/** The PHI-free fields of an outcome for the audit log (amounts as decimal strings). */
export function auditView(o: Outcome): Record<string, unknown> {
  const view: Record<string, unknown> = { kind: o.kind, attempts: o.attempts, elapsedMs: o.elapsedMs };
  if (o.generation !== undefined) view.generation = o.generation;
  switch (o.kind) {
    case 'paid':
    case 'approved':
    case 'captured':
    case 'duplicate':
      view.node = o.node;
      if (o.amounts.patientPay !== undefined) view.patientPay = decimalFixed(o.amounts.patientPay, 2);
      if (o.amounts.ingredientCostPaid !== undefined)
        view.ingredientCostPaid = decimalFixed(o.amounts.ingredientCostPaid, 2);
      if (o.amounts.totalPaid !== undefined) view.totalPaid = decimalFixed(o.amounts.totalPaid, 2);
      if (o.amounts.copay !== undefined) view.copay = decimalFixed(o.amounts.copay, 2);
      if (o.amounts.coinsurance !== undefined) view.coinsurance = decimalFixed(o.amounts.coinsurance, 2);
      if (o.amounts.deductible !== undefined) view.deductible = decimalFixed(o.amounts.deductible, 2);
      break;
    case 'rejected':
      view.codes = o.codes;
      view.group = o.group;
      view.priorAuthRequired = o.priorAuthRequired;
      break;
    case 'dead-lettered':
      view.reason = o.reason;
      view.lane = o.lane;
      if (o.codes !== undefined) view.codes = o.codes;
      if (o.pinnedNode !== undefined) view.pinnedNode = o.pinnedNode;
      break;
    case 'needs-reconciliation':
      view.reason = o.reason;
      view.node = o.node;
      if (o.codes !== undefined) view.codes = o.codes;
      break;
    case 'invalid':
      view.fields = o.issues.map((i) => i.field);
      break;
    case 'in-flight-elsewhere':
      break;
  }
  return view;
}
