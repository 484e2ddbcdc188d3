import { brand, errorGuard, RxgateError } from '@rxgate/core';

const BRAND = Symbol.for('@rxgate/retry/error');

/** Stable codes of every error this package throws. */
export type RetryErrorCode = 'RXGATE_RETRY_INVALID_OPTION';

/** Base class of this package's errors; test with {@link isRetryError} (works across duplicate installs). */
export class RetryError extends RxgateError<RetryErrorCode> {
  constructor(code: RetryErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'RetryError';
    brand(this, BRAND);
  }
}

/** An option is out of range; `option` names it. Thrown by `retryPolicy`, before any call. */
export class InvalidRetryOptionError extends RetryError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super('RXGATE_RETRY_INVALID_OPTION', `${option}: ${problem}`);
    this.name = 'InvalidRetryOptionError';
    this.option = option;
  }
}

export const isRetryError = errorGuard<RetryError>(BRAND);
export const isInvalidRetryOptionError = errorGuard<InvalidRetryOptionError>(
  BRAND,
  'RXGATE_RETRY_INVALID_OPTION',
);
