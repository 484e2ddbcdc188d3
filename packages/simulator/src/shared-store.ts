// A shared store for a real-time run: the quota, the ledger and the negative cache in Redis,
// every key under the run's namespace; a run that finds another run's keys says so.
import type { Clock } from '@rxgate/ratelimit';
import { createRedisLimiter, type RedisLimiter } from '@rxgate/ratelimit/redis';
import { RedisLedger } from '@rxgate/router/redis';
import type { Redis } from 'ioredis';
import { withPeer } from './optional-peer.js';
import { foreignKeys, foreignKeysWarning } from './store-namespace.js';

export interface SharedStore {
  readonly redis: Redis;
  readonly limiter: RedisLimiter;
  readonly ledger: RedisLedger;
  /** Another run's keys found in the store (none looked for in a worker of a shared run). */
  readonly warnings: readonly string[];
  close(): Promise<void>;
}

export async function openSharedStore(o: {
  readonly url: string;
  readonly prefix: string;
  readonly clock: Clock;
  readonly account: { readonly ratePerSecond: number; readonly burst: number };
  /** A worker of a shared run: the other workers' keys are its own run's. */
  readonly worker: boolean;
}): Promise<SharedStore> {
  // ioredis is an optional peer: loaded only by the runs that use a shared store.
  const { Redis: RedisClient } = await withPeer(() => import('ioredis'), 'ioredis', '--store');
  const redis = new RedisClient(o.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
  });
  redis.on('error', () => {});
  if (redis.status !== 'ready') await new Promise((r) => redis.once('ready', r));
  const others = o.worker ? [] : await foreignKeys(redis, o.prefix);
  const warnings = others.length > 0 ? [foreignKeysWarning(others, o.prefix)] : [];
  const limiter = createRedisLimiter({
    redis,
    name: `${o.prefix}:limiter`,
    account: o.account,
    clock: o.clock,
  });
  const ledger = new RedisLedger({ redis, clock: o.clock, prefix: `${o.prefix}:ledger` });
  return {
    redis,
    limiter,
    ledger,
    warnings,
    close: async () => {
      limiter.close();
      await ledger.close();
      redis.disconnect();
    },
  };
}
