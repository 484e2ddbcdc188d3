/** One level of a limit: the account, one payer, or a lone bucket. */
export interface LevelSpec {
  /** Stable id of the level's state in the store (for example `acct` or `key:610014/ADV`). */
  readonly id: string;
  /** Configured sustained rate, tokens per second. */
  readonly ratePerSecond: number;
  /** Configured burst: the most tokens the level holds. */
  readonly burst: number;
}

/** What the store knows of one level right now. */
export interface LevelSnapshot {
  /** Tokens available now (fractional). */
  readonly tokens: number;
  /** The rate in force: the configured one, or what adaptation set. */
  readonly ratePerSecond: number;
  /** Until when the level is paused (a vendor's Retry-After); 0 when it is not. */
  readonly pausedUntil: number;
}

/** A change to a level's state that adaptation asks for. */
export interface LevelAdjustment {
  /** New rate in force; the debt already taken is kept in tokens, not in time. */
  readonly ratePerSecond?: number;
  /** Pause every take on this level until this time (kept if a later pause is already set). */
  readonly pauseUntil?: number;
  /** Hold at most this many tokens now (the vendor says fewer remain than we think). */
  readonly capTokens?: number;

  /** The vendor's window reset: the level is full again (as of the adjustment's time). */
  readonly fill?: boolean;
  /**
   * The vendor allows at most `count` more until `until` (what is left of a window that frees
   * nothing before its reset): takes beyond it wait for `until`, and a wait is predicted so.
   */
  readonly budget?: { readonly count: number; readonly until: number };
}

/**
 * Where limiter state lives. The algorithm is GCRA: each level keeps one number, its
 * theoretical arrival time (TAT), so one take is a constant-time update of a few numbers,
 * which a shared store performs as one atomic script in one round trip.
 *
 * Every operation answers with a promise, so a shared store (Redis) and the memory one are
 * driven by the same scheduler. `now` is the caller's clock: a shared store may keep time by
 * its own clock instead, so only differences to `now` carry meaning (a wait, a pause's end
 * `pauseUntil - now`); absolute times it hands back (`pausedUntil`) are on the caller's clock.
 * Operations one caller issues take effect in the order issued.
 */
export interface RateStore {
  /**
   * If every level can grant `cost` at `now` (pauses included), spend it on all of them and
   * resolve 0; otherwise spend nothing and resolve the milliseconds until all could grant it.
   */
  take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number>;
  /** Milliseconds until every level could grant `cost`, spending nothing (0 when it could now). */
  peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number>;
  /** Applies an adaptation to one level. */
  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): Promise<void>;
  /** The level's state now. */
  snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot>;
  /**
   * Drops levels that are full, unpaused and at their configured rate (equal to fresh ones);
   * resolves how many (a store that expires state on its own, as Redis does by TTL, resolves 0).
   */
  evictIdle(now: number): Promise<number>;
}

/**
 * The same operations answering at once: what the memory store offers the scheduler and the
 * adaptation, so an in-process limiter pays no promise on its hot path. Not exported from the
 * package: a store of one's own implements {@link RateStore}.
 */
export interface SyncRateStore {
  take(levels: readonly LevelSpec[], cost: number, now: number): number;
  peek(levels: readonly LevelSpec[], cost: number, now: number): number;
  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): void;
  snapshot(level: LevelSpec, now: number): LevelSnapshot;
  evictIdle(now: number): number;
}

/** What adaptation does to a level, answered at once: read it, adjust it. */
export type LevelOps = Pick<SyncRateStore, 'snapshot' | 'adjust'>;

const syncStores = new WeakMap<RateStore, SyncRateStore>();

/** The synchronous face of a store that has one (the memory store), else undefined. */
export function syncOf(store: RateStore): SyncRateStore | undefined {
  return syncStores.get(store);
}

const RESOLVED = Promise.resolve();

// A wait shorter than this is float noise from non-integral intervals, not a real wait.
const EPSILON_MS = 1e-6;

interface LevelState {
  tat: number;
  // The TAT the configured rate alone would have after the same takes: a vendor window's
  // reset gives back what it allows and never more, so the configured bound holds across it.
  ctat: number;
  intervalMs: number;
  ratePerSecond: number;
  pausedUntil: number;
  budgetCount: number;
  budgetUntil: number;
  adapted: boolean;
  evicted: boolean;
}

type Slotted = Record<symbol, LevelState | undefined>;

/**
 * The embedded default store: state in a `Map`. Every operation is done when the call
 * returns (the promise is already settled), and the scheduler calls it without a promise.
 */
export class MemoryStore implements RateStore {
  readonly #levels = new MemoryLevels();

  constructor() {
    syncStores.set(this, this.#levels);
  }

  /** How many levels hold state (idle ones are dropped by {@link evictIdle}). */
  get size(): number {
    return this.#levels.size;
  }

  take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return Promise.resolve(this.#levels.take(levels, cost, now));
  }

  peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
    return Promise.resolve(this.#levels.peek(levels, cost, now));
  }

  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): Promise<void> {
    this.#levels.adjust(level, adjustment, now);
    return RESOLVED;
  }

  snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
    return Promise.resolve(this.#levels.snapshot(level, now));
  }

  evictIdle(now: number): Promise<number> {
    return Promise.resolve(this.#levels.evictIdle(now));
  }
}

// The memory store's state and its operations, answering at once: its synchronous face.
class MemoryLevels implements SyncRateStore {
  readonly #levels = new Map<string, LevelState>();
  // Each level's state is also cached on its spec object under a symbol private to this store,
  // so the hot path reads a property instead of hashing the level id.
  readonly #slot: symbol = Symbol('rxgate.memory-store.level');

