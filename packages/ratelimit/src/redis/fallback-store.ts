import type { LevelAdjustment, LevelSnapshot, LevelSpec, RateStore } from '../store.js';
import { MemoryStore } from '../store.js';
import { isStoreUnavailableError } from '../store-unavailable.js';
import type { RedisStore } from './redis-store.js';

/**
 * A Redis store that falls back to a conservative local one while Redis is down or slow: the
 * shared rates divided by the number of processes, in this process's memory. Each operation
 * goes to Redis while its client is ready, and to the local store when the client is not or
 * the operation fails; the next operation after Redis answers again goes back to it.
 */
export class FallbackStore implements RateStore {
  readonly #shared: RedisStore;
  readonly #local = new MemoryStore();
  readonly #processes: number;
  readonly #scaled = new WeakMap<LevelSpec, LevelSpec>();
  #usingLocal = false;

  constructor(shared: RedisStore, processes: number) {
    this.#shared = shared;
    this.#processes = processes;
  }

  /** False while the local fallback answers. */
  get shared(): boolean {
    return !this.#usingLocal;
  }

  take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#either(
      () => this.#shared.take(levels, cost, now),
      () => this.#local.take(levels.map(this.#share), cost, now),
    );
  }

  peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#either(
      () => this.#shared.peek(levels, cost, now),
      () => this.#local.peek(levels.map(this.#share), cost, now),
    );
  }

  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): Promise<void> {
    // Both hear it: the local limit is as slow as the vendor asked when it takes over.
    void this.#local.adjust(this.#share(level), adjustment, now);
    return this.#either(
      () => this.#shared.adjust(level, adjustment, now),
      () => Promise.resolve(),
    );
  }

  snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
    return this.#either(
      () => this.#shared.snapshot(level, now),
      () => this.#local.snapshot(this.#share(level), now),
    );
  }

  evictIdle(now: number): Promise<number> {
    return this.#local.evictIdle(now);
  }

  readonly #share = (l: LevelSpec): LevelSpec => {
    let s = this.#scaled.get(l);
    if (s === undefined) {
      s = {
        id: `${l.id}:local`,
        ratePerSecond: l.ratePerSecond / this.#processes,
        burst: Math.max(1, l.burst / this.#processes),
      };
      this.#scaled.set(l, s);
    }
    return s;
  };

  #either<T>(shared: () => Promise<T>, local: () => Promise<T>): Promise<T> {
    if (!this.#shared.ready) {
      this.#usingLocal = true;
      return local();
    }
    return shared().then(
      (v) => {
        this.#usingLocal = false;
        return v;
      },
      (e: unknown) => {
        if (!isStoreUnavailableError(e)) throw e;
        this.#usingLocal = true;
        return local();
      },
    );
  }
}
