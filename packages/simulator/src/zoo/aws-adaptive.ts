import type { Clock } from '@rxgate/ratelimit';

/**
 * The reference: the AWS SDKs' adaptive retry mode ("ClientRateLimiter" in botocore and the
 * JS SDK v3), written from their published algorithm. A token bucket that is off until the
 * first throttle; each throttle cuts the fill rate to beta times the measured sending rate;
 * successes grow it back along a CUBIC curve, never above twice the measured rate. It reads no
 * quota header and no Retry-After.
 */
export class AwsAdaptiveReference {
  readonly #clock: Clock;
  readonly #beta = 0.7;
  readonly #scale = 0.4;
  readonly #smooth = 0.8;
  readonly #minFillRate = 0.5;
  readonly #minCapacity = 1;
  #fillRate = 0;
  #maxCapacity = 0;
  #capacity = 0;
  #lastTimestamp: number | undefined;
  #enabled = false;
  #lastMaxRate = 0;
  #measuredTxRate = 0;
  #requestCount = 0;
  #lastTxRateBucket: number;
  #timeWindow = 0;
  #lastThrottleTime: number;
  // Senders wait in order; each computes its own wait from the bucket, as the SDK does.
  #queue: Promise<void> = Promise.resolve();

  constructor(clock: Clock) {
    this.#clock = clock;
    this.#lastTxRateBucket = Math.floor(this.#seconds());
    this.#lastThrottleTime = this.#seconds();
  }

  #seconds(): number {
    return this.#clock.now() / 1000;
  }

  /** Resolves when the request may be sent. */
  sendToken(): Promise<void> {
    const next = this.#queue.then(() => this.#acquire());
    this.#queue = next;
    return next;
  }

  async #acquire(): Promise<void> {
    if (!this.#enabled) return;
    this.#refill();
    if (this.#capacity < 1) {
      const waitMs = ((1 - this.#capacity) / this.#fillRate) * 1000;
      await new Promise<void>((r) => this.#clock.setTimer(waitMs, r));
      this.#refill();
    }
    this.#capacity -= 1;
  }

  /** After every answer: `throttled` for a 429 or a 503 used as one. */
  update(throttled: boolean): void {
    this.#updateMeasuredRate();
    let calculated: number;
    if (throttled) {
      const rateToUse = this.#enabled ? Math.min(this.#measuredTxRate, this.#fillRate) : this.#measuredTxRate;
      this.#lastMaxRate = rateToUse;
      this.#timeWindow = Math.cbrt((this.#lastMaxRate * (1 - this.#beta)) / this.#scale);
      this.#lastThrottleTime = this.#seconds();
      calculated = rateToUse * this.#beta;
      this.#enabled = true;
    } else {
      this.#timeWindow = Math.cbrt((this.#lastMaxRate * (1 - this.#beta)) / this.#scale);
      const t = this.#seconds() - this.#lastThrottleTime - this.#timeWindow;
      calculated = this.#scale * t ** 3 + this.#lastMaxRate;
    }
    this.#setRate(Math.min(calculated, 2 * this.#measuredTxRate));
  }

  #setRate(rate: number): void {
    this.#refill();
    this.#fillRate = Math.max(rate, this.#minFillRate);
    this.#maxCapacity = Math.max(rate, this.#minCapacity);
    this.#capacity = Math.min(this.#capacity, this.#maxCapacity);
  }

  #refill(): void {
    const now = this.#seconds();
    if (this.#lastTimestamp === undefined) {
      this.#lastTimestamp = now;
      return;
    }
    this.#capacity = Math.min(
      this.#maxCapacity,
      this.#capacity + (now - this.#lastTimestamp) * this.#fillRate,
    );
    this.#lastTimestamp = now;
  }

  #updateMeasuredRate(): void {
    const bucket = Math.floor(this.#seconds() * 2) / 2;
    this.#requestCount++;
    if (bucket > this.#lastTxRateBucket) {
      const current = this.#requestCount / (bucket - this.#lastTxRateBucket);
      this.#measuredTxRate = current * this.#smooth + this.#measuredTxRate * (1 - this.#smooth);
      this.#requestCount = 0;
      this.#lastTxRateBucket = bucket;
    }
  }
}