  get size(): number {
    return this.#levels.size;
  }

  take(levels: readonly LevelSpec[], cost: number, now: number): number {
    if (levels.length === 1) {
      // The common single-level path, without the second loop.
      const spec = levels[0]!;
      const s = this.#state(spec, now);
      const wait = waitOf(s, spec.burst, cost, now);
      if (wait > 0) return wait;
      s.tat = Math.max(s.tat, now) + cost * s.intervalMs;
      s.ctat = Math.max(s.ctat, now) + (cost * 1000) / spec.ratePerSecond;
      if (now < s.budgetUntil) s.budgetCount -= cost;
      return 0;
    }
    let wait = 0;
    for (const spec of levels) wait = Math.max(wait, waitOf(this.#state(spec, now), spec.burst, cost, now));
    if (wait > 0) return wait;
    for (const spec of levels) {
      const s = this.#state(spec, now);
      s.tat = Math.max(s.tat, now) + cost * s.intervalMs;
      s.ctat = Math.max(s.ctat, now) + (cost * 1000) / spec.ratePerSecond;
      if (now < s.budgetUntil) s.budgetCount -= cost;
    }
    return 0;
  }

  peek(levels: readonly LevelSpec[], cost: number, now: number): number {
    let wait = 0;
    for (const spec of levels) {
      const s = this.#levels.get(spec.id);
      const w = s ? waitOf(s, spec.burst, cost, now) : freshWait(spec, cost);
      if (w > wait) wait = w;
    }
    return wait;
  }

  adjust(level: LevelSpec, adjustment: LevelAdjustment, now: number): void {
    const s = this.#state(level, now);
    if (adjustment.ratePerSecond !== undefined && adjustment.ratePerSecond !== s.ratePerSecond) {
      const debtTokens = Math.max(0, s.tat - now) / s.intervalMs;
      s.ratePerSecond = adjustment.ratePerSecond;
      s.intervalMs = 1000 / adjustment.ratePerSecond;
      s.tat = now + debtTokens * s.intervalMs;
      s.adapted = s.ratePerSecond !== level.ratePerSecond;
    }
    if (adjustment.pauseUntil !== undefined && adjustment.pauseUntil > s.pausedUntil) {
      s.pausedUntil = adjustment.pauseUntil;
    }
    if (adjustment.fill === true) {
      // As full as the configured rate allows after the takes so far (not simply full: a take
      // just before the reset and a full burst just after it would pass burst + rate·w).
      const debtTokens = (Math.max(0, s.ctat - now) * level.ratePerSecond) / 1000;
      s.tat = Math.min(s.tat, now + debtTokens * s.intervalMs);
    }
    if (adjustment.budget !== undefined) {
      s.budgetCount = adjustment.budget.count;
      s.budgetUntil = adjustment.budget.until;
    }
    if (adjustment.capTokens !== undefined) {
      const cap = Math.max(0, Math.min(level.burst, adjustment.capTokens));
      s.tat = Math.max(s.tat, now + (level.burst - cap) * s.intervalMs);
    }
  }

  snapshot(level: LevelSpec, now: number): LevelSnapshot {
    const s = this.#levels.get(level.id);
    if (!s) return { tokens: level.burst, ratePerSecond: level.ratePerSecond, pausedUntil: 0 };
    return {
      tokens: level.burst - Math.max(0, s.tat - now) / s.intervalMs,
      ratePerSecond: s.ratePerSecond,
      pausedUntil: s.pausedUntil > now ? s.pausedUntil : 0,
    };
  }

  evictIdle(now: number): number {
    let evicted = 0;
    for (const [id, s] of this.#levels) {
      if (s.tat <= now && s.pausedUntil <= now && s.budgetUntil <= now && !s.adapted) {
        this.#levels.delete(id);
        s.evicted = true;
        evicted++;
      }
    }
    return evicted;
  }

  #state(spec: LevelSpec, now: number): LevelState {
    const cached = (spec as unknown as Slotted)[this.#slot];
    if (cached !== undefined && !cached.evicted) return cached;
    let s = this.#levels.get(spec.id);
    if (s === undefined) {
      s = {
        tat: now,
        ctat: now,
        intervalMs: 1000 / spec.ratePerSecond,
        ratePerSecond: spec.ratePerSecond,
        pausedUntil: 0,
        budgetCount: 0,
        budgetUntil: 0,
        adapted: false,
        evicted: false,
      };
      this.#levels.set(spec.id, s);
    }
    if (Object.isExtensible(spec)) (spec as unknown as Slotted)[this.#slot] = s;
    return s;
  }
}

function waitOf(s: LevelState, burst: number, cost: number, now: number): number {
  // GCRA: admit when the new TAT lies no further ahead than `burst` intervals.
  let wait = Math.max(s.tat, now) + cost * s.intervalMs - burst * s.intervalMs - now;
  if (wait < EPSILON_MS) wait = 0;
  const paused = s.pausedUntil - now;
  if (now < s.budgetUntil && s.budgetCount < cost && s.budgetUntil - now > wait) wait = s.budgetUntil - now;
  return Math.max(paused, wait);
}

function freshWait(spec: LevelSpec, cost: number): number {
  const wait = (cost - spec.burst) * (1000 / spec.ratePerSecond);
  return wait < EPSILON_MS ? 0 : wait;
}
