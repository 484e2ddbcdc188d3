const BRAND = Symbol.for('@rxgate/error');

/**
 * Base of every rxgate error: a stable `code` (`RXGATE_<PACKAGE>_<WHAT>`) and a brand that
 * {@link isRxgateError} and the guards {@link errorGuard} makes test, so a check works across
 * duplicate installs (two copies of a package in one tree), where `instanceof` does not.
 * Each package extends it once with its own base (and its own package brand).
 */
export class RxgateError<Code extends string = string> extends Error {
  readonly code: Code;
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RxgateError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** True for an error of any rxgate package (any copy of it). */
export function isRxgateError(e: unknown): e is RxgateError {
  return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[BRAND] === true;
}

/**
 * A guard that tests a package's brand and, when given, one code:
 * `const isBrokenCircuitError = errorGuard<BrokenCircuitError>(BREAKER_BRAND, 'RXGATE_BREAKER_OPEN')`.
 */
export function errorGuard<E extends RxgateError>(brand: symbol, code?: E['code']): (e: unknown) => e is E {
  return (e: unknown): e is E =>
    typeof e === 'object' &&
    e !== null &&
    (e as Record<symbol, unknown>)[brand] === true &&
    (code === undefined || (e as { code?: unknown }).code === code);
}

/** Marks `error` with a package's brand (call it in the package's base constructor). */
export function brand(error: Error, packageBrand: symbol): void {
  Object.defineProperty(error, packageBrand, { value: true });
}
