import { type Clock, systemClock, type TimerHandle } from './clock.js';
import { BrokenCircuitError, InvalidBreakerOptionError, PermitSettledError } from './errors.js';
import {
  createPolicy,
  type FailurePolicy,
  type FailurePolicyOptions,
  type PolicyState,
  validatePolicy,
} from './policies.js';
import type { BreakerEvent, BreakerListener, BreakerState, CallOutcome, TransitionReason } from './state.js';
import { nonNegative, positive, positiveInt } from './validate.js';

/** How long the breaker stays open: fixed, or growing across repeated trips. */
export type OpenDurationOptions =
  | number
  | {
      /** Open duration of the first trip. */
      readonly initialMs: number;
      /** The longest open duration. */
      readonly maxMs: number;
      /** Growth per repeated trip. @default 2 */
      readonly multiplier?: number;
      /** Share of the duration taken off at random (from the injected `random`), in [0, 1]. @default 0.2 */
      readonly jitter?: number;
    };

export interface HealthProbeOptions {
  /**
   * A synthetic call (an E1 eligibility check, say) sent in half-open instead of a live claim.
   * Resolving is a success; rejecting, or resolving `false`, a failure.
   */
  readonly run: (signal: AbortSignal) => Promise<unknown>;
  /** A probe that has not answered by then is a failure. @default 5000 */
  readonly timeoutMs?: number;
}

export interface CircuitBreakerOptions {
  /** When a closed breaker opens. @default { kind: 'consecutive', threshold: 5 } */
  readonly policy?: FailurePolicyOptions;
  /** @default 10_000 */
  readonly openDuration?: OpenDurationOptions;
  /** Calls admitted at once in half-open. @default 1 */
  readonly maxProbes?: number;
  /** Probe successes that close the breaker. @default 1 */
  readonly successesToClose?: number;
  /** With a health probe, half-open admits no live call: the probe decides. */
  readonly healthProbe?: HealthProbeOptions;
  /**
   * How `execute` judges an error. @default aborts (`AbortError`, `TimeoutError`) are `ignore`,
   * anything else `failure`
   */
  readonly classifyError?: (error: unknown) => CallOutcome;
  /**
   * How `execute` judges what `fn` resolved with: a `fetch` resolves on a 503, and only this
   * makes it count (`(res) => res.status >= 500 ? 'failure' : 'success'`, or
   * `@rxgate/classifier`'s `breakerOutcomeOf`). A throw from it counts as `failure`.
   * @default every resolution is a success
   */
  readonly classifyResult?: (result: unknown) => CallOutcome;
  /** @default systemClock */
  readonly clock?: Clock;
  /** Random source in [0, 1) for the open-duration jitter. @default Math.random */
  readonly random?: () => number;
  /** State to start from, as `toJSON()` gave it (after a restart). */
  readonly initialState?: BreakerSnapshot;
  readonly onEvent?: BreakerListener;
}

/** What `toJSON()` gives and `initialState` takes. Half-open persists as open-until-now (probes restart). */
export interface BreakerSnapshot {
  readonly state: 'closed' | 'open' | 'isolated';
  /** Until when an open breaker stays open, on the breaker's clock. */
  readonly openUntil: number;
  /** Trips in a row without a clean close (drives the growing open duration). */
  readonly trips: number;
  /** Holds of `isolate()` not yet released. */
  readonly isolations: number;
  readonly policy: PolicyState;
}

/** A refusal by `tryAcquire`. */
export interface Rejection {
  readonly kind: 'rejected';
  readonly state: BreakerState;
  /** Milliseconds until a probe may be admitted: 0 when a half-open slot may free any moment, Infinity while isolated. */
  readonly retryAfterMs: number;
}

/**
 * One admitted call. Settle it exactly once with the outcome the caller judged: `success()`,
 * `failure()`, or `ignore()` (a 429 is not the vendor failing). A second settle throws.
 */
export class Permit {
  readonly kind = 'permit' as const;
  /** @internal */ settled = false;
  /** @internal */
  constructor(
    readonly breaker: CircuitBreaker,
    /** @internal */ readonly generation: number,
    /** @internal */ readonly startedAt: number,
    /** True when this call is a half-open probe. */
    readonly probe: boolean,
  ) {}
  success(): void {
    this.breaker.settle(this, 'success');
  }
  failure(): void {
    this.breaker.settle(this, 'failure');
  }
  ignore(): void {
    this.breaker.settle(this, 'ignore');
  }
  /** Settles with an outcome given as a value (a classifier verdict's `breaker`). */
  settle(outcome: CallOutcome): void {
    this.breaker.settle(this, outcome);
  }
}

