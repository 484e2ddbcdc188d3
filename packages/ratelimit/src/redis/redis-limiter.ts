import type { Cluster, Redis } from 'ioredis';
import { InvalidOptionError } from '../errors.js';
import { createLimiter, type Limiter, type LimiterOptions } from '../limiter.js';
import { positive } from '../validate.js';
import { FallbackStore } from './fallback-store.js';
import { RedisStore } from './redis-store.js';

export interface RedisLimiterOptions extends Omit<LimiterOptions, 'store' | 'name'> {
  /** An ioredis client (or Cluster). Give it a `commandTimeout` and `enableOfflineQueue: false` so a sick Redis fails fast. */
  readonly redis: Redis | Cluster;
  /**
   * Names this quota: every process with the same name shares the account's and each key's
   * rate and burst. Becomes the hash tag of every key (`rxgate:{name}:…`). Concurrency caps
   * stay per process.
   */
  readonly name: string;
  /**
   * When Redis is down or slow: `fail-closed` rejects with `StoreUnavailableError`; `local`
   * falls back to a conservative local limit (the shared rates divided by `processes`) and
   * returns to Redis as soon as it answers again.
   * @default 'fail-closed'
   */
  readonly onUnavailable?: 'fail-closed' | { readonly fallback: 'local'; readonly processes: number };
  /** How long a level's state outlives its last use. @default 60_000 */
  readonly ttlMs?: number;
  /** Whose clock times the levels (see `RedisStore`). @default 'redis' */
  readonly time?: 'redis' | 'caller';
}

/** A limiter whose state lives in Redis: the {@link Limiter} of `createLimiter`, plus what Redis adds. */
export interface RedisLimiter extends Limiter {
  /** Round trips to Redis so far. */
  readonly roundTrips: number;
  /** False while the local fallback answers (`onUnavailable: { fallback: 'local' }`). */
  readonly shared: boolean;
}

/**
 * `createLimiter` over a {@link RedisStore}: the same scheduler (lanes, `batchShare`, the
 * account queue across keys, `predictWait`, `tryAcquire`, events, deadline fail-fast and
 * revalidation) and the same adaptation, with the levels' state in Redis, so every process
 * sharing `name` shares one account quota and one quota per key, taken together in one atomic
 * script per admission.
 *
 * @example
 * const limiter = createRedisLimiter({ redis, name: 'switch-a', account: { ratePerSecond: 10, burst: 20 } });
 * await limiter.run('610014/ADV', () => send(claim), { lane: 'pos', deadline: Date.now() + 800 });
 */
export function createRedisLimiter(options: RedisLimiterOptions): RedisLimiter {
  if (typeof options?.name !== 'string' || options.name === '' || /[{}]/.test(options.name)) {
    throw new InvalidOptionError('name', 'must be a non-empty string without braces');
  }
  const { redis, name, onUnavailable = 'fail-closed', ttlMs, time, ...rest } = options;
  const shared = new RedisStore(redis, {
    ...(ttlMs === undefined ? {} : { ttlMs: positive('ttlMs', ttlMs) }),
    ...(time === undefined ? {} : { time }),
  });
  let store: RedisStore | FallbackStore = shared;
  if (onUnavailable !== 'fail-closed') {
    if (typeof onUnavailable !== 'object' || onUnavailable?.fallback !== 'local')
      throw new InvalidOptionError(
        'onUnavailable',
        'must be "fail-closed" or { fallback: "local", processes }',
      );
    store = new FallbackStore(shared, positive('onUnavailable.processes', onUnavailable.processes));
  }
  const limiter = createLimiter({ ...rest, store, name: `rxgate:{${name}}` });
  return {
    ...limiter,
    get roundTrips() {
      return shared.roundTrips;
    },
    get shared() {
      return store instanceof FallbackStore ? store.shared : true;
    },
  };
}
