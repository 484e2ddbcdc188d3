export { createRedisLimiter, type RedisLimiterOptions, type SharedLimiter } from './redis-limiter.js';
export {
  isStoreUnavailableError,
  type RedisAdaptive,
  RedisStore,
  StoreUnavailableError,
} from './redis-store.js';
