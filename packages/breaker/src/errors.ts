import { brand, errorGuard, RxgateError } from '@rxgate/core';
import type { BreakerState } from './state.js';

const BRAND = Symbol.for('@rxgate/breaker/error');

export type BreakerErrorCode =
  | 'RXGATE_BREAKER_OPEN'
  | 'RXGATE_BREAKER_INVALID_OPTION'
  | 'RXGATE_BREAKER_PERMIT_SETTLED';

/** Base class of this package's errors; test with {@link isBreakerError} (works across duplicate installs). */
export class BreakerError extends RxgateError<BreakerErrorCode> {
  constructor(code: BreakerErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = 'BreakerError';
    brand(this, BRAND);
  }
}

/** The breaker refused the call: open, isolated, or half-open with every probe slot taken. */
export class BrokenCircuitError extends BreakerError {
  /** Milliseconds until the breaker may admit a probe (Infinity while isolated). */
  readonly retryAfterMs: number;
  readonly state: BreakerState;
  constructor(state: BreakerState, retryAfterMs: number) {
    super(
      'RXGATE_BREAKER_OPEN',
      state === 'isolated'
        ? 'circuit isolated by hand'
        : `circuit ${state}: next probe in ${Number.isFinite(retryAfterMs) ? Math.ceil(retryAfterMs) : '∞'} ms`,
    );
    this.name = 'BrokenCircuitError';
    this.state = state;
    this.retryAfterMs = retryAfterMs;
  }
}

/** An option is out of range; `option` names it. */
export class InvalidBreakerOptionError extends BreakerError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super('RXGATE_BREAKER_INVALID_OPTION', `${option}: ${problem}`);
    this.name = 'InvalidBreakerOptionError';
    this.option = option;
  }
}

/** A permit was settled a second time: a bug in the caller, reported loudly. */
export class PermitSettledError extends BreakerError {
  constructor() {
    super('RXGATE_BREAKER_PERMIT_SETTLED', 'this permit was already settled');
    this.name = 'PermitSettledError';
  }
}

export const isBreakerError = errorGuard<BreakerError>(BRAND);
export const isBrokenCircuitError = errorGuard<BrokenCircuitError>(BRAND, 'RXGATE_BREAKER_OPEN');
export const isInvalidBreakerOptionError = errorGuard<InvalidBreakerOptionError>(
  BRAND,
  'RXGATE_BREAKER_INVALID_OPTION',
);
export const isPermitSettledError = errorGuard<PermitSettledError>(BRAND, 'RXGATE_BREAKER_PERMIT_SETTLED');
