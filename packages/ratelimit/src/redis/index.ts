export { createRedisLimiter, type RedisLimiter, type RedisLimiterOptions } from './redis-limiter.js';
export {
  isStoreUnavailableError,
  RedisStore,
  type RedisStoreOptions,
  StoreUnavailableError,
} from './redis-store.js';
