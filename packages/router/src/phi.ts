import { inspect } from 'node:util';

const REDACTED = '[REDACTED]';

/**
 * A value that is protected health information (302-C2 Cardholder ID, 310-CA/311-CB names,
 * 304-C4 date of birth). It prints, serialises and inspects as `[REDACTED]`; only `reveal()`
 * gives the value, and only the wire codec and the idempotency HMAC call it.
 */
export class Phi {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  /** The value itself: for the request body and the keyed hash, never for telemetry. */
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return REDACTED;
  }
  toJSON(): string {
    return REDACTED;
  }
  [inspect.custom](): string {
    return REDACTED;
  }
  get [Symbol.toStringTag](): string {
    return REDACTED;
  }
}

/** True when `T` holds a {@link Phi} anywhere inside it. */
export type ContainsPhi<T> = T extends Phi
  ? true
  : T extends ReadonlyArray<infer U>
    ? ContainsPhi<U>
    : T extends object
      ? true extends { [K in keyof T]-?: ContainsPhi<T[K]> }[keyof T]
        ? true
        : false
      : false;

/**
 * What telemetry accepts: any value with no {@link Phi} inside. A claim, or anything holding
 * one, resolves to `never` here, so passing it to a logger, an event or a metric label does
 * not compile.
 */
export type LogSafe<T> = ContainsPhi<T> extends true ? never : T;