const defaultClassify = (error: unknown): CallOutcome =>
  error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError')
    ? 'ignore'
    : 'failure';

interface ResolvedOpen {
  readonly initialMs: number;
  readonly maxMs: number;
  readonly multiplier: number;
  readonly jitter: number;
}

/**
 * A circuit breaker: closed, open, half-open, isolated. Half-open admits at most `maxProbes`
 * at once and closes after `successesToClose` successes; any probe failure re-opens. Every
 * permit carries the generation of the state that issued it, so a call that finishes after
 * the state moved on (a late success after a re-open) changes nothing.
 */
export class CircuitBreaker {
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #policy: FailurePolicy;
  readonly #open: ResolvedOpen;
  readonly #maxProbes: number;
  readonly #successesToClose: number;
  readonly #health: HealthProbeOptions | undefined;
  readonly #healthTimeoutMs: number;
  readonly #classify: (error: unknown) => CallOutcome;
  readonly #classifyResult: ((result: unknown) => CallOutcome) | undefined;
  readonly #listeners: BreakerListener[] = [];
  #state: BreakerState = 'closed';
  #generation = 0;
  #openUntil = 0;
  #trips = 0;
  #probesInFlight = 0;
  #probeSuccesses = 0;
  #isolations = 0;
  #isolationEpoch = 0;
  #timer: TimerHandle | undefined;

