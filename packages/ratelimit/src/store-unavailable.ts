import { RateLimitError } from './errors.js';

/** A shared store could not answer (down, or slower than its command timeout). */
export class StoreUnavailableError extends RateLimitError {
  constructor(cause: unknown) {
    super('RXGATE_RATELIMIT_STORE_UNAVAILABLE', 'the shared limiter store is unavailable', { cause });
    this.name = 'StoreUnavailableError';
  }
}

export const isStoreUnavailableError = (e: unknown): e is StoreUnavailableError =>
  e instanceof Error && (e as { code?: unknown }).code === 'RXGATE_RATELIMIT_STORE_UNAVAILABLE';
