export { type BreakerDefaults, type Breakers, type BreakersOptions, createBreakers } from './breakers.js';
export {
  type BreakerSnapshot,
  CircuitBreaker,
  type CircuitBreakerOptions,
  type HealthProbeOptions,
  type OpenDurationOptions,
  Permit,
  type Rejection,
} from './circuit-breaker.js';
export { type Clock, systemClock, type TimerHandle } from './clock.js';
export {
  BreakerError,
  type BreakerErrorCode,
  BrokenCircuitError,
  InvalidBreakerOptionError,
  isBreakerError,
  isBrokenCircuitError,
  isInvalidBreakerOptionError,
  isPermitSettledError,
  PermitSettledError,
} from './errors.js';
export type { FailurePolicyOptions, PolicyState, SlowCallOptions } from './policies.js';
export { breakerPolicy } from './policy.js';
export type { BreakerEvent, BreakerListener, BreakerState, CallOutcome, TransitionReason } from './state.js';
