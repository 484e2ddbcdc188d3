import { InvalidBreakerOptionError } from './errors.js';
import { nonNegative, positive, positiveInt, rate } from './validate.js';

/** When a closed breaker opens. Plain data, so defaults and overrides merge and persist. */
export type FailurePolicyOptions =
  | {
      /** Open after `threshold` failures in a row; a success resets the run. */
      readonly kind: 'consecutive';
      readonly threshold: number;
    }
  | {
      /** Rates over the last `size` calls. */
      readonly kind: 'count-window';
      readonly size: number;
      /** Calls needed in the window before a rate is judged. @default size */
      readonly minimumCalls?: number;
      /** Open when failures / calls reach this rate. */
      readonly failureRate?: number;
      /** Open when calls slower than `thresholdMs` reach `rate` of the calls. */
      readonly slowCall?: SlowCallOptions;
    }
  | {
      /** Rates over the calls of the last `windowMs`, kept in `buckets` slices. */
      readonly kind: 'time-window';
      readonly windowMs: number;
      /** Calls needed in the window before a rate is judged. */
      readonly minimumCalls: number;
      /** @default 10 */
      readonly buckets?: number;
      readonly failureRate?: number;
      readonly slowCall?: SlowCallOptions;
    };

export interface SlowCallOptions {
  /** A call that takes longer than this counts as slow (success or failure). */
  readonly thresholdMs: number;
  /** Open when slow calls reach this rate of the calls in the window. */
  readonly rate: number;
}

/** A policy's state, for `toJSON` and restore. */
export type PolicyState =
  | { readonly kind: 'consecutive'; readonly failures: number }
  | {
      readonly kind: 'count-window';
      readonly ring: readonly number[];
      readonly next: number;
      readonly filled: number;
    }
  | {
      readonly kind: 'time-window';
      readonly buckets: ReadonlyArray<
        readonly [start: number, calls: number, failures: number, slow: number]
      >;
    };

/** A live failure policy of one breaker. */
export interface FailurePolicy {
  /** True when the policy needs call durations or times, so the breaker reads its clock per call. */
  readonly needsClock: boolean;
  /** Slow-call threshold, if any (a slow half-open probe counts as a failure). */
  readonly slowCallMs: number;
  /** Records one call that finished while closed; true when the breaker should open. */
  record(failed: boolean, durationMs: number, now: number): boolean;
  reset(): void;
  toJSON(): PolicyState;
  restore(state: PolicyState): void;
}

export function validatePolicy(o: FailurePolicyOptions, prefix = 'policy'): FailurePolicyOptions {
  if (typeof o !== 'object' || o === null) throw new InvalidBreakerOptionError(prefix, 'must be an object');
  switch (o.kind) {
    case 'consecutive':
      positiveInt(`${prefix}.threshold`, o.threshold);
      return o;
    case 'count-window':
      positiveInt(`${prefix}.size`, o.size);
      if (o.minimumCalls !== undefined) positiveInt(`${prefix}.minimumCalls`, o.minimumCalls);
      checkRates(o, prefix);
      return o;
    case 'time-window':
      positive(`${prefix}.windowMs`, o.windowMs);
      positiveInt(`${prefix}.minimumCalls`, o.minimumCalls);
      if (o.buckets !== undefined) positiveInt(`${prefix}.buckets`, o.buckets);
      checkRates(o, prefix);
      return o;
    default:
      throw new InvalidBreakerOptionError(
        `${prefix}.kind`,
        'must be "consecutive", "count-window" or "time-window"',
      );
  }
}

function checkRates(o: { failureRate?: number; slowCall?: SlowCallOptions }, prefix: string): void {
  if (o.failureRate === undefined && o.slowCall === undefined) {
    throw new InvalidBreakerOptionError(
      `${prefix}.failureRate`,
      'a rate window needs failureRate, slowCall, or both',
    );
  }
  if (o.failureRate !== undefined) rate(`${prefix}.failureRate`, o.failureRate);
  if (o.slowCall !== undefined) {
    nonNegative(`${prefix}.slowCall.thresholdMs`, o.slowCall.thresholdMs);
    rate(`${prefix}.slowCall.rate`, o.slowCall.rate);
  }
}

export function createPolicy(o: FailurePolicyOptions): FailurePolicy {
  switch (o.kind) {
    case 'consecutive':
      return new ConsecutivePolicy(o.threshold);
    case 'count-window':
      return new CountWindowPolicy(o.size, o.minimumCalls ?? o.size, o.failureRate, o.slowCall);
    case 'time-window':
      return new TimeWindowPolicy(o.windowMs, o.buckets ?? 10, o.minimumCalls, o.failureRate, o.slowCall);
  }
}

