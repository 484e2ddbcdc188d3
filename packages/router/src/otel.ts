// OpenTelemetry for the router, through @opentelemetry/api, an optional peer dependency: it is
// required lazily (createRequire, no top-level await: `require()` of this package keeps
// working), and when it is not installed, or `telemetry: false`, nothing here runs. The API's
// globals are keyed by a global symbol, so its CommonJS copy loaded here sees the providers an
// application registered through its ESM copy.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BreakerEvent, Breakers } from '@rxgate/breaker';
import { breakerTelemetry } from '@rxgate/breaker/otel';
import { limiterTelemetry, type MeterLike } from '@rxgate/ratelimit/otel';
import type { RouterLimiter } from './options.js';
import type { RouterEvent } from './telemetry.js';

/** Attribute values as OpenTelemetry takes them. Names of nodes, lanes, verdicts: never patient data. */
export type Attributes = Readonly<Record<string, string | number | boolean>>;

/** The part of an OpenTelemetry `Meter` the router uses (any `metrics.getMeter(...)` fits): the limiter's. */
export type RouterMeter = MeterLike;

interface SpanLike {
  setAttribute(key: string, value: string | number | boolean): unknown;
  addEvent(name: string, attributes?: Attributes, time?: number): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(endTime?: number): void;
}

/** The part of an OpenTelemetry `Tracer` the router uses (any `trace.getTracer(...)` fits). */
export interface RouterTracer {
  startSpan(
    name: string,
    options?: { kind?: number; startTime?: number; attributes?: Attributes },
    context?: unknown,
  ): SpanLike;
}

/** Where the router's OpenTelemetry goes. Both default to the globally registered providers. */
export interface RouterTelemetryOptions {
  /** @default metrics.getMeter('@rxgate/router') */
  readonly meter?: RouterMeter;
  /** @default trace.getTracer('@rxgate/router') */
  readonly tracer?: RouterTracer;
}

interface OtelApi {
  metrics: { getMeter(name: string, version?: string): RouterMeter; getMeterProvider(): object };
  trace: {
    getTracer(name: string, version?: string): RouterTracer;
    setSpan(context: unknown, span: SpanLike): unknown;
    getTracerProvider(): object & { getDelegate?(): object };
  };
  context: { active(): unknown };
}

let api: OtelApi | null | undefined;
/** @opentelemetry/api when it is installed, else undefined (asked once). */
export function loadOtelApi(): OtelApi | undefined {
  if (api === undefined) {
    try {
      api = createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
    } catch {
      api = null;
    }
  }
  return api ?? undefined;
}

const SCOPE = '@rxgate/router';
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;
// Seconds, from a millisecond to a minute: an attempt's, a claim's, a wait's.
const DURATION_BOUNDARIES = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
// A claim whose outcome never comes (it cannot happen: one outcome per claim) is forgotten
// past this many claims in flight, so the span buffer stays bounded whatever happens.
const MAX_OPEN_CLAIMS = 100_000;

interface Pending {
  readonly attempts: Array<{
    readonly node: string;
    readonly attempt: number;
    readonly verdict: string;
    readonly status: number | undefined;
    readonly start: number;
    readonly end: number;
  }>;
  readonly decisions: Array<{ readonly name: string; readonly at: number; readonly waitMs?: number }>;
}

/**
 * The router's instruments (names after the OpenTelemetry semantic conventions; Polly v8's
 * `resilience.*` as the model: a counter of events by `event.name`, durations in seconds):
 * - `rxgate.router.claims` (counter, `{claim}`; `rxgate.lane`, `rxgate.outcome`) and
 *   `rxgate.router.claim.duration` (histogram, s; the same attributes): every outcome;
 * - `rxgate.router.attempts` (counter, `{attempt}`) and `rxgate.router.attempt.duration`
 *   (histogram, s): `rxgate.node`, `rxgate.verdict`, `http.response.status_code` when there
 *   was an answer;
 * - `rxgate.router.events` (counter, `{event}`; `event.name`: `wait:throttled`,
 *   `failover:transient`, `breaker:rejected`, `audit:degraded`, …): every decision and alarm;
 * - `rxgate.router.wait.duration` (histogram, s; `rxgate.lane`, `rxgate.wait.reason`);
 * - `rxgate.router.quota.remaining` (gauge, `{request}`; `rxgate.node`): the vendor's last word;
 * - `rxgate.router.audit.backlog` (gauge, `{record}`) and `rxgate.router.audit.dropped` (counter);
 * - the limiter's `rxgate.limiter.*` (its `/otel`: quota in force, tokens, pauses, adaptations)
 *   and the breakers' `rxgate.breaker.*` (theirs), wired to the router's limiter and breakers.
 * Spans: `rxgate.claim` per claim (its decisions as span events) with a child `rxgate.attempt`
 * (kind client) per request, timed on the router's clock, made when the outcome is known.
 */
