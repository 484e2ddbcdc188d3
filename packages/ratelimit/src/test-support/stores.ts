// The stores a test runs against: the memory store, and a real RedisStore on a redis-server the
// test starts (caller time, so both stores see one virtual clock). Each `make()` gives a store
// of its own: Redis levels get a fresh key prefix, so tests and runs never share state.
import { type RedisServer, redisAvailable, startRedis } from '@rxgate/testkit';
import { Redis } from 'ioredis';
import { RedisStore } from '../redis/redis-store.js';
import {
  type LevelAdjustment,
  type LevelSnapshot,
  type LevelSpec,
  MemoryStore,
  type RateStore,
} from '../store.js';

/**
 * Level ids under a prefix of their own (one Redis server, many independent stores), and a
 * count of the operations on their way, so a test can wait until the store is quiet.
 */
export class Prefixed implements RateStore {
  readonly #inner: RateStore;
  readonly #prefix: string;
  readonly #specs = new WeakMap<LevelSpec, LevelSpec>();
  #inFlight = 0;

  constructor(inner: RateStore, prefix: string) {
    this.#inner = inner;
    this.#prefix = prefix;
  }

  take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#track(this.#inner.take(levels.map(this.#spec), cost, now));
  }
  peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#track(this.#inner.peek(levels.map(this.#spec), cost, now));
  }
  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): Promise<void> {
    return this.#track(this.#inner.adjust(this.#spec(level), adjustment, now));
  }
  snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
    return this.#track(this.#inner.snapshot(this.#spec(level), now));
  }
  evictIdle(now: number): Promise<number> {
    return this.#inner.evictIdle(now);
  }

  /** Resolves once no operation is on its way and none started in the turns since. */
  async quiet(): Promise<void> {
    for (let calm = 0; calm < 2; ) {
      await new Promise((r) => setImmediate(r));
      calm = this.#inFlight === 0 ? calm + 1 : 0;
    }
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inFlight++;
    return p.finally(() => {
      this.#inFlight--;
    });
  }

  readonly #spec = (l: LevelSpec): LevelSpec => {
    let s = this.#specs.get(l);
    if (s === undefined) {
      // One hash tag per store: every level of a take in one slot, as on Redis Cluster.
      s = { ...l, id: `{${this.#prefix}}:${l.id}` };
      this.#specs.set(l, s);
    }
    return s;
  };
}

export interface StoreKind {
  readonly name: 'memory' | 'redis';
  /** A new, empty store. */
  make(): RateStore;
}

/** Waits until a store is quiet: every operation on its way answered, and what they set off. */
export async function quiet(store: RateStore): Promise<void> {
  const q = (store as { quiet?: () => Promise<void> }).quiet;
  if (typeof q === 'function') await q.call(store);
  else await new Promise((r) => setImmediate(r));
}

export interface Stores {
  readonly kinds: readonly StoreKind[];
  readonly redisSkipped: boolean;
  close(): Promise<void>;
}

let seq = 0;

/** Starts a redis-server when one is installed (else says so loudly) and returns both kinds. */
export async function openStores(): Promise<Stores> {
  const memory: StoreKind = { name: 'memory', make: () => new MemoryStore() };
  if (!redisAvailable()) return { kinds: [memory], redisSkipped: true, close: async () => {} };
  const server: RedisServer = await startRedis();
  const redis = new Redis(server.url, { enableOfflineQueue: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  const shared = new RedisStore(redis, { time: 'caller' });
  const run = `c${process.pid}-${Date.now()}`;
  return {
    kinds: [memory, { name: 'redis', make: () => new Prefixed(shared, `${run}-${++seq}`) }],
    redisSkipped: false,
    close: async () => {
      redis.disconnect();
      await server.close();
    },
  };
}
