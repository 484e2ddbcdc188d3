// OpenTelemetry metrics for keyed breakers. The package does not import @opentelemetry/api:
// it takes a meter (`metrics.getMeter(...)` from the API, an optional peer) through the few
// methods it uses, so an application without OpenTelemetry loads nothing of it.
import { counters, type MeterLike } from '@rxgate/core';
import type { Breakers } from './breakers.js';
import type { BreakerEvent, BreakerState } from './state.js';

/** Attribute values as OpenTelemetry takes them, and the part of a `Meter` used (shared by every package). */
export type { MeterLike, MetricAttributes } from '@rxgate/core';

export interface BreakerTelemetryOptions {
  /** A meter, e.g. `metrics.getMeter('@rxgate/breaker')` from `@opentelemetry/api`. */
  readonly meter: MeterLike;
  /** Metric name prefix. @default 'rxgate.breaker' */
  readonly prefix?: string;
}

export interface BreakerTelemetry {
  /** Pass as `createBreakers({ onEvent })`, or call from your own listener. */
  readonly onEvent: (key: string, event: BreakerEvent) => void;
  /** Reports every key's state on each collection (`<prefix>.state`, 1 for the state it is in). */
  observe(breakers: Breakers): void;
}

const STATES: readonly BreakerState[] = ['closed', 'open', 'half-open', 'isolated'];

/**
 * OpenTelemetry metrics for keyed breakers:
 * - `rxgate.breaker.transitions` (counter; `rxgate.breaker.key`, `from`, `to`, `reason`);
 * - `rxgate.breaker.rejections` (counter; key, `state`): calls refused while open or half-open;
 * - `rxgate.breaker.probes` (counter; key, `health` true for the synthetic probe, `outcome`):
 *   finished half-open probes;
 * - `rxgate.breaker.state` (gauge; key, `state`): 1 for the state each key is in, 0 for the
 *   others, read at each collection once `observe(breakers)` was called.
 *
 * @example
 * import { metrics } from '@opentelemetry/api';
 * const telemetry = breakerTelemetry({ meter: metrics.getMeter('@rxgate/breaker') });
 * const breakers = createBreakers({ defaults, onEvent: telemetry.onEvent });
 * telemetry.observe(breakers);
 */
export function breakerTelemetry(options: BreakerTelemetryOptions): BreakerTelemetry {
  const prefix = options.prefix ?? 'rxgate.breaker';
  const m = options.meter;
  const { transitions, rejections, probes } = counters(m, prefix, {
    transitions: { description: 'Breaker state changes', unit: '{transition}' },
    rejections: {
      description: 'Calls a breaker refused (open, or half-open with its probes taken)',
      unit: '{call}',
    },
    probes: { description: 'Half-open probes finished, by outcome', unit: '{probe}' },
  });
  const state = m.createObservableGauge(`${prefix}.state`, {
    description: 'The state each breaker is in: 1 for its state, 0 for the others',
  });
  const observed: Breakers[] = [];
  state.addCallback((result) => {
    for (const breakers of observed)
      for (const [key, now] of Object.entries(breakers.states()))
        for (const s of STATES) result.observe(s === now ? 1 : 0, { [`${prefix}.key`]: key, state: s });
  });
  return {
    onEvent(key, event) {
      const k = `${prefix}.key`;
      switch (event.type) {
        case 'state-change':
          transitions.add(1, { [k]: key, from: event.from, to: event.to, reason: event.reason });
          break;
        case 'rejected':
          rejections.add(1, { [k]: key, state: event.state });
          break;
        case 'probe-finished':
          probes.add(1, { [k]: key, health: event.health, outcome: event.outcome });
          break;
        case 'probe-started':
          break;
      }
    },
    observe(breakers) {
      if (!observed.includes(breakers)) observed.push(breakers);
    },
  };
}
