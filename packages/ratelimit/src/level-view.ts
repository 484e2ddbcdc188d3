import type { LevelAdjustment, LevelOps, LevelSnapshot, LevelSpec, RateStore } from './store.js';

/**
 * Adaptation's view of the levels of an asynchronous store (Redis). The rate controllers
 * decide at once, as they do on the memory store; this view answers their reads with the
 * level's state as last read from the store (read just before each signal is applied), kept
 * current with the adjustments they make, and sends every adjustment to the store, in order.
 */
export class AsyncLevelView implements LevelOps {
  readonly #store: RateStore;
  readonly #known = new Map<string, { tokens: number; ratePerSecond: number; pausedUntil: number }>();
  #last: Promise<unknown> = Promise.resolve();

  constructor(store: RateStore) {
    this.#store = store;
  }

  /** The level's state as just read from the store. */
  seed(level: LevelSpec, snapshot: LevelSnapshot): void {
    this.#known.set(level.id, { ...snapshot });
  }

  snapshot(level: LevelSpec): LevelSnapshot {
    return (
      this.#known.get(level.id) ?? { tokens: level.burst, ratePerSecond: level.ratePerSecond, pausedUntil: 0 }
    );
  }

  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): void {
    // An adjustment the store could not take is lost, as the vendor's signal would be on a
    // limiter that never saw it; the next signal adjusts again.
    const sent = this.#store.adjust(level, adjustment, now).catch(() => undefined);
    this.#last = Promise.all([this.#last, sent]);
    const k = this.#known.get(level.id);
    if (k === undefined) return;
    if (adjustment.ratePerSecond !== undefined) k.ratePerSecond = adjustment.ratePerSecond;
    if (adjustment.pauseUntil !== undefined && adjustment.pauseUntil > k.pausedUntil)
      k.pausedUntil = adjustment.pauseUntil;
    if (adjustment.capTokens !== undefined)
      k.tokens = Math.min(k.tokens, Math.max(0, Math.min(level.burst, adjustment.capTokens)));
  }

  /** Resolves once the store has every adjustment sent so far. */
  settled(): Promise<void> {
    return this.#last.then(() => undefined);
  }
}
