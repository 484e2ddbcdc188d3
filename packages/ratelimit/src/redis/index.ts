export {
  createRedisLimiter,
  type RedisLimiterOptions,
  type SharedLimiter,
  type SharedSnapshot,
} from './redis-limiter.js';
export {
  isStoreUnavailableError,
  type RedisAdaptive,
  RedisStore,
  StoreUnavailableError,
} from './redis-store.js';
