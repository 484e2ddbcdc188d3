// OpenTelemetry metrics for a limiter. The package does not import @opentelemetry/api: it
// takes a meter (`metrics.getMeter(...)` from the API, an optional peer) through the few
// methods it uses, so an application without OpenTelemetry loads nothing of it.
import { counters, type MeterLike } from '@rxgate/core';
import type { LimiterEvent, LimiterListener } from './events.js';

/** Attribute values as OpenTelemetry takes them, and the part of a `Meter` used (shared by every package). */
export type { MeterLike, MetricAttributes } from '@rxgate/core';

/** What `observe` reads: `createLimiter`'s and the Redis limiter's `snapshot`, one per collection. */
export interface ObservableLimiter {
  snapshot(key?: string): Promise<{
    readonly tokens: number;
    readonly ratePerSecond: number;
    readonly waiting?: number;
    readonly inFlight?: number;
  }>;
}

export interface LimiterTelemetryOptions {
  /** A meter, e.g. `metrics.getMeter('@rxgate/ratelimit')` from `@opentelemetry/api`. */
  readonly meter: MeterLike;
  /** Metric name prefix. @default 'rxgate.limiter' */
  readonly prefix?: string;
}

export interface LimiterTelemetry {
  /** Pass as `createLimiter({ onEvent })` (or the Redis limiter's), or to `limiter.on`. */
  readonly onEvent: LimiterListener;
  /**
   * Reads the account level's state (and the given keys') on each collection: the rate in
   * force, tokens, waiters and calls in flight.
   */
  observe(limiter: ObservableLimiter, options?: { readonly keys?: readonly string[] }): void;
}

// Waits from a millisecond to a minute: a limiter's are short, a paused one's long.
const WAIT_BOUNDARIES = [0, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * OpenTelemetry metrics for a limiter:
 * - `rxgate.limiter.acquired` (counter; `lane`) and `rxgate.limiter.wait` (histogram, seconds;
 *   `lane`): admissions and how long each waited;
 * - `rxgate.limiter.rejections` (counter; `lane`, `reason`: deadline, aborted, closed);
 * - `rxgate.limiter.adaptations` (counter; `level`, `reason`, `direction` up or down): the
 *   vendor's quota signals and throttles moving the rate;
 * - `rxgate.limiter.pauses` (counter; `level`): a Retry-After or an exhausted quota pausing it;
 * - gauges once `observe(limiter)` was called, per `level` (`account`, or the key):
 *   `rxgate.limiter.rate` (requests per second in force), `rxgate.limiter.tokens`,
 *   `rxgate.limiter.waiting`, `rxgate.limiter.in_flight`.
 *
 * @example
 * import { metrics } from '@opentelemetry/api';
 * const telemetry = limiterTelemetry({ meter: metrics.getMeter('@rxgate/ratelimit') });
 * const limiter = createLimiter({ account, onEvent: telemetry.onEvent });
 * telemetry.observe(limiter);
 */
export function limiterTelemetry(options: LimiterTelemetryOptions): LimiterTelemetry {
  const prefix = options.prefix ?? 'rxgate.limiter';
  const m = options.meter;
  const { acquired, rejections, adaptations, pauses } = counters(m, prefix, {
    acquired: { description: 'Admissions by the limiter', unit: '{acquire}' },
    rejections: { description: 'Acquires the limiter refused', unit: '{acquire}' },
    adaptations: { description: 'Rate changes that followed the vendor', unit: '{change}' },
    pauses: { description: 'Pauses the vendor asked for', unit: '{pause}' },
  });
  const wait = m.createHistogram(`${prefix}.wait`, {
    description: 'Time an admitted call waited for its tokens',
    unit: 's',
    advice: { explicitBucketBoundaries: WAIT_BOUNDARIES },
  });
  const gauges = {
    rate: m.createObservableGauge(`${prefix}.rate`, {
      description: 'The rate in force',
      unit: '{request}/s',
    }),
    tokens: m.createObservableGauge(`${prefix}.tokens`, { description: 'Tokens available', unit: '{token}' }),
    waiting: m.createObservableGauge(`${prefix}.waiting`, {
      description: 'Calls waiting for tokens',
      unit: '{call}',
    }),
    inFlight: m.createObservableGauge(`${prefix}.in_flight`, {
      description: 'Calls holding a concurrency slot',
      unit: '{call}',
    }),
  };
  const observed: Array<{ limiter: ObservableLimiter; levels: ReadonlyArray<string | undefined> }> = [];
  type Snapshot = Awaited<ReturnType<ObservableLimiter['snapshot']>>;
  // Each gauge reads the snapshots at collection time (a Redis limiter's are one round trip each).
  const gauge = (g: (typeof gauges)[keyof typeof gauges], pick: (s: Snapshot) => number | undefined) =>
    g.addCallback(async (result) => {
      for (const { limiter, levels } of observed)
        for (const key of levels) {
          const v = pick(await limiter.snapshot(key));
          if (v !== undefined && Number.isFinite(v)) result.observe(v, { level: key ?? 'account' });
        }
    });
  gauge(gauges.rate, (s) => s.ratePerSecond);
  gauge(gauges.tokens, (s) => s.tokens);
  gauge(gauges.waiting, (s) => s.waiting);
  gauge(gauges.inFlight, (s) => s.inFlight);

  const onEvent = (event: LimiterEvent): void => {
    switch (event.type) {
      case 'acquired':
        acquired.add(1, { lane: event.lane });
        wait.record(event.waitedMs / 1000, { lane: event.lane });
        break;
      case 'rejected':
        rejections.add(1, { lane: event.lane, reason: event.reason });
        break;
      case 'adapted':
        adaptations.add(1, {
          level: event.level,
          reason: event.reason,
          direction: event.toPerSecond >= event.fromPerSecond ? 'up' : 'down',
        });
        break;
      case 'paused':
        pauses.add(1, { level: event.level });
        break;
    }
  };
  return {
    onEvent,
    observe(limiter, o) {
      observed.push({ limiter, levels: [undefined, ...(o?.keys ?? [])] });
    },
  };
}
