import { InvalidOptionError } from './errors.js';
import type { AdaptReason } from './events.js';
import { LearnedMargin, steadyThrottle } from './jitter-margin.js';
import type { PaceSpec } from './pacer.js';
import type { QuotaSignal } from './quota-signal.js';
import {
  bindingTier,
  type QuotaTier,
  tierOf,
  tiersAfter,
  tiersAfterRemaining,
  tiersWithDeclared,
} from './quota-tiers.js';
import { RemainingOnlyRate, type SentWhen } from './remaining-only.js';
import { bareThrottle, throttleCut } from './retry-after-rate.js';
import { roundWindow } from './round-window.js';
import { stallShare } from './stall-watch.js';
import type { LevelOps, LevelSpec } from './store.js';
import { inRange, positive } from './validate.js';
import {
  coarseResetEnded,
  MIN_RESET_WINDOW_MS,
  nextFitAfter,
  phaseAfter,
  resetByPhase,
  windowAfter,
  windowBegan,
} from './vendor-window.js';
import { WindowEnd } from './window-end.js';

/** How a limiter follows the vendor's quota signals. */
export interface AdaptiveOptions {
  /**
   * How the rate recovers after a throttle that carried no quota headers. `hold`: a vendor's
   * quota does not move as a network's capacity does, so the rate that was throttled is
   * remembered (as what the vendor accepted meanwhile, when that is less): the rate climbs back
   * to just under it in `recoverMs`, holds there for `holdMs`, then probes up by 1 % a second.
   * `cubic` as the AWS SDKs' adaptive retry does; `aimd` (linear probe back up).
   * @default 'hold'
   */
  readonly mode?: 'hold' | 'cubic' | 'aimd';
  /** `hold` mode: time to climb back from the cut to just under the throttled rate. @default 3000 */
  readonly recoverMs?: number;
  /** `hold` mode: time spent just under the throttled rate before probing above it. @default 30_000 */
  readonly holdMs?: number;
  /** Multiplicative decrease on a throttle. @default 0.9 in `hold` mode, 0.7 otherwise */
  readonly beta?: number;
  /** CUBIC scale constant (rates in requests per second). @default 0.4 */
  readonly scale?: number;
  /** AIMD additive increase, tokens per second gained each second. @default a tenth of the configured rate */
  readonly increasePerSecond?: number;
  /** The rate never drops below this. @default a twentieth of the configured rate */
  readonly minRatePerSecond?: number;
  /** How often, at most, a recovering rate is recomputed. @default 250 */
  readonly recomputeEveryMs?: number;
  /**
   * The most a level may run at, whatever the vendor advertises. Without it, a vendor that
   * advertises its limit (`X-RateLimit-Limit`, IETF `q`) sets the ceiling, above the configured
   * rate if it is higher, so a user who does not know the quota still gets all of it.
   * @default no cap
   */
  readonly maxRatePerSecond?: number;
  /**
   * The longest pause any one answer can impose (a Retry-After of a week, a `Remaining: 0`
   * with a reset a day away). When it ends, one request probes the vendor; its answer decides.
   * @default 300_000 (5 minutes)
   */
  readonly maxPauseMs?: number;
  /**
   * The share of the vendor's advertised rate to aim at: a little under it, so arrival jitter
   * does not fill a sliding window. For a vendor that advertises its limit and window, the
   * share is learned from there: throttles at a steady pace under the advertised rate say the
   * path's jitter needs more; from the second within a minute, each takes a point off (to 0.95
   * at most; a configured share under that is never lowered), and each 5 minutes without any
   * throttle give a point back (see jitterMargin).
   * @default 0.99
   */
  readonly targetShare?: number;
}

export interface ResolvedAdaptive {
  readonly mode: 'hold' | 'cubic' | 'aimd';
  readonly recoverMs: number;
  readonly holdMs: number;
  readonly beta: number;
  readonly scale: number;
  readonly increasePerSecond: number | undefined;
  readonly minRatePerSecond: number | undefined;
  readonly recomputeEveryMs: number;
  readonly maxRatePerSecond: number;
  readonly maxPauseMs: number;
  readonly targetShare: number;
}

export function resolveAdaptive(options: AdaptiveOptions | undefined, prefix: string): ResolvedAdaptive {
  const o = options ?? {};
  const mode = o.mode ?? 'hold';
  if (mode !== 'hold' && mode !== 'cubic' && mode !== 'aimd')
    throw new InvalidOptionError(`${prefix}.mode`, 'must be "hold", "cubic" or "aimd"');
  return {
    mode,
    recoverMs: o.recoverMs === undefined ? 3000 : positive(`${prefix}.recoverMs`, o.recoverMs),
    holdMs: o.holdMs === undefined ? 30_000 : positive(`${prefix}.holdMs`, o.holdMs),
    beta:
      o.beta === undefined ? (mode === 'hold' ? 0.9 : 0.7) : inRange(`${prefix}.beta`, o.beta, 0, 1, true),
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
    maxRatePerSecond:
      o.maxRatePerSecond === undefined
        ? Number.POSITIVE_INFINITY
        : positive(`${prefix}.maxRatePerSecond`, o.maxRatePerSecond),
    maxPauseMs: o.maxPauseMs === undefined ? 300_000 : positive(`${prefix}.maxPauseMs`, o.maxPauseMs),
    targetShare: o.targetShare === undefined ? 0.99 : share(`${prefix}.targetShare`, o.targetShare),
  };
}

export interface RateChange {
  readonly level: string;
  readonly from: number;
  readonly to: number;
  readonly reason: AdaptReason;
}

function share(option: string, value: unknown): number {
  const v = positive(option, value);
  if (v > 1) throw new InvalidOptionError(option, `must be a number in (0, 1], got ${v}`);
  return v;
}

