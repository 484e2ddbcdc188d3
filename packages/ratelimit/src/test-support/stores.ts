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

/** Level ids under a prefix of their own: one Redis server, many independent stores. */
export class Prefixed implements RateStore {
  readonly #inner: RateStore;
  readonly #prefix: string;
  readonly #specs = new WeakMap<LevelSpec, LevelSpec>();

  constructor(inner: RateStore, prefix: string) {
    this.#inner = inner;
    this.#prefix = prefix;
  }

  take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#inner.take(levels.map(this.#spec), cost, now);
  }
  peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return this.#inner.peek(levels.map(this.#spec), cost, now);
  }
  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): Promise<void> {
    return this.#inner.adjust(this.#spec(level), adjustment, now);
  }
  snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
    return this.#inner.snapshot(this.#spec(level), now);
  }
  evictIdle(now: number): Promise<number> {
    return this.#inner.evictIdle(now);
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