class ConsecutivePolicy implements FailurePolicy {
  // Stryker disable next-line BooleanLiteral: reading the clock per call it does not need changes nothing but the cost.
  readonly needsClock = false;
  readonly slowCallMs = Number.POSITIVE_INFINITY;
  #failures = 0;
  constructor(readonly threshold: number) {}
  record(failed: boolean): boolean {
    if (!failed) {
      this.#failures = 0;
      return false;
    }
    return ++this.#failures >= this.threshold;
  }
  reset(): void {
    this.#failures = 0;
  }
  toJSON(): PolicyState {
    return { kind: 'consecutive', failures: this.#failures };
  }
  restore(state: PolicyState): void {
    if (state.kind === 'consecutive') this.#failures = state.failures;
  }
}

// Bits of one call in a count window.
const FAILED = 1;
const SLOW = 2;

class CountWindowPolicy implements FailurePolicy {
  readonly needsClock: boolean;
  readonly slowCallMs: number;
  readonly #ring: Uint8Array;
  #next = 0;
  #filled = 0;
  #failures = 0;
  #slow = 0;
  constructor(
    size: number,
    readonly minimumCalls: number,
    readonly failureRate: number | undefined,
    readonly slowCall: SlowCallOptions | undefined,
  ) {
    this.#ring = new Uint8Array(size);
    this.needsClock = slowCall !== undefined;
    this.slowCallMs = slowCall?.thresholdMs ?? Number.POSITIVE_INFINITY;
  }
  record(failed: boolean, durationMs: number): boolean {
    const bits = (failed ? FAILED : 0) | (durationMs > this.slowCallMs ? SLOW : 0);
    const ring = this.#ring;
    if (this.#filled === ring.length) {
      const old = ring[this.#next]!;
      if (old & FAILED) this.#failures--;
      if (old & SLOW) this.#slow--;
    } else this.#filled++;
    ring[this.#next] = bits;
    this.#next = (this.#next + 1) % ring.length;
    if (bits & FAILED) this.#failures++;
    if (bits & SLOW) this.#slow++;
    return tripped(
      this.#filled,
      this.#failures,
      this.#slow,
      this.minimumCalls,
      this.failureRate,
      this.slowCall,
    );
  }
  reset(): void {
    this.#ring.fill(0);
    this.#next = this.#filled = this.#failures = this.#slow = 0;
  }
  toJSON(): PolicyState {
    return { kind: 'count-window', ring: [...this.#ring], next: this.#next, filled: this.#filled };
  }
  restore(state: PolicyState): void {
    if (state.kind !== 'count-window' || state.ring.length !== this.#ring.length) return;
    this.reset();
    this.#ring.set(state.ring);
    this.#next = state.next;
    this.#filled = state.filled;
    for (let i = 0; i < this.#filled; i++) {
      const b = this.#ring[(this.#next - 1 - i + this.#ring.length) % this.#ring.length]!;
      if (b & FAILED) this.#failures++;
      if (b & SLOW) this.#slow++;
    }
  }
}

class TimeWindowPolicy implements FailurePolicy {
  readonly needsClock = true;
  readonly slowCallMs: number;
  readonly #bucketMs: number;
  // Per bucket: [start, calls, failures, slow].
  #buckets: Array<[number, number, number, number]>;
  constructor(
    windowMs: number,
    buckets: number,
    readonly minimumCalls: number,
    readonly failureRate: number | undefined,
    readonly slowCall: SlowCallOptions | undefined,
  ) {
    this.#bucketMs = windowMs / buckets;
    this.#buckets = Array.from({ length: buckets }, () => [Number.NEGATIVE_INFINITY, 0, 0, 0]);
    this.slowCallMs = slowCall?.thresholdMs ?? Number.POSITIVE_INFINITY;
  }
  record(failed: boolean, durationMs: number, now: number): boolean {
    const slot = Math.floor(now / this.#bucketMs);
    const b = this.#buckets[((slot % this.#buckets.length) + this.#buckets.length) % this.#buckets.length]!;
    const start = slot * this.#bucketMs;
    if (b[0] !== start) {
      b[0] = start;
      b[1] = b[2] = b[3] = 0;
    }
    b[1]++;
    if (failed) b[2]++;
    if (durationMs > this.slowCallMs) b[3]++;
    let calls = 0;
    let failures = 0;
    let slow = 0;
    // Bucket starts are multiples of a slice that need not be a whole number (671 ms in 5):
    // compared half a slice apart, a start computed as slot * slice is never lost to rounding.
    const half = this.#bucketMs / 2;
    const horizon = start - this.#bucketMs * (this.#buckets.length - 1) - half;
    for (const x of this.#buckets) {
      if (x[0] < horizon || x[0] > start + half) continue;
      calls += x[1];
      failures += x[2];
      slow += x[3];
    }
    return tripped(calls, failures, slow, this.minimumCalls, this.failureRate, this.slowCall);
  }
  reset(): void {
    for (const b of this.#buckets) {
      b[0] = Number.NEGATIVE_INFINITY;
      b[1] = b[2] = b[3] = 0;
    }
  }
  toJSON(): PolicyState {
    return { kind: 'time-window', buckets: this.#buckets.map((b) => [b[0], b[1], b[2], b[3]] as const) };
  }
  restore(state: PolicyState): void {
    if (state.kind !== 'time-window' || state.buckets.length !== this.#buckets.length) return;
    this.#buckets = state.buckets.map((b) => [b[0] ?? Number.NEGATIVE_INFINITY, b[1], b[2], b[3]]);
  }
}

function tripped(
  calls: number,
  failures: number,
  slow: number,
  minimumCalls: number,
  failureRate: number | undefined,
  slowCall: SlowCallOptions | undefined,
): boolean {
  if (calls < minimumCalls) return false;
  if (failureRate !== undefined && failures / calls >= failureRate) return true;
  return slowCall !== undefined && slow / calls >= slowCall.rate;
}
