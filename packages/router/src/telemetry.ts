import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import type { AuditAlarm } from './audit-keeper.js';
import type { LogSafe } from './phi.js';

/** Metric labels: a closed set of PHI-free dimensions. */
export interface MetricLabels {
  readonly node?: string;
  readonly lane?: 'pos' | 'batch';
  readonly segment?: string;
  readonly kind?: string;
  readonly to?: string;
}

/** Typed router events (PHI-free by construction: see `LogSafe`). */
export type RouterEvent =
  | {
      readonly type: 'attempt';
      readonly correlationId: string;
      readonly node: string;
      readonly attempt: number;
      readonly verdict: string;
      readonly status?: number;
      readonly latencyMs: number;
    }
  | {
      readonly type: 'decision';
      readonly correlationId: string;
      readonly decision: string;
      readonly waitMs?: number;
    }
  | {
      readonly type: 'outcome';
      readonly correlationId: string;
      readonly kind: string;
      readonly lane: 'pos' | 'batch';
      readonly attempts: number;
      readonly elapsedMs: number;
      readonly path: readonly string[];
    }
  | {
      readonly type: 'breaker';
      readonly key: string;
      readonly from: string;
      readonly to: string;
      readonly reason: string;
      readonly at: number;
    }
  | { readonly type: 'credentials'; readonly node: string; readonly ok: boolean }
  /** A maybe-committed claim asked again on its pinned node (`router.reconcile()`): how it ended. */
  | {
      readonly type: 'reconciled';
      readonly correlationId: string;
      readonly claimKey: string;
      readonly node: string;
      /** The final outcome's kind, or `needs-reconciliation` when the node still did not answer. */
      readonly kind: string;
      readonly settled: boolean;
    }
  /** The audit log failed (`degraded`, records held), came back (`recovered`), or lost records (`dropped`). */
  | AuditAlarm;

/** The subset of pino's API the router calls. It only ever receives PHI-free objects. */
export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** A logger wrapper whose signature refuses anything holding PHI at compile time. */
export interface SafeLogger {
  debug<T extends object>(obj: LogSafe<T>, msg?: string): void;
  info<T extends object>(obj: LogSafe<T>, msg?: string): void;
  warn<T extends object>(obj: LogSafe<T>, msg?: string): void;
  error<T extends object>(obj: LogSafe<T>, msg?: string): void;
}

export function safeLogger(logger: Logger | undefined): SafeLogger {
  const noop = () => {};
  if (logger === undefined) return { debug: noop, info: noop, warn: noop, error: noop };
  return {
    debug: (o, m) => logger.debug(o, m),
    info: (o, m) => logger.info(o, m),
    warn: (o, m) => logger.warn(o, m),
    error: (o, m) => logger.error(o, m),
  };
}

/** A counter bound to one name and label set: no key is formatted per increment. */
export interface CounterHandle {
  inc(by?: number): void;
}
/** A gauge bound to one name and label set. */
export interface GaugeHandle {
  set(value: number): void;
}
/** A histogram bound to one name and label set. */
export interface HistogramHandle {
  observe(value: number): void;
}

class Cell implements CounterHandle, GaugeHandle {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  set(value: number): void {
    this.value = value;
  }
}

/**
 * A histogram of milliseconds on Node's HDR histogram (`perf_hooks.createHistogram`, 3
 * significant digits): every value counts, in constant memory. It takes whole numbers from 1,
 * so a value is kept as microseconds plus one (0 ms is 1).
 */
class Hdr implements HistogramHandle {
  readonly h: RecordableHistogram = createHistogram();
  observe(value: number): void {
    this.h.record(Math.round(Math.max(0, value || 0) * 1000) + 1);
  }
}
/** Milliseconds of a recorded value. */
const msOf = (raw: number): number => (raw <= 0 ? 0 : (raw - 1) / 1000);

/**
 * Counters, gauges and histograms by name and labels; `snapshot()` for export. Hot paths take
 * a handle once (`counter`, `gauge`, `histogram`) and update it without formatting a key.
 */
export class Metrics {
  readonly #counters = new Map<string, Cell>();
  readonly #gauges = new Map<string, Cell>();
  readonly #histograms = new Map<string, Hdr>();

  counter(name: string, labels: MetricLabels = {}): CounterHandle {
    return cell(this.#counters, key(name, labels));
  }

  gauge(name: string, labels: MetricLabels = {}): GaugeHandle {
    return cell(this.#gauges, key(name, labels));
  }

  histogram(name: string, labels: MetricLabels = {}): HistogramHandle {
    const k = key(name, labels);
    let h = this.#histograms.get(k);
    if (h === undefined) {
      h = new Hdr();
      this.#histograms.set(k, h);
    }
    return h;
  }

  inc(name: string, labels: MetricLabels = {}, by = 1): void {
    this.counter(name, labels).inc(by);
  }

  set(name: string, labels: MetricLabels, value: number): void {
    this.gauge(name, labels).set(value);
  }

  observe(name: string, labels: MetricLabels, value: number): void {
    this.histogram(name, labels).observe(value);
  }

  snapshot(): {
    counters: Record<string, number>;
    gauges: Record<string, number>;
    histograms: Record<string, { count: number; p50: number; p99: number; max: number }>;
  } {
    const histograms: Record<string, { count: number; p50: number; p99: number; max: number }> = {};
    for (const [k, { h }] of this.#histograms) {
      // A percentile is its bucket's highest value: never above the largest recorded.
      const at = (p: number) => (h.count === 0 ? 0 : msOf(Math.min(h.max, h.percentile(p))));
      histograms[k] = { count: h.count, p50: at(50), p99: at(99), max: h.count === 0 ? 0 : msOf(h.max) };
    }
    const values = (m: Map<string, Cell>) => Object.fromEntries([...m].map(([k, c]) => [k, c.value]));
    return { counters: values(this.#counters), gauges: values(this.#gauges), histograms };
  }
}

function cell(map: Map<string, Cell>, k: string): Cell {
  let c = map.get(k);
  if (c === undefined) {
    c = new Cell();
    map.set(k, c);
  }
  return c;
}

// Formatting a label set is costly; callers that reuse one labels object (the router does)
// pay for it once.
const keyCache = new WeakMap<MetricLabels, Map<string, string>>();

function key(name: string, labels: MetricLabels): string {
  let byName = keyCache.get(labels);
  if (byName === undefined) {
    byName = new Map();
    keyCache.set(labels, byName);
  }
  let k = byName.get(name);
  if (k === undefined) {
    k = formatKey(name, labels);
    byName.set(name, k);
  }
  return k;
}

/** One frozen labels object per distinct combination, so metric keys are computed once. */
export function labels(
  node: string | undefined,
  lane: 'pos' | 'batch' | undefined,
  kind?: string,
  segment?: string,
  to?: string,
): MetricLabels {
  const id = `${node}|${lane}|${kind}|${segment}|${to}`;
  let l = labelCache.get(id);
  if (l === undefined) {
    l = Object.freeze({
      ...(node === undefined ? {} : { node }),
      ...(lane === undefined ? {} : { lane }),
      ...(kind === undefined ? {} : { kind }),
      ...(segment === undefined ? {} : { segment }),
      ...(to === undefined ? {} : { to }),
    });
    if (labelCache.size < 10_000) labelCache.set(id, l);
  }
  return l;
}
const labelCache = new Map<string, MetricLabels>();

function formatKey(name: string, labels: MetricLabels): string {
  const parts = Object.entries(labels)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}="${String(v)}"`);
  return parts.length === 0 ? name : `${name}{${parts.join(',')}}`;
}