export class RouterOtel {
  readonly #api: OtelApi;
  readonly #tracer: RouterTracer;
  readonly #claims;
  readonly #claimDuration;
  readonly #attempts;
  readonly #attemptDuration;
  readonly #events;
  readonly #waits;
  readonly #auditDropped;
  readonly #remaining = new Map<string, number>();
  #auditBacklog = 0;
  readonly #pending = new Map<string, Pending>();
  readonly #breakers: ReturnType<typeof breakerTelemetry>;
  readonly #limiter: ReturnType<typeof limiterTelemetry>;

  readonly #traces: boolean;

  constructor(a: OtelApi, o: RouterTelemetryOptions, version: string, traces = true) {
    this.#api = a;
    this.#traces = traces;
    const m = o.meter ?? a.metrics.getMeter(SCOPE, version);
    this.#tracer = o.tracer ?? a.trace.getTracer(SCOPE, version);
    const advice = { explicitBucketBoundaries: DURATION_BOUNDARIES };
    this.#claims = m.createCounter('rxgate.router.claims', {
      description: 'Claims ended, by outcome',
      unit: '{claim}',
    });
    this.#claimDuration = m.createHistogram('rxgate.router.claim.duration', {
      description: 'Time from submit to outcome',
      unit: 's',
      advice,
    });
    this.#attempts = m.createCounter('rxgate.router.attempts', {
      description: 'Requests sent to a vendor node, by verdict',
      unit: '{attempt}',
    });
    this.#attemptDuration = m.createHistogram('rxgate.router.attempt.duration', {
      description: 'Time of one request to a vendor node',
      unit: 's',
      advice,
    });
    this.#events = m.createCounter('rxgate.router.events', {
      description: 'Decisions and alarms of the router, by event.name',
      unit: '{event}',
    });
    this.#waits = m.createHistogram('rxgate.router.wait.duration', {
      description: 'Waits the router decided (backoff, Retry-After, quota)',
      unit: 's',
      advice,
    });
    this.#auditDropped = m.createCounter('rxgate.router.audit.dropped', {
      description: 'Audit records lost (the backlog was full)',
      unit: '{record}',
    });
    m.createObservableGauge('rxgate.router.quota.remaining', {
      description: "Requests left in the vendor's quota window, as it last said",
      unit: '{request}',
    }).addCallback((r) => {
      for (const [node, v] of this.#remaining) r.observe(v, { 'rxgate.node': node });
    });
    m.createObservableGauge('rxgate.router.audit.backlog', {
      description: 'Audit records held while the audit log fails',
      unit: '{record}',
    }).addCallback((r) => r.observe(this.#auditBacklog));
    this.#breakers = breakerTelemetry({ meter: m });
    this.#limiter = limiterTelemetry({ meter: m });
  }

  /** Watches the router's limiter (when it takes listeners) and breakers. */
  watch(limiter: RouterLimiter, breakers: Breakers): void {
    const l = limiter as RouterLimiter & {
      on?: (listener: (e: never) => void) => unknown;
      snapshot?: unknown;
    };
    if (typeof l.on === 'function') l.on(this.#limiter.onEvent as (e: never) => void);
    if (typeof l.snapshot === 'function') this.#limiter.observe(l as never);
    this.#breakers.observe(breakers);
  }

  breakerEvent(key: string, e: BreakerEvent): void {
    this.#breakers.onEvent(key, e);
  }

  remaining(node: string, value: number): void {
    this.#remaining.set(node, value);
  }

  auditBacklog(value: number): void {
    this.#auditBacklog = value;
  }

  /** One router event; `now` is the router clock's time of it. */
  event(e: RouterEvent, now: number): void {
    switch (e.type) {
      case 'attempt': {
        const attrs: Record<string, string | number> = { 'rxgate.node': e.node, 'rxgate.verdict': e.verdict };
        if (e.status !== undefined) attrs['http.response.status_code'] = e.status;
        this.#attempts.add(1, attrs);
        this.#attemptDuration.record(e.latencyMs / 1000, attrs);
        if (this.#traces)
          this.#open(e.correlationId).attempts.push({
            node: e.node,
            attempt: e.attempt,
            verdict: e.verdict,
            status: e.status,
            start: now - e.latencyMs,
            end: now,
          });
        break;
      }
      case 'decision': {
        this.#events.add(1, { 'event.name': e.decision });
        const [kind, reason = kind] = e.decision.split(':') as [string, string | undefined];
        if (kind === 'wait' && e.waitMs !== undefined)
          this.#waits.record(e.waitMs / 1000, { 'rxgate.wait.reason': reason });
        if (this.#traces)
          this.#open(e.correlationId).decisions.push({
            name: e.decision,
            at: now,
            ...(e.waitMs === undefined ? {} : { waitMs: e.waitMs }),
          });
        break;
      }
      case 'outcome': {
        const attrs = { 'rxgate.lane': e.lane, 'rxgate.outcome': e.kind };
        this.#claims.add(1, attrs);
        this.#claimDuration.record(e.elapsedMs / 1000, attrs);
        if (this.#traces) this.#span(e, now);
        break;
      }
      case 'audit':
        this.#events.add(1, { 'event.name': `audit:${e.state}` });
        if (e.state === 'dropped') this.#auditDropped.add(e.records);
        break;
      case 'credentials':
        this.#events.add(1, {
          'event.name': e.ok ? 'credentials:ok' : 'credentials:failed',
          'rxgate.node': e.node,
        });
        break;
      case 'reconciled':
        this.#events.add(1, { 'event.name': `reconciled:${e.kind}`, 'rxgate.node': e.node });
        break;
      case 'breaker':
        this.#events.add(1, { 'event.name': `breaker:${e.to}` });
        break;
    }
  }

  #open(correlationId: string): Pending {
    let p = this.#pending.get(correlationId);
    if (p === undefined) {
      if (this.#pending.size >= MAX_OPEN_CLAIMS) {
        const oldest = this.#pending.keys().next().value;
        if (oldest !== undefined) this.#pending.delete(oldest);
      }
      p = { attempts: [], decisions: [] };
      this.#pending.set(correlationId, p);
    }
    return p;
  }

  #span(e: Extract<RouterEvent, { type: 'outcome' }>, now: number): void {
    const p = this.#pending.get(e.correlationId);
    this.#pending.delete(e.correlationId);
    const claim = this.#tracer.startSpan('rxgate.claim', {
      startTime: now - e.elapsedMs,
      attributes: {
        'rxgate.correlation_id': e.correlationId,
        'rxgate.lane': e.lane,
        'rxgate.outcome': e.kind,
        'rxgate.attempts': e.attempts,
      },
    });
    if (e.kind === 'dead-lettered' || e.kind === 'needs-reconciliation') {
      claim.setAttribute('error.type', e.kind);
      claim.setStatus({ code: STATUS_ERROR, message: e.kind });
    }
    if (p !== undefined) {
      for (const d of p.decisions)
        claim.addEvent(d.name, d.waitMs === undefined ? {} : { 'rxgate.wait.ms': d.waitMs }, d.at);
      const parent = this.#api.trace.setSpan(this.#api.context.active(), claim);
      for (const a of p.attempts) {
        const attrs: Record<string, string | number> = {
          'rxgate.node': a.node,
          'rxgate.attempt.number': a.attempt,
          'rxgate.verdict': a.verdict,
        };
        if (a.status !== undefined) attrs['http.response.status_code'] = a.status;
        const child = this.#tracer.startSpan(
          'rxgate.attempt',
          { kind: SPAN_KIND_CLIENT, startTime: a.start, attributes: attrs },
          parent,
        );
        if (!ADJUDICATED.has(a.verdict)) child.setAttribute('error.type', a.verdict);
        child.end(a.end);
      }
    }
    claim.end(now);
  }
}

