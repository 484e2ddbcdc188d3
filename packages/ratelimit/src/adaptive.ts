import { InvalidOptionError } from './errors.js';
import type { AdaptReason } from './events.js';
import type { QuotaSignal } from './quota-signal.js';
import type { LevelSpec, RateStore } from './store.js';
import { inRange, positive } from './validate.js';

/** How a limiter follows the vendor's quota signals. */
export interface AdaptiveOptions {
  /**
   * How the rate recovers after a throttle that carried no quota headers: `cubic` as the AWS
   * SDKs' adaptive retry does, or `aimd` (linear probe back up).
   * @default 'cubic'
   */
  readonly mode?: 'cubic' | 'aimd';
  /** Multiplicative decrease on a throttle. @default 0.7 */
  readonly beta?: number;
  /** CUBIC scale constant (rates in requests per second). @default 0.4 */
  readonly scale?: number;
  /** AIMD additive increase, tokens per second gained each second. @default a tenth of the configured rate */
  readonly increasePerSecond?: number;
  /** The rate never drops below this. @default a twentieth of the configured rate */
  readonly minRatePerSecond?: number;
  /** How often, at most, a recovering rate is recomputed. @default 250 */
  readonly recomputeEveryMs?: number;
}

// A refill too slow to matter before the vendor's window resets (GCRA needs a rate > 0).
const QUOTA_FLOOR = 1e-6;
/**
 * Seconds over which a remaining quota is spread: the time to the reset less a margin (a
 * tenth of it, at least 100 ms, never more than half), because the reset was measured at the
 * vendor a trip ago and the last request must still land in the window.
 */
export function spreadHorizon(resetSeconds: number): number {
  return resetSeconds - Math.min(resetSeconds / 2, Math.max(resetSeconds / 10, 0.1));
}

export interface ResolvedAdaptive {
  readonly mode: 'cubic' | 'aimd';
  readonly beta: number;
  readonly scale: number;
  readonly increasePerSecond: number | undefined;
  readonly minRatePerSecond: number | undefined;
  readonly recomputeEveryMs: number;
}

export function resolveAdaptive(options: AdaptiveOptions | undefined, prefix: string): ResolvedAdaptive {
  const o = options ?? {};
  const mode = o.mode ?? 'cubic';
  if (mode !== 'cubic' && mode !== 'aimd')
    throw new InvalidOptionError(`${prefix}.mode`, 'must be "cubic" or "aimd"');
  return {
    mode,
    beta: o.beta === undefined ? 0.7 : inRange(`${prefix}.beta`, o.beta, 0, 1, true),
    scale: o.scale === undefined ? 0.4 : positive(`${prefix}.scale`, o.scale),
    increasePerSecond:
      o.increasePerSecond === undefined
        ? undefined
        : positive(`${prefix}.increasePerSecond`, o.increasePerSecond),
    minRatePerSecond:
      o.minRatePerSecond === undefined
        ? undefined
        : positive(`${prefix}.minRatePerSecond`, o.minRatePerSecond),
    recomputeEveryMs:
      o.recomputeEveryMs === undefined ? 250 : positive(`${prefix}.recomputeEveryMs`, o.recomputeEveryMs),
  };
}

export interface RateChange {
  readonly level: string;
  readonly from: number;
  readonly to: number;
  readonly reason: AdaptReason;
}

/**
 * Follows one level's vendor quota: pauses for Retry-After, spreads a low remaining quota over
 * what is left of the window, and cuts then probes the rate back on a bare throttle. The rate
 * in force is the least of the configured rate, the throttle-recovery rate and the quota rate;
 * it never exceeds the configured one.
 */
export class RateController {
  readonly #level: LevelSpec;
  readonly #o: ResolvedAdaptive;
  readonly #minRate: number;
  #current: number;
  // Throttle recovery (CUBIC or AIMD) since the last bare throttle.
  #throttleAt = Number.NEGATIVE_INFINITY;
  #wMax = 0;
  #cut = 0;
  #k = 0;
  #recovering = false;
  // Quota spreading until the vendor's window resets.
  #quotaRate = Number.POSITIVE_INFINITY;
  #quotaUntil = Number.NEGATIVE_INFINITY;
  #quotaUntilEnded = Number.NEGATIVE_INFINITY;
  #nextRecompute = Number.POSITIVE_INFINITY;

  constructor(level: LevelSpec, options: ResolvedAdaptive) {
    this.#level = level;
    this.#o = options;
    this.#current = level.ratePerSecond;
    this.#minRate = Math.min(options.minRatePerSecond ?? level.ratePerSecond / 20, level.ratePerSecond);
  }

  /** The rate in force. */
  get ratePerSecond(): number {
    return this.#current;
  }

  /** When the rate in force next changes on its own (recovery step or quota window end). */
  get nextChangeAt(): number {
    return this.#nextRecompute;
  }

  /** True while a recomputation is due at some later time (recovery or a quota window). */
  get active(): boolean {
    return this.#nextRecompute !== Number.POSITIVE_INFINITY;
  }

