export { type BackoffOptions, backoffDelay, fullJitterCeiling } from './backoff.js';
export { type DecideInput, type Decision, decide, type GiveUpReason } from './decide.js';
export {
  InvalidRetryOptionError,
  isInvalidRetryOptionError,
  isRetryError,
  RetryError,
  type RetryErrorCode,
} from './errors.js';
export { type GiveUp, type RetryEvent, type RetryOptions, type RetryPolicy, retryPolicy } from './retry.js';