/** What the limiter knows of a level's traffic when a signal arrives. */
export interface LevelTraffic {
  /** Leases of this level admitted and not yet released (requests in flight). */
  readonly inFlight: number;
  /** Admissions on this level so far (a running count). */
  readonly admitted: number;
  /** Admissions on this level after a time; undefined where that is not known. */
  readonly admittedSince?: (t: number) => number | undefined;
  /**
   * How late this process's timers have fired lately (StallWatch; ms, 0 or undefined in virtual
   * time): a paced window leaves that much room a window (see #ceiling). Adaptation fills it in
   * from its scheduler.
   */
  readonly stallMs?: number;
}

export interface ObserveResult {
  readonly change?: RateChange;
  readonly pausedUntil?: number;
  /** The limiter got slower or paused: waiters' deadlines must be checked again. */
  readonly slower: boolean;
}

// After a wall's pause, how long its probe goes alone: a typical round trip. Longer costs the
// sliding log whose wall has ended that much of its freed requests every window (1000 ms: 100
// per 10 s, bare 429, 86-90 %); an answer slower than this costs a throttle or two more.
const PROBE_ALONE_MS = 500;

// The longest a hold at nothing left lasts (see #holdIfSpent) when its probe's answer does not
// come back.
const HOLD_MAX_MS = 10_000;

/** How long before a signal puts its request's admission the limiter looks for it (see #sentAfter). */
const ADMITTED_SLACK_MS = 5;

/** How far past a `Remaining: 0` pause's reset another pause may end and its answer still say what the reset freed. */
const ZERO_CHECK_SLACK_MS = 100;

const finite = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x) && x >= 0;

/**
 * Follows one level's vendor quota. The rules, each a bug a real vendor showed:
 *
 * - The ceiling is the vendor's advertised rate when it says one: its limit over its window,
 *   the window being the longest reset it ever reported (a fixed window's reset is at most the
 *   window; a sliding log's, the time until its oldest request leaves; a token bucket's, its
 *   time to full), a little under it (`targetShare`), capped by `maxRatePerSecond`. Otherwise
 *   the configured rate.
 * - The margin under that rate is learned: throttles at a steady pace under it say the path's
 *   jitter needs more (jitterMargin).
 * - Remaining is a budget: the level never holds more tokens than the vendor has left minus
 *   the requests already in flight (they will spend it).
 * - Nothing is given back at a reset: a pause (`Remaining: 0` until the reset, or a
 *   Retry-After) lets tokens come back at the ceiling rate only, so a reset that frees one
 *   request gives one back, and a fixed window's reset gives back a burst because the pause
 *   lasted that long. Every pause is capped (`maxPauseMs`); after a capped pause one request
 *   probes, and its answer decides.
 * - A vendor that reports Remaining without a reset is read over time: the share of its
 *   limit our sending leaves unused tells its rate.
 * - A throttle that says nothing cuts the rate by `beta` and probes back up with CUBIC.
 * - A wall of throttles that say nothing (none went through for a second after a cut: a long
 *   window spent, 600 per 60 s) is waited out, not cut into: pauses growing by half each,
 *   capped at `maxPauseMs`, each ended by one probe that goes alone (bareThrottle).
 * - The rate never drops to a crawl: slowing down to nothing is a pause with an end, so a
 *   waiter's predicted wait stays true and no deadline looks unreachable when it is not.
 */
export class RateController {
  readonly #level: LevelSpec;
  readonly #o: ResolvedAdaptive;
  readonly #minRate: number;
  #current: number;
  // The stall allowance the last answer came with (LevelTraffic.stallMs), and the share of the
  // rate it left at the last ceiling (stallShare; 1 without a paced window).
  #stallMs = 0;
  #stallFactor = 1;
  // Throttle recovery (CUBIC or AIMD) since the last bare throttle.
  #throttleAt = Number.NEGATIVE_INFINITY;
  #wMax = 0;
  #cut = 0;
  #k = 0;
  // `hold` mode: how long the climb from the cut takes (see throttleCut).
  #climbMs: number;
  #recovering = false;
  // What the vendor said over time. The Limit said last, and its tier's window (see
  // quota-tiers.ts): what the answers read.
  #limit: number | undefined;
  #windowMs = 0;
  #windowDeclared = false;
  // Every quota the vendor was seen to keep (one for most), and the one in force that allows
  // least (as of the last answer): its rate is the ceiling.
  #tiers: readonly QuotaTier[] = [];
  #binding: QuotaTier | undefined;
  // The budget before a reset set last (see observe): by which tier's answer, and until when.
  #budgetBy: { readonly key: number | undefined; readonly until: number } | undefined;
  // What is kept per tier (by its key): a declared window's phase (the last reset read, and when
  // a window was last seen to begin), and the share of its advertised rate aimed at, learned
  // from throttles (jitterMargin): the jitter a 1 s window needs says nothing of a minute's (one
  // margin for all, cut to 95 % by a 1 s tier's throttles at start-up, held a minute's quota at
  // 95.2 %).
  readonly #perTier = new Map<
    number | undefined,
    { lastResetMs: number | undefined; beganAt: number | undefined; readonly margin: LearnedMargin }
  >();
  // A vendor with Remaining and no reset, or a reset that is the time until one more request
  // fits (see nextFitAfter): its rate read from how Remaining moves.
  #remainingOnly: RemainingOnlyRate | undefined;
  #nextFit = { latched: false, ruledOut: false };
  #pausedTill = Number.NEGATIVE_INFINITY;
  // Since when the pace is steady (see steadyThrottle), and the vendor's rate it was read at.
  #steadySince = Number.NEGATIVE_INFINITY;
  #steadyRate: number | undefined;
  // Whether this vendor's `Remaining: 0` means full until its reset (see #zeroIsFull).
  #zeroFull: boolean | undefined;
  // Where the answers bound a fixed window's end (see WindowEnd).
  readonly #windowEnd = new WindowEnd();
  #zeroCheckAt = Number.POSITIVE_INFINITY;
  // Answers with a whole-second reset from a window surely over are set aside (coarseResetEnded)
  // until a refusal says the vendor counts later than that assumes; the last one that would have
  // paused at 0, and until when.
  #coarseTrusted = true;
  #setAside = { from: Number.POSITIVE_INFINITY, until: Number.NEGATIVE_INFINITY };
  #zeroCheckAdmitted = 0;
  #zeroBack = 0;
  // Throttles seen, time spent paused, and where the last cut measured from (`hold` mode).
  #throttles = 0;
  #pausedMs = 0;
  #cutSample: { at: number; admitted: number; throttles: number; pausedMs: number } | undefined;
  // Bare throttles (no Retry-After): answers that went through at the last cut, walls since.
  #wentThroughAtCut = 0;
  #throttlesAtCut = 0;
  #inFlightAtCut = 0;
  #walls = 0;
  #wallsSeen = false;
  // Cuts in a row, each paused again before the last climb was over (see throttleCut).
  #pausedAgainInRow = 0;
  // The pause that ends at #probeAt was a wall's: its probe goes alone (see PROBE_ALONE_MS).
  #wallProbe = false;
  // A hold at nothing left (see #holdIfSpent): admissions on the level when it began (or its
  // last probe went), and the vendor's level then (the answered request's place plus Remaining).
  #holdFrom: number | undefined;
  #holdLevel = 0;
  // A capped pause ends here: one request then probes the vendor.
  #probeAt = Number.POSITIVE_INFINITY;
  #nextRecompute = Number.POSITIVE_INFINITY;