  /**
   * Applies one signal to the store. Returns the rate change and pause it made, if any, and
   * whether the limiter got slower (waiters' deadlines must be checked again).
   */
  observe(
    signal: QuotaSignal,
    now: number,
    store: RateStore,
  ): { change?: RateChange; pausedUntil?: number; slower: boolean } {
    let pausedUntil: number | undefined;
    const { retryAfterMs, remaining, resetSeconds } = signal;
    const hasRetryAfter = retryAfterMs !== undefined && Number.isFinite(retryAfterMs) && retryAfterMs > 0;
    const hasQuota =
      remaining !== undefined &&
      Number.isFinite(remaining) &&
      remaining >= 0 &&
      resetSeconds !== undefined &&
      Number.isFinite(resetSeconds) &&
      resetSeconds >= 0;
    if (hasRetryAfter) pausedUntil = now + retryAfterMs;
    if (hasQuota) {
      const windowEnd = now + resetSeconds * 1000;
      if (remaining === 0) {
        if (resetSeconds > 0) pausedUntil = Math.max(pausedUntil ?? 0, windowEnd);
      } else {
        // Never hold more than the vendor will take, and refill no faster than what is left
        // beyond those tokens lasts until the reset: at most `remaining` go before it. The
        // spread ends a little before the reset (see spreadHorizon).
        store.adjust(this.#level, { capTokens: remaining }, now);
        const held = store.snapshot(this.#level, now).tokens;
        const sustainable =
          resetSeconds > 0
            ? Math.max(0, remaining - held) / spreadHorizon(resetSeconds)
            : Number.POSITIVE_INFINITY;
        if (sustainable < this.#level.ratePerSecond) {
          this.#quotaRate = Math.max(QUOTA_FLOOR, sustainable);
          this.#quotaUntil = windowEnd;
        } else {
          this.#quotaRate = Number.POSITIVE_INFINITY;
          this.#quotaUntil = Number.NEGATIVE_INFINITY;
        }
      }
    } else if (signal.throttled === true && !hasRetryAfter) {
      // A throttle that says nothing of the quota: multiplicative decrease, then probe back up.
      this.#wMax = this.#current;
      this.#cut = Math.max(this.#minRate, this.#current * this.#o.beta);
      this.#k = Math.cbrt((this.#wMax * (1 - this.#o.beta)) / this.#o.scale);
      this.#throttleAt = now;
      this.#recovering = true;
    }
    if (pausedUntil !== undefined) store.adjust(this.#level, { pauseUntil: pausedUntil }, now);
    const reason: AdaptReason = hasQuota ? 'quota' : 'throttle';
    const change = this.#apply(now, store, reason);
    const slower = pausedUntil !== undefined || (change !== undefined && change.to < change.from) || hasQuota;
    const result: { change?: RateChange; pausedUntil?: number; slower: boolean } = { slower };
    if (change) result.change = change;
    if (pausedUntil !== undefined) result.pausedUntil = pausedUntil;
    return result;
  }

  /** Recomputes a recovering rate when one is due; cheap to call on every acquire. */
  tick(now: number, store: RateStore): RateChange | undefined {
    if (now < this.#nextRecompute) return undefined;
    const quotaEnded = this.#quotaUntil !== Number.NEGATIVE_INFINITY && now >= this.#quotaUntil;
    if (quotaEnded) {
      this.#quotaUntilEnded = this.#quotaUntil;
      this.#quotaRate = Number.POSITIVE_INFINITY;
      this.#quotaUntil = Number.NEGATIVE_INFINITY;
    }
    // A window that ended while nobody asked ended then: the refill since runs at the full rate.
    const at = quotaEnded ? Math.min(now, this.#quotaUntilEnded) : now;
    // The vendor's window reset, so its whole quota is back: so is our burst.
    if (quotaEnded) store.adjust(this.#level, { fill: true }, at);
    return this.#apply(now, store, quotaEnded ? 'quota-window-ended' : 'recover', at);
  }

  #apply(now: number, store: RateStore, reason: AdaptReason, at = now): RateChange | undefined {
    const configured = this.#level.ratePerSecond;
    let rate = configured;
    if (this.#recovering) {
      const t = (now - this.#throttleAt) / 1000;
      const probe =
        this.#o.mode === 'cubic'
          ? this.#o.scale * (t - this.#k) ** 3 + this.#wMax
          : this.#cut + (this.#o.increasePerSecond ?? configured / 10) * t;
      const recovered = Math.max(this.#cut, probe);
      if (recovered >= configured) this.#recovering = false;
      else rate = Math.min(rate, recovered);
    }
    rate = Math.max(this.#minRate, rate);
    // The vendor's own word about its window may go below the floor of our guesses.
    if (now < this.#quotaUntil) rate = Math.min(rate, this.#quotaRate);
    this.#nextRecompute = this.#recovering
      ? now + this.#o.recomputeEveryMs
      : this.#quotaUntil > now
        ? this.#quotaUntil
        : Number.POSITIVE_INFINITY;
    if (rate === this.#current) return undefined;
    const from = this.#current;
    this.#current = rate;
    store.adjust(this.#level, { ratePerSecond: rate }, at);
    return { level: this.#level.id, from, to: rate, reason };
  }
}
