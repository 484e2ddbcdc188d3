const BRAND = Symbol.for('@rxgate/router/error');

export type RouterErrorCode =
  | 'RXGATE_ROUTER_INVALID_CLAIM'
  | 'RXGATE_ROUTER_INVALID_OPTION'
  | 'RXGATE_ROUTER_TRANSPORT'
  | 'RXGATE_ROUTER_CREDENTIALS'
  | 'RXGATE_ROUTER_CLOSED';

/** Base class of the router's errors. Messages never carry claim values. */
export class RouterError extends Error {
  readonly code: RouterErrorCode;
  constructor(code: RouterErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RouterError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/** One bad field of a claim, named by its NCPDP code. */
export interface FieldIssue {
  /** The NCPDP field, e.g. `407-D7`. */
  readonly field: string;
  /** What is wrong, without the value. */
  readonly message: string;
}

/** A claim failed validation; `issues` name every bad field. Nothing was sent. */
export class InvalidClaimError extends RouterError {
  readonly issues: readonly FieldIssue[];
  constructor(issues: readonly FieldIssue[]) {
    super(
      'RXGATE_ROUTER_INVALID_CLAIM',
      `invalid claim: ${issues.map((i) => `${i.field} ${i.message}`).join('; ')}`,
    );
    this.name = 'InvalidClaimError';
    this.issues = issues;
  }
}

export class RouterConfigError extends RouterError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super('RXGATE_ROUTER_INVALID_OPTION', `${option}: ${problem}`);
    this.name = 'RouterConfigError';
    this.option = option;
  }
}

/**
 * The request did not get an answer. `phase` says whether it may have been processed:
 * `not-sent` (connect failure, DNS) or `sent` (a timeout or reset after it left).
 */
export class TransportError extends RouterError {
  readonly phase: 'not-sent' | 'sent';
  /** The underlying error code (`UND_ERR_CONNECT_TIMEOUT`, `ECONNRESET`, …). */
  readonly transportCode: string;
  constructor(phase: 'not-sent' | 'sent', transportCode: string, options?: { cause?: unknown }) {
    super('RXGATE_ROUTER_TRANSPORT', `transport ${phase}: ${transportCode}`, options);
    this.name = 'TransportError';
    this.phase = phase;
    this.transportCode = transportCode;
  }
}

export class CredentialsError extends RouterError {
  readonly status?: number;
  constructor(message: string, status?: number, options?: { cause?: unknown }) {
    super('RXGATE_ROUTER_CREDENTIALS', message, options);
    this.name = 'CredentialsError';
    if (status !== undefined) this.status = status;
  }
}

export class RouterClosedError extends RouterError {
  constructor() {
    super('RXGATE_ROUTER_CLOSED', 'router closed');
    this.name = 'RouterClosedError';
  }
}

const has = (e: unknown, code?: RouterErrorCode): boolean =>
  typeof e === 'object' &&
  e !== null &&
  (e as Record<symbol, unknown>)[BRAND] === true &&
  (code === undefined || (e as { code?: unknown }).code === code);

export const isRouterError = (e: unknown): e is RouterError => has(e);
export const isInvalidClaimError = (e: unknown): e is InvalidClaimError =>
  has(e, 'RXGATE_ROUTER_INVALID_CLAIM');
export const isTransportError = (e: unknown): e is TransportError => has(e, 'RXGATE_ROUTER_TRANSPORT');
