import type { BreakerEvent, CircuitBreaker } from '@rxgate/breaker';
import { type LedgerAtOnce, ledgerAtOnce } from './memory-ledger.js';
import { negativeHasAtOnce } from './negative-cache.js';
import type { Resolved, RouterLimiter, RouterNode } from './options.js';
import type { Recorder } from './record.js';
import { type CounterHandle, labels } from './telemetry.js';

/** What every claim of one router shares: its options, telemetry, breakers and node state. */
export class RouterContext {
  readonly o: Resolved;
  readonly rec: Recorder;
  readonly nodeIndex: ReadonlyMap<string, number>;
  /** Nodes that announced downtime (a failure with Retry-After), by index: until when. */
  readonly downUntil: number[];
  /** The ledger's answers at once, when it is the memory ledger (nothing to wait for). */
  readonly ledgerAtOnce: LedgerAtOnce | undefined;
  /** The negative cache's answer at once, when it is the memory cache. */
  readonly negativeAtOnce: ((key: string) => boolean) | undefined;
  readonly #breakers: Array<Map<string, CircuitBreaker>>;

  constructor(o: Resolved, rec: Recorder) {
    this.o = o;
    this.rec = rec;
    this.nodeIndex = new Map(o.nodes.map((n, i) => [n.name, i]));
    this.downUntil = o.nodes.map(() => 0);
    this.#breakers = o.nodes.map(() => new Map());
    this.ledgerAtOnce = ledgerAtOnce(o.ledger);
    this.negativeAtOnce = negativeHasAtOnce(o.negativeCache);
  }

  node(i: number): RouterNode {
    return this.o.nodes[i]!;
  }

  limiterOf(i: number): RouterLimiter {
    return this.o.nodes[i]!.limiter ?? this.o.limiter;
  }

  /** A node whose fallback state is current (the primary always is). */
  usable(i: number): boolean {
    return i < this.o.nodes.length && (i === 0 || this.o.parity(this.o.nodes[i]!.name));
  }

  /** The breaker of a node and segment, watched once: its transitions become metrics, events and log lines. */
  breakerOf(i: number, segment: string): CircuitBreaker {
    let b = this.#breakers[i]!.get(segment);
    if (b !== undefined) return b;
    const name = this.o.nodes[i]!.name;
    const key = `${name}:${segment}`;
    b = this.o.breakers.get(key);
    this.#breakers[i]!.set(segment, b);
    const transitions = new Map<string, CounterHandle>();
    b.on((e: BreakerEvent) => {
      this.rec.otel?.breakerEvent(key, e);
      if (e.type !== 'state-change') return;
      let c = transitions.get(e.to);
      if (c === undefined) {
        c = this.rec.metrics.counter(
          'rxgate_breaker_transitions_total',
          labels(name, undefined, undefined, segment, e.to),
        );
        transitions.set(e.to, c);
      }
      c.inc();
      this.rec.emit({ type: 'breaker', key, from: e.from, to: e.to, reason: e.reason, at: e.at });
      this.rec.log.info({ breaker: key, from: e.from, to: e.to, reason: e.reason }, 'breaker state change');
    });
    return b;
  }
}
