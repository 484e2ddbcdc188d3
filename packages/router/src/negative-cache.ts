import type { Clock } from '@rxgate/ratelimit';
import { exactly } from './exact-class.js';

/** Keys the vendor answered 404 for (a BIN/PCN route or an NDC), with a TTL. */
export interface NegativeCache {
  has(key: string): Promise<boolean>;
  add(key: string, ttlMs: number): Promise<void>;
}

let hasOf: (cache: MemoryNegativeCache) => ((key: string) => boolean) | undefined;

export class MemoryNegativeCache implements NegativeCache {
  readonly #entries = new Map<string, number>();
  readonly #clock: Clock;
  readonly #has = (key: string): boolean => {
    if (this.#entries.size === 0) return false;
    const until = this.#entries.get(key);
    if (until === undefined) return false;
    if (this.#clock.now() < until) return true;
    this.#entries.delete(key);
    return false;
  };
  static {
    hasOf = (cache) => (#has in cache ? cache.#has : undefined);
  }
  constructor(clock: Clock) {
    this.#clock = clock;
  }
  has(key: string): Promise<boolean> {
    return this.#has(key) ? TRUE : FALSE;
  }
  add(key: string, ttlMs: number): Promise<void> {
    this.#entries.set(key, this.#clock.now() + ttlMs);
    return Promise.resolve();
  }
}

const TRUE = Promise.resolve(true);
const FALSE = Promise.resolve(false);

/**
 * What `has` resolves to, answered at once, for `cache` exactly a `MemoryNegativeCache` (not
 * exported from the package; any other cache, a subclass included, is asked through `has`).
 */
export function negativeHasAtOnce(cache: NegativeCache): ((key: string) => boolean) | undefined {
  return exactly(cache, MemoryNegativeCache.prototype, ['has'])
    ? hasOf(cache as MemoryNegativeCache)
    : undefined;
}