// Verdicts that are the vendor's answer on the claim, not a failure of the request.
const ADJUDICATED = new Set(['adjudicated', 'duplicate', 'terminal-reject', 'repairable', 'routing-reject']);

/** The router's OpenTelemetry, or undefined (`false`, or no @opentelemetry/api installed). */
export function routerOtel(options: RouterTelemetryOptions | false | undefined): RouterOtel | undefined {
  if (options === false) return undefined;
  const a = loadOtelApi();
  if (a === undefined) return undefined;
  // With no provider registered (the API's no-op ones) and none given, there is nothing to
  // record to: the router skips OpenTelemetry altogether (register the SDK before creating it).
  const o = options ?? {};
  const tracerProvider = a.trace.getTracerProvider();
  const meters = o.meter !== undefined || !isNoop(a.metrics.getMeterProvider());
  const traces = o.tracer !== undefined || !isNoop(tracerProvider.getDelegate?.() ?? tracerProvider);
  if (!meters && !traces) return undefined;
  version ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
  ).version;
  return new RouterOtel(a, o, version, traces);
}
let version: string | undefined;

// The API's stand-ins when no SDK is registered: NoopMeterProvider, NoopTracerProvider.
const isNoop = (provider: object): boolean => provider.constructor.name.startsWith('Noop');