  constructor(options: CircuitBreakerOptions = {}) {
    if (typeof options !== 'object' || options === null)
      throw new InvalidBreakerOptionError('options', 'must be an object');
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#policy = createPolicy(validatePolicy(options.policy ?? { kind: 'consecutive', threshold: 5 }));
    this.#open = resolveOpen(options.openDuration ?? 10_000);
    this.#maxProbes = options.maxProbes === undefined ? 1 : positiveInt('maxProbes', options.maxProbes);
    this.#successesToClose =
      options.successesToClose === undefined ? 1 : positiveInt('successesToClose', options.successesToClose);
    this.#health = options.healthProbe;
    if (this.#health !== undefined && typeof this.#health.run !== 'function') {
      throw new InvalidBreakerOptionError('healthProbe.run', 'must be a function');
    }
    this.#healthTimeoutMs =
      this.#health?.timeoutMs === undefined
        ? 5000
        : positive('healthProbe.timeoutMs', this.#health.timeoutMs);
    this.#classify = options.classifyError ?? defaultClassify;
    if (options.classifyResult !== undefined && typeof options.classifyResult !== 'function')
      throw new InvalidBreakerOptionError('classifyResult', 'must be a function');
    this.#classifyResult = options.classifyResult;
    if (options.onEvent) this.#listeners.push(options.onEvent);
    if (options.initialState) this.#restore(options.initialState);
  }

  /** The state now (an open breaker whose duration has passed reports, and becomes, half-open). */
  get state(): BreakerState {
    if (this.#state === 'open' && this.#clock.now() >= this.#openUntil) this.#toHalfOpen();
    return this.#state;
  }

  /** Half-open probes in flight. */
  get probesInFlight(): number {
    return this.#probesInFlight;
  }

  /** Milliseconds until an open breaker admits a probe (0 when not open). */
  get retryAfterMs(): number {
    if (this.#state === 'isolated') return Number.POSITIVE_INFINITY;
    if (this.#state !== 'open') return 0;
    return Math.max(0, this.#openUntil - this.#clock.now());
  }

  on(listener: BreakerListener): () => void {
    this.#listeners.push(listener);
    return () => {
      const i = this.#listeners.indexOf(listener);
      if (i >= 0) this.#listeners.splice(i, 1);
    };
  }

  /** A permit for one call, or a rejection with the time until the next probe. Never waits. */
  tryAcquire(): Permit | Rejection {
    switch (this.#state) {
      case 'closed':
        return new Permit(this, this.#generation, this.#policy.needsClock ? this.#clock.now() : 0, false);
      case 'open': {
        const now = this.#clock.now();
        if (now < this.#openUntil) return this.#reject(this.#openUntil - now);
        this.#toHalfOpen();
        return this.tryAcquire();
      }
      case 'half-open':
        if (this.#health !== undefined || this.#probesInFlight >= this.#maxProbes) return this.#reject(0);
        this.#probesInFlight++;
        this.#emit({ type: 'probe-started', health: false });
        return new Permit(this, this.#generation, this.#clock.now(), true);
      case 'isolated':
        return this.#reject(Number.POSITIVE_INFINITY);
    }
  }

  /**
   * Runs `fn` under the breaker. Rejects at once with `BrokenCircuitError` when refused. A
   * resolution is judged by `classifyResult` (a success without it); a rejection by `classifyError`.
   */
  execute<T>(
    fn: (signal: AbortSignal | undefined) => T | PromiseLike<T>,
    options?: { readonly signal?: AbortSignal },
  ): Promise<T> {
    const signal = options?.signal;
    if (signal?.aborted) return Promise.reject(signal.reason);
    const permit = this.tryAcquire();
    if (permit.kind === 'rejected')
      return Promise.reject(new BrokenCircuitError(permit.state, permit.retryAfterMs));
    let result: T | PromiseLike<T>;
    try {
      result = fn(signal);
    } catch (e) {
      this.settle(permit, this.#classify(e));
      return Promise.reject(e);
    }
    return Promise.resolve(result).then(
      (value) => {
        this.settle(permit, this.#judge(value));
        return value;
      },
      (error: unknown) => {
        this.settle(permit, this.#classify(error));
        throw error;
      },
    );
  }

  #judge(value: unknown): CallOutcome {
    const judge = this.#classifyResult;
    if (judge === undefined) return 'success';
    try {
      return judge(value);
    } catch {
      return 'failure';
    }
  }

  /** Holds the breaker open by hand until every hold is released (refcounted). */
  isolate(): { release(): void } {
    const epoch = this.#isolationEpoch;
    if (this.#isolations++ === 0) this.#transition('isolated', 'isolated');
    let released = false;
    return {
      release: () => {
        if (released || epoch !== this.#isolationEpoch) return;
        released = true;
        if (--this.#isolations === 0) this.#toClosed('isolation-ended');
      },
    };
  }

  /** Closes the breaker, forgetting failures, trips and isolations (earlier holds release nothing). */
  reset(): void {
    this.#isolations = 0;
    // Stryker disable next-line UpdateOperator: any change of the epoch (up or down) voids the holds of before.
    this.#isolationEpoch++;
    this.#toClosed('reset');
  }

  toJSON(): BreakerSnapshot {
    const state = this.state;
    return {
      state: state === 'half-open' ? 'open' : state,
      openUntil: state === 'half-open' ? this.#clock.now() : this.#openUntil,
      trips: this.#trips,
      isolations: this.#isolations,
      policy: this.#policy.toJSON(),
    };
  }

  /** @internal Settles a permit; use the permit's own methods. */
  settle(permit: Permit, outcome: CallOutcome): void {
    if (permit.settled) throw new PermitSettledError();
    permit.settled = true;
    if (permit.generation !== this.#generation) {
      // The state moved on while this call ran: its outcome belongs to a state that is gone.
      if (permit.probe) this.#emit({ type: 'probe-finished', health: false, outcome });
      return;
    }
    if (permit.probe) {
      this.#probesInFlight--;
      this.#emit({ type: 'probe-finished', health: false, outcome });
      if (outcome === 'ignore') return;
      const slow = this.#clock.now() - permit.startedAt > this.#policy.slowCallMs;
      this.#probeResult(outcome === 'success' && !slow, 'probe-failed');
      return;
    }
    if (outcome === 'ignore') return;
    const needsClock = this.#policy.needsClock;
    const now = needsClock ? this.#clock.now() : 0;
    if (this.#policy.record(outcome === 'failure', needsClock ? now - permit.startedAt : 0, now)) {
      this.#toOpen('failure-policy');
    }
  }

  #probeResult(ok: boolean, failReason: TransitionReason): void {
    if (!ok) {
      this.#toOpen(failReason);
      return;
    }
    if (++this.#probeSuccesses >= this.#successesToClose) this.#toClosed('probes-succeeded');
  }

  #reject(retryAfterMs: number): Rejection {
    const r: Rejection = { kind: 'rejected', state: this.#state, retryAfterMs };
    // Stryker disable next-line ConditionalExpression,EqualityOperator: emitting to no listener does nothing; the guard saves building the event.
    if (this.#listeners.length > 0) this.#emit({ type: 'rejected', state: r.state, retryAfterMs });
    return r;
  }

  #toOpen(reason: TransitionReason): void {
    this.#trips++;
    const o = this.#open;
    const grown = Math.min(o.maxMs, o.initialMs * o.multiplier ** (this.#trips - 1));
    const duration = grown * (1 - o.jitter * this.#random());
    this.#openUntil = this.#clock.now() + duration;
    this.#transition('open', reason);
    if (this.#health !== undefined) this.#armHealth(duration);
  }

  #toHalfOpen(): void {
    this.#transition('half-open', 'open-elapsed');
    if (this.#health !== undefined) this.#runHealthProbe();
  }

  #toClosed(reason: TransitionReason): void {
    this.#trips = 0;
    this.#policy.reset();
    this.#transition('closed', reason);
  }

  #transition(to: BreakerState, reason: TransitionReason): void {
    const from = this.#state;
    this.#state = to;
    // Stryker disable next-line UpdateOperator: any change of the generation (up or down) voids the permits of the state before.
    this.#generation++;
    this.#probesInFlight = 0;
    this.#probeSuccesses = 0;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#emit({ type: 'state-change', from, to, reason, at: this.#clock.now() });
  }

  #armHealth(delayMs: number): void {
    this.#timer = this.#clock.setTimer(delayMs, () => {
      this.#timer = undefined;
      if (this.#state === 'open') this.#toHalfOpen();
    });
    // A background timer: a breaker never keeps a process alive.
    this.#timer.unref?.();
  }

  #runHealthProbe(): void {
    const health = this.#health!;
    const generation = this.#generation;
    const controller = new AbortController();
    let done = false;
    const finish = (ok: boolean): void => {
      if (done) return;
      done = true;
      timeout.cancel();
      if (!ok) controller.abort();
      this.#emit({ type: 'probe-finished', health: true, outcome: ok ? 'success' : 'failure' });
      if (generation !== this.#generation || this.#state !== 'half-open') return;
      this.#probeResult(ok, 'health-probe-failed');
      // Still the same half-open: more successes are needed, send the next probe.
      if (this.#state === 'half-open' && generation === this.#generation) this.#runHealthProbe();
    };
    const timeout = this.#clock.setTimer(this.#healthTimeoutMs, () => finish(false));
    timeout.unref?.();
    this.#emit({ type: 'probe-started', health: true });
    let pending: Promise<unknown>;
    try {
      pending = Promise.resolve(health.run(controller.signal));
    } catch {
      finish(false);
      return;
    }
    pending.then(
      (v) => finish(v !== false),
      () => finish(false),
    );
  }

  #restore(s: BreakerSnapshot): void {
    if (typeof s !== 'object' || s === null || !['closed', 'open', 'isolated'].includes(s.state)) {
      throw new InvalidBreakerOptionError('initialState.state', 'must be "closed", "open" or "isolated"');
    }
    nonNegative('initialState.trips', s.trips);
    this.#policy.restore(s.policy);
    this.#trips = s.trips;
    if (s.state === 'open') {
      this.#state = 'open';
      this.#openUntil = s.openUntil;
      if (this.#health !== undefined) this.#armHealth(Math.max(0, s.openUntil - this.#clock.now()));
    } else if (s.state === 'isolated' && s.isolations > 0) {
      // Holds do not survive a restart as handles; the breaker stays isolated until reset().
      this.#state = 'isolated';
      this.#isolations = s.isolations;
    }
  }

  #emit(event: BreakerEvent): void {
    for (const l of this.#listeners) l(event);
  }
}

function resolveOpen(o: OpenDurationOptions): ResolvedOpen {
  if (typeof o === 'number') {
    positive('openDuration', o);
    return { initialMs: o, maxMs: o, multiplier: 1, jitter: 0 };
  }
  if (typeof o !== 'object' || o === null)
    throw new InvalidBreakerOptionError('openDuration', 'must be a number or an object');
  const initialMs = positive('openDuration.initialMs', o.initialMs);
  const maxMs = positive('openDuration.maxMs', o.maxMs);
  if (maxMs < initialMs) throw new InvalidBreakerOptionError('openDuration.maxMs', 'must be >= initialMs');
  const multiplier = o.multiplier === undefined ? 2 : positive('openDuration.multiplier', o.multiplier);
  if (multiplier < 1) throw new InvalidBreakerOptionError('openDuration.multiplier', 'must be >= 1');
  const jitter = o.jitter === undefined ? 0.2 : nonNegative('openDuration.jitter', o.jitter);
  if (jitter > 1) throw new InvalidBreakerOptionError('openDuration.jitter', 'must be in [0, 1]');
  return { initialMs, maxMs, multiplier, jitter };
}
