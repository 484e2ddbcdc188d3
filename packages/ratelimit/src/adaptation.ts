import { type LevelTraffic, RateController, type ResolvedAdaptive } from './adaptive.js';
import type { Clock } from './clock.js';
import { AsyncLevelView } from './level-view.js';
import type { QuotaSignal } from './quota-signal.js';
import type { Scheduler } from './scheduler.js';
import { type LevelOps, type LevelSpec, type RateStore, syncOf } from './store.js';

const RESOLVED = Promise.resolve();

/** Wires rate controllers to a scheduler: ticks them before each pass, applies signals, reports events. */
export class Adaptation {
  readonly #controllers = new Map<string, RateController>();
  readonly #active = new Set<RateController>();
  readonly #options: ResolvedAdaptive;
  readonly #store: RateStore;
  // What the controllers read and adjust: the memory store itself, or a view of an asynchronous one.
  readonly #ops: LevelOps;
  readonly #view: AsyncLevelView | undefined;
  readonly #clock: Clock;
  #scheduler: Scheduler | undefined;

  readonly #leasesReturn: boolean;

  /**
   * `leasesReturn`: callers get leases and release them when the answer came (createLimiter),
   * so leases can count requests in flight; a TokenBucket hands out none.
   */
  constructor(options: ResolvedAdaptive, store: RateStore, clock: Clock, leasesReturn = false) {
    this.#leasesReturn = leasesReturn;
    this.#options = options;
    this.#store = store;
    const sync = syncOf(store);
    this.#view = sync === undefined ? new AsyncLevelView(store) : undefined;
    this.#ops = sync ?? this.#view!;
    this.#clock = clock;
  }

  attach(scheduler: Scheduler): void {
    this.#scheduler = scheduler;
  }

  /** Recomputes recovering rates; called before every scheduling pass. */
  readonly beforePass = (now: number): void => {
    if (this.#active.size === 0) return;
    for (const c of this.#active) {
      const change = c.tick(now, this.#ops);
      if (!c.active) this.#active.delete(c);
      if (change) this.#pace(c);
      if (change && this.#scheduler?.hasListeners) {
        this.#scheduler.emit({
          type: 'adapted',
          level: change.level,
          fromPerSecond: change.from,
          toPerSecond: change.to,
          reason: change.reason,
        });
      }
    }
  };

  // A level whose rate is the vendor's keeps to its pace (see Pacer).
  #pace(c: RateController): void {
    this.#scheduler?.pace(c.level, c.pace);
  }

  /** The earliest time a recovering rate changes on its own; the scheduler wakes for it. */
  readonly nextChangeAt = (): number => {
    let at = Number.POSITIVE_INFINITY;
    for (const c of this.#active) if (c.nextChangeAt < at) at = c.nextChangeAt;
    return at;
  };

  /** The rate in force on a level. */
  rateOf(level: LevelSpec): number {
    this.beforePass(this.#clock.now());
    return (
      this.#controllers.get(level.id)?.ratePerSecond ??
      this.#ops.snapshot(level, this.#clock.now()).ratePerSecond
    );
  }

  /**
   * Applies a signal to a level; `traffic` reads that level's requests in flight and admissions.
   * Resolves once the store has it (at once with the memory store; never rejects).
   */
  observe(level: LevelSpec, signal: QuotaSignal, traffic: () => LevelTraffic): Promise<void> {
    const view = this.#view;
    if (view === undefined) {
      this.#observe(level, signal, traffic);
      return RESOLVED;
    }
    // An asynchronous store: read the level first, then decide at once as on the memory store.
    return this.#store.snapshot(level, this.#clock.now()).then(
      (snapshot) => {
        view.seed(level, snapshot);
        this.#observe(level, signal, traffic);
        return view.settled();
      },
      () => undefined,
    );
  }

  #observe(level: LevelSpec, signal: QuotaSignal, traffic: () => LevelTraffic): void {
    let c = this.#controllers.get(level.id);
    if (c === undefined) {
      c = new RateController(level, this.#options);
      this.#controllers.set(level.id, c);
    }
    const now = this.#clock.now();
    // From the first Remaining on, leases count what is in flight (they spend what is left).
    if (this.#leasesReturn && signal.remaining !== undefined && this.#scheduler !== undefined)
      this.#scheduler.countInFlight = true;
    // The stall allowance from the scheduler's timers (StallWatch), whoever built the traffic.
    const stallMs = this.#scheduler?.stallAllowanceMs(now) ?? 0;
    const result = c.observe(signal, now, this.#ops, { ...traffic(), stallMs });
    if (c.active) this.#active.add(c);
    const s = this.#scheduler;
    if (s === undefined) return;
    this.#pace(c);
    if (result.pausedUntil !== undefined) s.pacePaused(level, now);
    if (result.pausedUntil !== undefined && s.hasListeners)
      s.emit({ type: 'paused', level: level.id, until: result.pausedUntil });
    if (result.change && s.hasListeners) {
      const { change } = result;
      s.emit({
        type: 'adapted',
        level: change.level,
        fromPerSecond: change.from,
        toPerSecond: change.to,
        reason: change.reason,
      });
    }
    // A slower limiter may now miss deadlines it promised; a faster one may admit someone now.
    if (result.slower) s.revalidateDeadlines();
    else s.pass();
  }
}
