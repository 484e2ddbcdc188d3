import type { Clock } from '@rxgate/ratelimit';

/** Keys the vendor answered 404 for (a BIN/PCN route or an NDC), with a TTL. */
export interface NegativeCache {
  has(key: string): Promise<boolean>;
  add(key: string, ttlMs: number): Promise<void>;
}

export class MemoryNegativeCache implements NegativeCache {
  readonly #entries = new Map<string, number>();
  readonly #clock: Clock;
  constructor(clock: Clock) {
    this.#clock = clock;
  }
  has(key: string): Promise<boolean> {
    const until = this.#entries.get(key);
    if (until === undefined) return FALSE;
    if (this.#clock.now() < until) return TRUE;
    this.#entries.delete(key);
    return FALSE;
  }
  add(key: string, ttlMs: number): Promise<void> {
    this.#entries.set(key, this.#clock.now() + ttlMs);
    return Promise.resolve();
  }
}

const TRUE = Promise.resolve(true);
const FALSE = Promise.resolve(false);
