export type { AdaptiveOptions } from './adaptive.js';
export { type AbortSignalLike, type Clock, systemClock, type TimerHandle } from './clock.js';
export {
  ConcurrencyLimit,
  type ConcurrencyLimitOptions,
  type Permit,
  type PermitOptions,
} from './concurrency-limit.js';
export {
  AcquireAbortedError,
  DeadlineExceededError,
  InvalidOptionError,
  isAcquireAbortedError,
  isDeadlineExceededError,
  isInvalidOptionError,
  isLimiterClosedError,
  isRateLimitError,
  LimiterClosedError,
  RateLimitError,
  type RateLimitErrorCode,
} from './errors.js';
export type { AdaptReason, Lane, LimiterEvent, LimiterListener, RejectReason } from './events.js';
export type { Lease } from './lease.js';
export {
  createLimiter,
  type KeySnapshot,
  type Limiter,
  type LimiterAcquireOptions,
  type LimiterOptions,
  type LimitOptions,
} from './limiter.js';
export { type LimiterPolicyOptions, limiterPolicy } from './policy.js';
export type { QuotaSignal } from './quota-signal.js';
export {
  type LevelAdjustment,
  type LevelSnapshot,
  type LevelSpec,
  MemoryStore,
  type RateStore,
} from './store.js';
export { type AcquireOptions, TokenBucket, type TokenBucketOptions } from './token-bucket.js';