  constructor(level: LevelSpec, options: ResolvedAdaptive) {
    this.#level = level;
    this.#o = options;
    this.#climbMs = options.recoverMs;
    this.#current = Math.min(level.ratePerSecond, options.maxRatePerSecond);
    this.#minRate = Math.min(options.minRatePerSecond ?? level.ratePerSecond / 20, this.#current);
  }

  /** The rate in force. */
  get ratePerSecond(): number {
    return this.#current;
  }

  get level(): LevelSpec {
    return this.#level;
  }

  /**
   * The pace the level's admissions keep to once the vendor's quota is known (see Pacer): the
   * rate in force, and as the tolerance half the time the margin leaves a window (5 ms of a 1 s
   * window at 99 %). Undefined before, and for a fixed window (`Remaining: 0` learned to mean
   * full until its reset): its new window is whole, and what the bucket banked while the last
   * one was spent goes at its start (a fixed window at varied round trips lost 0.3 % paced).
   * A sliding window read from Remaining alone (RemainingOnlyRate.ownWindow) keeps a pace too,
   * with the margin learned for it: caught up after a late timer, a 1 s log of 50 saying Limit
   * and Remaining only was refused a request 1 s after each stall of more than 10 ms over
   * loopback (three stalls of 11-12 ms, each followed by a turn 8-10 ms after the late one, and
   * each throttle a second of Retry-After).
   */
  get pace(): PaceSpec | undefined {
    const window = this.#pacedWindow();
    if (window === undefined) return undefined;
    return { perSecond: this.#current, toleranceMs: (window.windowMs * (1 / window.share - 1)) / 2 };
  }

  /** When the rate in force next changes on its own (a recovery step, or the end of a capped pause). */
  get nextChangeAt(): number {
    return Math.min(this.#nextRecompute, this.#probeAt);
  }

  /** True while a recomputation is due at some later time. */
  get active(): boolean {
    return this.nextChangeAt !== Number.POSITIVE_INFINITY;
  }

  // What is kept for the tier of `key` (see #perTier).
  #tierState(key: number | undefined): {
    lastResetMs: number | undefined;
    beganAt: number | undefined;
    readonly margin: LearnedMargin;
  } {
    let state = this.#perTier.get(key);
    if (state === undefined) {
      state = { lastResetMs: undefined, beganAt: undefined, margin: new LearnedMargin(this.#o.targetShare) };
      this.#perTier.set(key, state);
    }
    return state;
  }

  // The margin learned for a tier (see #perTier).
  #marginOf(tier: QuotaTier): LearnedMargin {
    return this.#tierState(tier.key).margin;
  }

  // The window a pace keeps to (see pace): the one the vendor's limit and window say, unless its
  // `Remaining: 0` was learned to mean full until its reset; or one read from Remaining alone.
  #pacedWindow(): { readonly windowMs: number; readonly share: number } | undefined {
    const binding = this.#binding;
    if (binding === undefined) return this.#windowMs <= 0 ? this.#remainingOnly?.ownWindow : undefined;
    if (this.#zeroFull === true) return undefined;
    return { windowMs: roundWindow(binding.windowMs), share: this.#marginOf(binding).share };
  }

  /**
   * The rate the vendor allows as far as we know, times the target share, within the cap; for
   * a paced window, spread over the window and the stall allowance (#stallFactor).
   */
  #ceiling(): number {
    let c = this.#level.ratePerSecond;
    const binding = this.#binding;
    if (binding?.limit !== undefined)
      c = ((binding.limit * 1000) / roundWindow(binding.windowMs)) * this.#marginOf(binding).share;
    else if (this.#remainingOnly?.rate !== undefined) c = this.#remainingOnly.rate;
    const paced = this.#pacedWindow();
    this.#stallFactor = paced === undefined ? 1 : stallShare(paced.windowMs, this.#stallMs);
    return Math.min(c * this.#stallFactor, this.#o.maxRatePerSecond);
  }

  // The rate in force as it would be without the stall allowance: what RemainingOnlyRate weighs
  // its reads against (a throttle at a window's pace is one at 98 % of it or more; the
  // allowance is no part of that pace).
  #rateBeforeStall(): number {
    return this.#current / this.#stallFactor;
  }

  /** Applies one signal to the store. */
  observe(signal: QuotaSignal, now: number, store: LevelOps, traffic: LevelTraffic): ObserveResult {
    const { limit, remaining, resetSeconds, retryAfterMs } = signal;
    this.#stallMs = traffic.stallMs ?? 0;
    const hasRetryAfter = finite(retryAfterMs) && retryAfterMs > 0;
    const hasRemaining = finite(remaining);
    const hasReset = finite(resetSeconds);
    if (finite(limit) && limit > 0) this.#limit = limit;
    // The window read so far of the quota this answer speaks of (see quota-tiers.ts).
    const declaredMs =
      finite(signal.windowSeconds) && signal.windowSeconds > 0 ? signal.windowSeconds * 1000 : undefined;
    const tier = tierOf(this.#tiers, this.#limit, declaredMs);
    const key = tier.key;
    this.#windowMs = tier.windowMs;
    this.#windowDeclared = tier.declared;
    const resetMs = hasReset ? resetSeconds * 1000 : undefined;
    // Is the vendor's reset the time until one more fits? That measures no window (nextFitAfter).
    this.#nextFit = nextFitAfter({
      ...this.#nextFit,
      windowMs: this.#windowMs,
      declared: this.#windowDeclared || finite(signal.windowSeconds),
      throttled: signal.throttled === true,
      limit: this.#limit,
      remaining: hasRemaining ? remaining : undefined,
      resetMs,
    });
    const nextFit = this.#nextFit.latched;
    // The window the vendor declares, or else the longest reset (see windowAfter).
    const hadWindow = this.#windowMs > 0;
    ({ windowMs: this.#windowMs, declared: this.#windowDeclared } = windowAfter({
      windowMs: this.#windowMs,
      declared: this.#windowDeclared,
      declaredMs: finite(signal.windowSeconds) ? signal.windowSeconds * 1000 : undefined,
      resetMs: nextFit ? undefined : resetMs,
      maxPauseMs: this.#o.maxPauseMs,
    }));
    this.#tiers = tiersAfter(this.#tiers, {
      limit: this.#limit,
      key,
      windowMs: this.#windowMs,
      declared: this.#windowDeclared,
      seenAt: now,
    });
    // An answer with room from a gateway that reports the quota with the least left: no quota of a
    // smaller Limit is in force.
    if (hasRemaining && signal.throttled !== true && declaredMs === undefined)
      this.#tiers = tiersAfterRemaining(this.#tiers, key, remaining);
    // Every other quota the vendor declares with this answer (Kong's units), and none it leaves out.
    if (signal.quotas !== undefined && signal.quotas.length > 0)
      this.#tiers = tiersWithDeclared(this.#tiers, signal.quotas, this.#limit, now, this.#o.maxPauseMs);
    for (const k of this.#perTier.keys()) if (!this.#tiers.some((t) => t.key === k)) this.#perTier.delete(k);
    this.#binding = bindingTier(this.#tiers, now);
    // A window read at last: what was read from Remaining before it (answers whose reset said
    // "now") says no more; a vendor without a Limit would keep its rate as the ceiling for good.
    if (!hadWindow && this.#windowMs > 0 && this.#remainingOnly !== undefined) {
      // (Only a hold in force is for the store to hear of: an adjustment is a round trip to Redis.)
      if (this.#holdFrom !== undefined) store.adjust(this.#level, this.#endHold(now), now);
      this.#remainingOnly = undefined;
    }
    // With a declared window, the phase of a fixed window's resets sharpens a coarse one.
    let phaseResetMs = resetMs;
    if (resetMs !== undefined && this.#windowDeclared) {
      // Each tier's own (a reset of another tier's window says nothing of this one's phase).
      const phase = this.#tierState(key);
      if (windowBegan(phase.lastResetMs, resetMs, this.#windowMs))
        phase.beganAt = phaseAfter(phase.beganAt, now, this.#windowMs);
      phase.lastResetMs = resetMs;
      phaseResetMs = resetByPhase({ resetMs, now, windowMs: this.#windowMs, beganAt: phase.beganAt });
    }
    if (resetMs !== undefined && !nextFit && finite(signal.roundTripMs))
      this.#windowEnd.add(now, resetMs, signal.roundTripMs);
    // A refusal of a request admitted after a pause at 0 ended at `due`: was it early (WindowEnd)?
    if (signal.throttled === true && finite(signal.roundTripMs)) {
      this.#windowEnd.refused(now - signal.roundTripMs);
      // A refusal of a request admitted while an answer set aside as from an ended window
      // (coarseResetEnded) said nothing was left: that window was in force, and this vendor
      // counts later than on arrival. Such answers are taken at their word from then on.
      const sent = now - signal.roundTripMs;
      if (sent >= this.#setAside.from && sent < this.#setAside.until) this.#coarseTrusted = false;
    }
    this.#learnMargin(signal.throttled === true, now);
    let pauseFor: number | undefined;
    if (hasRemaining) {
      // Requests in flight will spend what the vendor says is left: no whole token beyond that.
      // The token being refilled keeps its progress: cutting it would push the pace back on
      // every answer.
      const held = store.snapshot(this.#level, now).tokens;
      // A fixed window whose answers agree on where it ends (WindowEnd): an answer from a window
      // that has surely ended says nothing of now; one from the window in force is exact, less
      // what went after it. Otherwise the requests in flight, which counts those that went
      // before it twice (a bucket or a log frees some meanwhile, and that evens it out).
      const window = this.#answeredWindow(now, resetMs, signal.roundTripMs);
      const stale = window !== undefined && now >= window.high;
      const ahead =
        (window === undefined ? undefined : this.#sentAfter(signal, now, traffic)) ?? traffic.inFlight;
      // A reset in whole seconds that the phase of a declared window did not place, from a
      // window that has surely ended (coarseResetEnded): no pause at 0, no budget until it.
      const ended =
        this.#coarseTrusted &&
        resetMs !== undefined &&
        finite(signal.roundTripMs) &&
        phaseResetMs === resetMs &&
        coarseResetEnded({ resetMs, roundTripMs: signal.roundTripMs });
      // Where such an answer would have paused at 0, it is watched: a refusal there says it was
      // the window in force after all.
      if (ended && signal.throttled !== true && this.#nothingLeftBefore(remaining, ahead, resetMs))
        this.#setAside = { from: now, until: now + resetMs };
      const budget = stale ? Number.POSITIVE_INFINITY : Math.max(0, Math.floor(remaining - ahead));
      if (held > budget) store.adjust(this.#level, { capTokens: budget + (held - Math.floor(held)) }, now);
      if (signal.throttled === true) {
        // Nothing left and refused: nothing until the reset.
        if (remaining === 0 && resetMs !== undefined && resetMs > 0) pauseFor = resetMs;
      } else if (!stale && ended) this.#readZeroCheck(remaining, now, traffic.admitted);
      else if (!stale && this.#zeroIsFull(remaining, ahead, now, resetMs, traffic.admitted)) {
        const forMs = phaseResetMs === undefined ? undefined : this.#bounded(now, phaseResetMs, window);
        // Of a vendor with more than one quota: nothing until the reset, as a budget that an
        // answer of another quota with room lifts (below); a pause cannot be cut short.
        if (forMs !== undefined && this.#tiers.length > 1) {
          store.adjust(this.#level, { budget: { count: 0, until: now + forMs } }, now);
          this.#budgetBy = { key, until: now + forMs };
        } else pauseFor = forMs;
      } else if (
        !stale &&
        this.#zeroFull !== false &&
        phaseResetMs !== undefined &&
        phaseResetMs > 0 &&
        phaseResetMs < 0.5 * roundWindow(this.#windowMs)
      ) {
        // A reset that may be the first to free anything (a fixed window's): what is left once
        // the requests in flight land is all that goes before it.
        const until = now + this.#bounded(now, phaseResetMs, window);
        store.adjust(this.#level, { budget: { count: Math.floor(remaining - ahead), until } }, now);
        this.#budgetBy = { key, until };
      } else if (!stale && this.#budgetBy !== undefined && this.#budgetBy.key !== key) {
        // Another of the vendor's quotas reports now, with room (a gateway reports the one with
        // least left): the one whose budget is in force has at least as much left, its window
        // over. What this answer leaves is all that goes until that budget's end.
        if (now < this.#budgetBy.until)
          store.adjust(
            this.#level,
            { budget: { count: Math.floor(remaining - ahead), until: this.#budgetBy.until } },
            now,
          );
        this.#budgetBy = undefined;
      }
      // Read as a level only from answers that went through: a throttle's 0 is no average. Where
      // no reset says a window: none said, or one that says "now" (nextFitAfter).
      const noWindowSaid = resetMs === undefined || nextFit || resetMs < MIN_RESET_WINDOW_MS;
      if (noWindowSaid && signal.throttled !== true && this.#windowMs === 0) {
        this.#remainingOnly ??= new RemainingOnlyRate(this.#minRate, this.#o.targetShare);
        const sent = this.#sentWhen(signal, now, traffic);
        this.#remainingOnly.answer(
          now,
          remaining,
          this.#limit,
          traffic.admitted,
          traffic.admitted - traffic.inFlight - this.#throttles,
          this.#rateBeforeStall(),
          this.#pausedTill + 1000,
          sent,
        );
        // Less the requests sent after the answered one, where its round trip says which: an
        // answer back late says what was left before them (taken against what is in flight now,
        // one back 200 ms late lifted a hold with 3 left of a spent window).
        if (!stale && sent !== undefined)
          this.#holdIfSpent(remaining, sent.upTo, traffic.admitted, now, store);
      }
    }
    if (hasRetryAfter) pauseFor = Math.max(pauseFor ?? 0, retryAfterMs);
    // A request that went through: a Remaining-only vendor was not spent when it came.
    if (signal.throttled !== true && finite(signal.roundTripMs))
      this.#remainingOnly?.accepted(now - signal.roundTripMs);
    if (signal.throttled === true) {
      this.#throttles++;
      // A throttle that says nothing of the quota (at most a Retry-After): multiplicative
      // decrease, then back up. In `hold` mode, one cut a second: the requests in flight when
      // the vendor's limit was reached are throttled together, and that is one event.
      const quiet = !hasReset && this.#windowMs === 0 && this.#remainingOnly === undefined;
      const hold = this.#o.mode === 'hold';
      // Answers that went through so far (a bare vendor says nothing on those).
      const wentThrough = traffic.admitted - traffic.inFlight - this.#throttles;
      let cut = hold && quiet && now - this.#throttleAt >= 1000;
      if (hold && quiet && !hasRetryAfter && !hasRemaining) {
        const step = bareThrottle({
          sinceCutMs: now - this.#throttleAt,
          wentThroughSinceCut: wentThrough - this.#wentThroughAtCut,
          paused: now < this.#pausedTill,
          walls: this.#walls,
          maxPauseMs: this.#o.maxPauseMs,
          wallsSeen: this.#wallsSeen,
          refusedSentSinceCut: this.#throttles - this.#throttlesAtCut - this.#inFlightAtCut,
          climbing: now - this.#throttleAt < this.#climbMs,
          throttledSinceCut: this.#throttles - this.#throttlesAtCut - 1,
        });
        cut = step.kind === 'cut';
        if (step.kind === 'wall') {
          this.#walls++;
          this.#wallsSeen = true;
          pauseFor = step.pauseMs;
          this.#wallProbe = true;
        }
      }
      if ((pauseFor === undefined && !hold) || cut) {
        this.#wentThroughAtCut = wentThrough;
        this.#throttlesAtCut = this.#throttles;
        this.#inFlightAtCut = traffic.inFlight;
        this.#walls = 0;
        if (hold) {
          // Paused again before the last climb was over: the climb failed, and the rate the
          // vendor refused is the one in force (the climb starts a cut below it).
          const pausedAgain = hasRetryAfter && now - this.#throttleAt < this.#o.recoverMs + 1000;
          const measured = this.#throttledRate(now, traffic.admitted);
          this.#pausedAgainInRow = pausedAgain ? this.#pausedAgainInRow + 1 : 0;
          ({
            wMax: this.#wMax,
            cut: this.#cut,
            climbMs: this.#climbMs,
          } = throttleCut({
            refused: pausedAgain ? this.#current : measured,
            pausedAgain,
            pausedAgainInRow: this.#pausedAgainInRow,
            beta: this.#o.beta,
            minRate: this.#minRate,
            recoverMs: this.#o.recoverMs,
            holdMs: this.#o.holdMs,
          }));
        } else {
          this.#wMax = this.#current;
          this.#cut = Math.max(this.#minRate, this.#wMax * this.#o.beta);
        }
        this.#k = Math.cbrt((this.#wMax * (1 - this.#o.beta)) / this.#o.scale);
        this.#throttleAt = now;
        this.#recovering = true;
      }
      // What we read from Remaining alone sent too much; where the request refused was one of
      // ours the admission log still holds, its Retry-After says where the window ends.
      const ro = this.#remainingOnly;
      if (ro !== undefined) {
        const sent = this.#sentWhen(signal, now, traffic);
        ro.throttled(
          now,
          this.#rateBeforeStall(),
          this.#pausedTill + 1000,
          traffic.inFlight,
          finite(signal.roundTripMs) ? now - signal.roundTripMs : undefined,
          hasRetryAfter ? { ...(sent === undefined ? {} : { upTo: sent.upTo }), retryAfterMs } : undefined,
        );
      }
    }
    let pausedUntil: number | undefined;
    if (pauseFor !== undefined) {
      pausedUntil = now + Math.min(pauseFor, this.#o.maxPauseMs);
      this.#pausedMs += Math.max(0, pausedUntil - Math.max(now, this.#pausedTill));
      this.#pausedTill = Math.max(this.#pausedTill, pausedUntil);
      // A pause gives nothing back when it ends but one request: what the vendor freed meanwhile
      // is unknown (a reset may free one request or all), so its answer says.
      // The token being refilled keeps its progress: a short pause (a fixed window's last
      // few milliseconds) then costs no extra interval.
      const held = store.snapshot(this.#level, now).tokens;
      // A pause ends a hold at nothing left (its probe was refused, or another in flight was).
      store.adjust(
        this.#level,
        { pauseUntil: pausedUntil, capTokens: held - Math.floor(held), ...this.#endHold(now) },
        now,
      );
      this.#probeAt = Math.max(pausedUntil, this.#probeAt === Number.POSITIVE_INFINITY ? 0 : this.#probeAt);
    }
    const change = this.#apply(now, store, hasRemaining || hasReset ? 'quota' : 'throttle');
    const slower = pausedUntil !== undefined || (change !== undefined && change.to < change.from);
    return {
      slower,
      ...(change ? { change } : {}),
      ...(pausedUntil === undefined ? {} : { pausedUntil }),
    };
  }

  // A throttle at a steady pace under the vendor's advertised rate widens the margin under it;
  // a long stretch without a throttle narrows it again (see jitterMargin, steadyThrottle).
  #learnMargin(throttled: boolean, now: number): void {
    const binding = this.#binding;
    if (binding?.limit === undefined) return;
    const windowMs = roundWindow(binding.windowMs);
    const vendorRate = (binding.limit * 1000) / windowMs;
    // The pace is steady from the later of: the vendor's rate as read now, a climb's end (and a
    // window after a pause's end: steadyThrottle).
    if (vendorRate !== this.#steadyRate) {
      this.#steadyRate = vendorRate;
      this.#steadySince = now;
    }
    if (this.#recovering) this.#steadySince = now;
    const throttledUnder = steadyThrottle({
      throttled,
      now,
      windowMs,
      steadySince: this.#steadySince,
      pausedTill: this.#pausedTill,
      lastAt: this.#marginOf(binding).lastAt,
      ratePerSecond: this.#current,
      underPerSecond: vendorRate * this.#o.targetShare,
    });
    this.#marginOf(binding).step(now, throttled, throttledUnder);
  }

  // A vendor that says Limit and Remaining only, whose Remaining less the requests admitted after
  // the answered one (`left`) is spent while it frees nothing (RemainingOnlyRate.freesNothing: a
  // fixed window or an expiring counter before its reset, a log just after a burst; its window
  // not yet read): one request goes, and nothing more until its answer. Any answer with room, or
  // the probe's showing the vendor's level up by two or more (it freed something), lifts the
  // hold; the probe accepted with the level where it was (it took what was left: the count of what
  // went after an answer errs by one) lets one more go; refused, its Retry-After pauses until the
  // reset. Without it, the bucket's refill went on sending at the rate in force until the first
  // refusal came back: a held-out fixed window of 100 per 10 s (p50 120 ms, p99 600 ms) refused 3
  // at each window's end (0.59 % throttled). Held a second instead, then one request a second, a
  // 1 s log of 5 spent by a burst at start-up was sent 3/s for 18 s (99.0 -> 92.3 %).
  // `upTo`: the answered request's place among the level's admissions (its round trip says it:
  // the requests admitted after it are not in its Remaining); `admitted`: admissions so far.
  #holdIfSpent(remaining: number, upTo: number, admitted: number, now: number, store: LevelOps): void {
    const left = remaining - (admitted - upTo);
    const level = upTo + remaining;
    const from = this.#holdFrom;
    if (from !== undefined) {
      if (left < 1 && upTo <= from) return;
      // The probe took what was left and the vendor freed nothing (within a request: the count
      // of what went after an answer, and so its place, errs by one): another one goes.
      if (left < 1 && level <= this.#holdLevel + 1) this.#holdOne(admitted, now, store);
      else store.adjust(this.#level, this.#endHold(now), now);
      return;
    }
    const ro = this.#remainingOnly;
    if (left >= 1 || ro === undefined || ro.windowMs !== undefined || now < this.#pausedTill) return;
    if (!ro.freesNothing(this.#pausedTill + 1000, this.#rateBeforeStall())) return;
    this.#holdLevel = level;
    this.#holdOne(admitted, now, store);
  }

  // One request may go until its answer (10 s at most): the hold at nothing left, from `admitted`.
  #holdOne(admitted: number, now: number, store: LevelOps): void {
    store.adjust(this.#level, { budget: { count: 1, until: now + HOLD_MAX_MS } }, now);
    this.#holdFrom = admitted;
    this.#remainingOnly?.held(now);
  }

  // Ends a hold at nothing left, if one is in force: the adjustment that lifts its budget (none
  // otherwise), and no drain is read across it (RemainingOnlyRate.held).
  #endHold(now: number): { budget?: { count: number; until: number } } {
    if (this.#holdFrom === undefined) return {};
    this.#holdFrom = undefined;
    this.#remainingOnly?.held(now);
    return { budget: { count: 0, until: now } };
  }

  // Does `Remaining: 0` on an answer that went through mean nothing more until the reset? In
  // a fixed window, yes, and its reset gives the quota back; a sliding log frees one request
  // there, and a sliding counter still admits at 0 (its reset is the end of its fixed window).
  // So the first 0 pauses until its reset, and the first answer after it says which: the quota
  // back (pause at 0 from now on), or not (the pace alone will do). A reset about a whole
  // window away says nothing of the kind (a bucket's time to full, a coarse IETF `t` of 1 on a
  // 1 s window): no pause.
  #zeroIsFull(
    remaining: number,
    inFlight: number,
    now: number,
    resetMs: number | undefined,
    admitted: number,
  ): boolean {
    this.#readZeroCheck(remaining, now, admitted);
    if (!this.#nothingLeftBefore(remaining, inFlight, resetMs)) return false;
    if (this.#zeroFull === undefined) {
      // A check already due reads after this pause too (each is a pause of its own: it does not
      // void the other's evidence).
      const due = this.#zeroCheckAt !== Number.POSITIVE_INFINITY;
      if (!due) this.#zeroCheckAdmitted = admitted;
      this.#zeroCheckAt = due ? Math.max(this.#zeroCheckAt, now + resetMs) : now + resetMs;
    }
    return true;
  }

  // Nothing left once the requests in flight land, before a reset under half a window away, at a
  // vendor not known to free anything before its reset: a pause at 0 until it (#zeroIsFull), or
  // the watch on an answer set aside instead (coarseResetEnded).
  #nothingLeftBefore(remaining: number, inFlight: number, resetMs: number | undefined): resetMs is number {
    return (
      remaining - inFlight <= 0 &&
      resetMs !== undefined &&
      resetMs > 0 &&
      this.#zeroFull !== false &&
      resetMs < 0.5 * roundWindow(this.#windowMs)
    );
  }

  // The answer after a check pause at 0 (see #zeroIsFull) says whether the quota came back. Read
  // on every answer that went through and is not from a window WindowEnd's bounds say has ended,
  // also one whose pause at 0 is set aside (coarseResetEnded):
  // which answer reads it decides what is learned, and a review showed that reading it later, on
  // a fresh answer, turned 2 s fixed windows with IETF `t` into ones paused at every 0 until a
  // coarse reset (78.7 -> 74.8 %, 12 seeds).
  #readZeroCheck(remaining: number, now: number, admitted: number): void {
    const limit = this.#limit;
    if (now >= this.#zeroCheckAt && limit !== undefined) {
      // The quota back: the limit less what went since (and a request or two of slack). Twice,
      // to be sure: a sliding log that took a burst at once frees it at once too, once. Not
      // when another pause ran past the reset (a throttle's Retry-After of a window): any
      // window empties while nothing is sent, and a sliding log of 20/s at p50 300 ms was taken
      // for a fixed window so, then paused at every Remaining 0 (held-out zoo seed 3: 76.9 %).
      // (Such an answer is no evidence either way: the next 0 asks again.)
      const evidence = this.#pausedTill <= this.#zeroCheckAt + ZERO_CHECK_SLACK_MS;
      if (evidence && remaining >= limit - (admitted - this.#zeroCheckAdmitted) - 2) {
        if (++this.#zeroBack >= 2) this.#zeroFull = true;
      } else if (evidence) this.#zeroFull = false;
      this.#zeroCheckAt = Number.POSITIVE_INFINITY;
    }
  }

  // The window an answer was counted in, for a vendor known to be a fixed window whose answers
  // agree on where its windows end (WindowEnd): it ended after `low` and by `high`, and a
  // request sent at `due` reaches the vendor after that.
  #answeredWindow(
    now: number,
    resetMs: number | undefined,
    roundTripMs: number | undefined,
  ): { readonly low: number; readonly high: number; readonly due: number } | undefined {
    if (resetMs === undefined || !finite(roundTripMs) || this.#zeroFull !== true || this.#windowMs <= 0)
      return undefined;
    return this.#windowEnd.bounds(now, resetMs, roundTripMs, roundWindow(this.#windowMs));
  }

  // Requests admitted after the one an answer belongs to, when its round trip says when that
  // one was admitted (AdmissionLog). The caller reads its clock a little after the limiter
  // admitted (its await, then the answer's classification), so admissions from a few ms before
  // count too, and so do those of the same pass (they went together): this errs by counting a
  // request twice, never by leaving one out. Less the answered one itself.
  #sentAfter(signal: QuotaSignal, now: number, traffic: LevelTraffic): number | undefined {
    const rtt = signal.roundTripMs;
    const since = finite(rtt) ? traffic.admittedSince?.(now - rtt - ADMITTED_SLACK_MS) : undefined;
    return since === undefined ? undefined : Math.max(0, since - 1);
  }

  // When the answered request was sent, and how many were admitted up to it, itself included,
  // where its round trip says (RemainingOnlyRate reads a bucket's drain from these).
  #sentWhen(signal: QuotaSignal, now: number, traffic: LevelTraffic): SentWhen | undefined {
    const after = this.#sentAfter(signal, now, traffic);
    if (after === undefined || !finite(signal.roundTripMs)) return undefined;
    return { at: now - signal.roundTripMs, upTo: traffic.admitted - after };
  }

  // A `Remaining: 0` pause of a vendor known to be a fixed window, or a budget until its reset,
  // ends when a request sent then reaches the vendor after its window ended, as the answers
  // tell (WindowEnd's `due`), when that is before this answer's guess; the check pause that
  // tells a fixed window keeps the guess.
  #bounded(
    now: number,
    resetMs: number,
    window: { readonly due: number; readonly high: number } | undefined,
  ): number {
    if (window === undefined) return resetMs;
    if (window.due - now < resetMs) this.#windowEnd.ended(window.due, window.high);
    return Math.max(0, Math.min(resetMs, window.due - now));
  }

  // The rate the vendor refused: the rate in force, or what it accepted since the last cut
  // (admissions less throttles, outside pauses) when that is less, within one cut of it.
  #throttledRate(now: number, admitted: number): number {
    const since = this.#cutSample;
    this.#cutSample = { at: now, admitted, throttles: this.#throttles, pausedMs: this.#pausedMs };
    const current = this.#current;
    if (since === undefined) return current;
    const sending = now - since.at - (this.#pausedMs - since.pausedMs);
    const throttles = this.#throttles - since.throttles;
    const accepted = sending < 1000 ? undefined : ((admitted - since.admitted - throttles) * 1000) / sending;
    // Throttled again before the last cut was made up: that cut was not enough. The vendor
    // accepts at least what it accepted meanwhile, and less than the rate in force.
    if (now - this.#throttleAt < this.#o.recoverMs + 1000)
      return Math.min(current, Math.max(accepted ?? 0, current * this.#o.beta));
    // Only a stretch with throttles all along says what the vendor accepts; one throttle at
    // its end says the rate in force was just too much.
    if (accepted === undefined || throttles < 3) return current;
    return Math.min(current, Math.max(accepted, current * this.#o.beta));
  }

  /** Recomputes a recovering rate, or ends a capped pause with a probe, when due. */
  tick(now: number, store: LevelOps): RateChange | undefined {
    if (now >= this.#probeAt) {
      // The pause ended: one request asks the vendor; its answer decides what follows.
      const at = this.#probeAt;
      this.#probeAt = Number.POSITIVE_INFINITY;
      // After a wall, nothing else goes until the probe's answer is likely in: if the wall
      // stands, that answer is the one throttle the probe costs.
      const alone = this.#wallProbe ? { budget: { count: 1, until: at + PROBE_ALONE_MS } } : {};
      this.#wallProbe = false;
      store.adjust(this.#level, { capTokens: 1, ...alone }, Math.min(now, at));
    }
    if (now < this.#nextRecompute) return undefined;
    return this.#apply(now, store, 'recover');
  }

  // `hold` mode, ms after the cut: back to just under the throttled rate, stay, then probe.
  #hold(ms: number): number {
    const under = this.#wMax * this.#o.targetShare;
    const recoverMs = this.#climbMs;
    const { holdMs } = this.#o;
    if (ms < recoverMs) return this.#cut + ((under - this.#cut) * ms) / recoverMs;
    if (ms < recoverMs + holdMs) return under;
    return under * (1 + (ms - recoverMs - holdMs) / 100_000);
  }

  #apply(now: number, store: LevelOps, reason: AdaptReason): RateChange | undefined {
    const ceiling = this.#ceiling();
    let rate = ceiling;
    if (this.#recovering) {
      const t = (now - this.#throttleAt) / 1000;
      const probe =
        this.#o.mode === 'hold'
          ? this.#hold(t * 1000)
          : this.#o.mode === 'cubic'
            ? this.#o.scale * (t - this.#k) ** 3 + this.#wMax
            : this.#cut + (this.#o.increasePerSecond ?? this.#level.ratePerSecond / 10) * t;
      const recovered = Math.max(this.#cut, probe);
      if (recovered >= ceiling) this.#recovering = false;
      else rate = recovered;
    }
    rate = Math.max(Math.min(this.#minRate, ceiling), rate);
    this.#nextRecompute = this.#recovering ? now + this.#o.recomputeEveryMs : Number.POSITIVE_INFINITY;
    if (rate === this.#current) return undefined;
    const from = this.#current;
    this.#current = rate;
    store.adjust(this.#level, { ratePerSecond: rate }, now);
    return { level: this.#level.id, from, to: rate, reason };
  }
}
