import {
  type BreakerSnapshot,
  CircuitBreaker,
  type CircuitBreakerOptions,
  type Permit,
  type Rejection,
} from './circuit-breaker.js';
import type { BreakerEvent, BreakerState } from './state.js';

export type BreakerDefaults = Omit<CircuitBreakerOptions, 'initialState' | 'onEvent' | 'clock' | 'random'>;

export interface BreakersOptions {
  /** Options every keyed breaker starts from. */
  readonly defaults?: BreakerDefaults;
  /** Per-key options, merged over the defaults (a specialty segment may trip sooner). */
  readonly overrides?: Readonly<Record<string, BreakerDefaults>>;
  /** Shared by every breaker. @default systemClock */
  readonly clock?: CircuitBreakerOptions['clock'];
  /** @default Math.random */
  readonly random?: () => number;
  /** States to start from, by key (from `toJSON()`). */
  readonly initialStates?: Readonly<Record<string, BreakerSnapshot>>;
  /** Events of every breaker, with its key. */
  readonly onEvent?: (key: string, event: BreakerEvent) => void;
}

/** Breakers by key (vendor × segment, e.g. `primary:retail`); one key's failures never move another. */
export interface Breakers {
  /** The breaker of `key`, created on first use. */
  get(key: string): CircuitBreaker;
  tryAcquire(key: string): Permit | Rejection;
  execute<T>(
    key: string,
    fn: (signal: AbortSignal | undefined) => T | PromiseLike<T>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<T>;
  /** Every key's state now. */
  states(): Record<string, BreakerState>;
  /** Every key's snapshot, for persistence. */
  toJSON(): Record<string, BreakerSnapshot>;
  readonly size: number;
}

export function createBreakers(options: BreakersOptions = {}): Breakers {
  const map = new Map<string, CircuitBreaker>();
  const create = (key: string): CircuitBreaker => {
    const initialState = options.initialStates?.[key];
    const onEvent = options.onEvent;
    return new CircuitBreaker({
      ...options.defaults,
      ...options.overrides?.[key],
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.random ? { random: options.random } : {}),
      ...(initialState ? { initialState } : {}),
      ...(onEvent ? { onEvent: (e: BreakerEvent) => onEvent(key, e) } : {}),
    });
  };
  // Fail on bad defaults or overrides now, not on the first call of some key.
  create('');
  for (const key of Object.keys(options.overrides ?? {})) create(key);

  const get = (key: string): CircuitBreaker => {
    let b = map.get(key);
    if (b === undefined) {
      b = create(key);
      map.set(key, b);
    }
    return b;
  };
  for (const key of Object.keys(options.initialStates ?? {})) get(key);
  return {
    get,
    tryAcquire: (key) => get(key).tryAcquire(),
    execute: (key, fn, o) => get(key).execute(fn, o),
    states: () => Object.fromEntries([...map].map(([k, b]) => [k, b.state])),
    toJSON: () => Object.fromEntries([...map].map(([k, b]) => [k, b.toJSON()])),
    get size() {
      return map.size;
    },
  };
}
