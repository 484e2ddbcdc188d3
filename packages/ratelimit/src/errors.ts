import { brand, errorGuard, RxgateError } from '@rxgate/core';

const BRAND = Symbol.for('@rxgate/ratelimit/error');

/** Stable codes of every error this package throws or rejects with. */
export type RateLimitErrorCode =
  | 'RXGATE_RATELIMIT_INVALID_OPTION'
  | 'RXGATE_RATELIMIT_DEADLINE'
  | 'RXGATE_RATELIMIT_ABORTED'
  | 'RXGATE_RATELIMIT_CLOSED'
  | 'RXGATE_RATELIMIT_STORE_UNAVAILABLE';

/** Base class of this package's errors; test with {@link isRateLimitError}, which works across duplicate installs. */
export class RateLimitError extends RxgateError<RateLimitErrorCode> {
  constructor(code: RateLimitErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'RateLimitError';
    brand(this, BRAND);
  }
}

/** An option or argument is out of range; `option` names it. Thrown before anything is queued or spent. */
export class InvalidOptionError extends RateLimitError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super('RXGATE_RATELIMIT_INVALID_OPTION', `${option}: ${problem}`);
    this.name = 'InvalidOptionError';
    this.option = option;
  }
}

/**
 * The acquire could not be admitted before its deadline. Raised at once when the predicted wait
 * (the queue ahead included) already misses the deadline, or when the deadline passes in the queue.
 * Nothing was spent.
 */
export class DeadlineExceededError extends RateLimitError {
  /** The wait the limiter predicted from the moment of the decision, in milliseconds. */
  readonly predictedWaitMs: number;
  /** The deadline that would have been missed, on the limiter's clock. */
  readonly deadline: number;
  /**
   * `predicted`: refused at once, the predicted wait misses the deadline; `passed-while-queued`:
   * the deadline came while waiting; `already-past`: the deadline had passed before the call.
   */
  readonly when: 'predicted' | 'passed-while-queued' | 'already-past';
  constructor(
    predictedWaitMs: number,
    deadline: number,
    when: boolean | 'predicted' | 'passed-while-queued' | 'already-past' = 'predicted',
  ) {
    const w = when === true ? 'passed-while-queued' : when === false ? 'predicted' : when;
    super(
      'RXGATE_RATELIMIT_DEADLINE',
      w === 'passed-while-queued'
        ? 'the deadline passed while waiting for admission'
        : w === 'already-past'
          ? 'deadline: already past when the acquire was made'
          : `admission predicted in ${Math.ceil(predictedWaitMs)} ms, past the deadline`,
    );
    this.name = 'DeadlineExceededError';
    this.predictedWaitMs = predictedWaitMs;
    this.deadline = deadline;
    this.when = w;
  }
}

/** The caller's `AbortSignal` fired while the acquire waited; nothing was spent. */
export class AcquireAbortedError extends RateLimitError {
  constructor(reason: unknown) {
    super('RXGATE_RATELIMIT_ABORTED', 'acquire aborted while waiting', { cause: reason });
    this.name = 'AcquireAbortedError';
  }
}

/** The limiter was closed while the acquire waited, or before it began. */
export class LimiterClosedError extends RateLimitError {
  constructor() {
    super('RXGATE_RATELIMIT_CLOSED', 'limiter closed');
    this.name = 'LimiterClosedError';
  }
}

export const isRateLimitError = errorGuard<RateLimitError>(BRAND);
export const isInvalidOptionError = errorGuard<InvalidOptionError>(BRAND, 'RXGATE_RATELIMIT_INVALID_OPTION');
export const isDeadlineExceededError = errorGuard<DeadlineExceededError>(BRAND, 'RXGATE_RATELIMIT_DEADLINE');
export const isAcquireAbortedError = errorGuard<AcquireAbortedError>(BRAND, 'RXGATE_RATELIMIT_ABORTED');
export const isLimiterClosedError = errorGuard<LimiterClosedError>(BRAND, 'RXGATE_RATELIMIT_CLOSED');
