import type { AbortSignalLike, Clock, TimerHandle } from './clock.js';
import {
  AcquireAbortedError,
  DeadlineExceededError,
  InvalidOptionError,
  LimiterClosedError,
} from './errors.js';
import type { Lane, LimiterEvent, LimiterListener, RejectReason } from './events.js';
import { type Lease, NOOP_LEASE, RESOLVED_NOOP_LEASE, SlotLease } from './lease.js';
import type { LevelSpec, RateStore } from './store.js';
import { type Linked, WaitList } from './wait-list.js';

/** One key's limits as the scheduler sees them. */
export interface KeyLimits {
  /** The key's own rate levels (empty for none). */
  readonly levels: readonly LevelSpec[];
  /** The key's own concurrency cap (Infinity for none). */
  readonly concurrency: number;
}

export interface SchedulerConfig {
  readonly clock: Clock;
  readonly store: RateStore;
  /** The account-wide level taken together with every key's levels, if any. */
  readonly account: LevelSpec | undefined;
  /** Account-wide concurrency cap (Infinity for none). */
  readonly accountConcurrency: number;
  /** Admissions of `pos` in a row before a waiting `batch` is served. */
  readonly posPerBatch: number;
  readonly limitsFor: (key: string) => KeyLimits;
  /** Called before every scheduling pass; adaptation recomputes rates here. */
  readonly beforePass?: (now: number) => void;
  /** When adaptation next changes a rate on its own; waiters are woken then to use it. */
  readonly nextChangeAt?: () => number;
}

export interface AcquireRequest {
  readonly key: string;
  /** The key's handle, when the caller holds one (skips the lookup). */
  readonly handle?: KeyHandle;
  readonly lane: Lane;
  readonly cost: number;
  readonly deadline: number | undefined;
  readonly signal: AbortSignalLike | undefined;
}

interface Waiter extends Linked<Waiter> {
  readonly seq: number;
  readonly entry: KeyEntry;
  readonly lane: Lane;
  readonly cost: number;
  readonly enqueuedAt: number;
  readonly deadline: number;
  readonly resolve: (lease: Lease) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignalLike | undefined;
  onAbort: (() => void) | undefined;
  deadlineTimer: TimerHandle | undefined;
}

/** An opaque handle of one key's state. */
export interface KeyHandle {
  readonly key: string;
}

interface KeyEntry {
  readonly key: string;
  keyLevels: readonly LevelSpec[];
  allLevels: readonly LevelSpec[];
  concurrency: number;
  /** The largest cost any level can ever grant (the least burst). */
  maxCost: number;
  /** Held by a caller as a handle: never swept. */
  pinned: boolean;
  inFlight: number;
  /** Admissions so far (adaptation reads the rate it sends at). */
  admitted: number;
  readonly pos: WaitList<Waiter>;
  readonly batch: WaitList<Waiter>;
  posCost: number;
  batchCost: number;
}

const LANES_POS_FIRST: readonly Lane[] = ['pos', 'batch'];
const LANES_BATCH_FIRST: readonly Lane[] = ['batch', 'pos'];
const SWEEP_EVERY = 4096;

/**
 * The waiting room shared by every limiter in this package: FIFO per key and lane, `pos`
 * before `batch` with a guaranteed batch share, account and key levels taken together, one
 * timer set for the exact instant the next admission becomes possible, deadline fail-fast,
 * aborts that spend nothing.
 */
export class Scheduler {
  readonly #c: SchedulerConfig;
  readonly #entries = new Map<string, KeyEntry>();
  readonly #waitingPos = new Set<KeyEntry>();
  readonly #waitingBatch = new Set<KeyEntry>();
  readonly #listeners = new Set<LimiterListener>();
  #posCost = 0;
  #batchCost = 0;
  #waiting = 0;
  #inFlight = 0;
  #admitted = 0;
  #seq = 0;
  #posStreak = 0;
  #ops = 0;
  #timer: TimerHandle | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closed = false;
  #passing = false;

  constructor(config: SchedulerConfig) {
    this.#c = config;
  }

  get waiting(): number {
    return this.#waiting;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Admissions so far, every key together. */
  get admitted(): number {
    return this.#admitted;
  }

  /**
   * Whether leases count requests in flight even without a concurrency cap (adaptation turns
   * it on once a vendor reports Remaining: what is in flight will spend it). Off, a lease with
   * no slot to hold is a shared no-op object.
   */
  countInFlight = false;

  get closed(): boolean {
    return this.#closed;
  }

  keyState(key: string): { waiting: number; inFlight: number; admitted: number } {
    const e = this.#entries.get(key);
    return e
      ? { waiting: e.pos.size + e.batch.size, inFlight: e.inFlight, admitted: e.admitted }
      : { waiting: 0, inFlight: 0, admitted: 0 };
  }

  /** A key's limits changed (a level learned from the vendor): its entry takes them from now on. */
  relimit(key: string): void {
    const e = this.#entries.get(key);
    if (e === undefined) return;
    const limits = this.#c.limitsFor(key);
    const account = this.#c.account;
    e.keyLevels = limits.levels;
    e.allLevels = account === undefined ? limits.levels : [account, ...limits.levels];
    e.concurrency = limits.concurrency;
    e.maxCost = Math.min(Number.POSITIVE_INFINITY, ...e.allLevels.map((l) => l.burst));
  }

  on(listener: LimiterListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  emit(event: LimiterEvent): void {
    for (const l of this.#listeners) l(event);
  }

  get hasListeners(): boolean {
    return this.#listeners.size > 0;
  }

  /** Admits now or returns undefined; never queues. Waiters of the same or a higher lane go first. */
  tryAcquire(key: string, lane: Lane, cost: number): Lease | undefined {
    return this.tryAcquireEntry(this.#entry(key), lane, cost);
  }

  /** The scheduler's handle of a key, for callers that use one key on every call. */
  handle(key: string): KeyHandle {
    const e = this.#entry(key);
    e.pinned = true;
    return e;
  }

  tryAcquireEntry(handle: KeyHandle, lane: Lane, cost: number): Lease | undefined {
    if (this.#closed) return undefined;
    const entry = handle as KeyEntry;
    checkCost(entry, cost);
    checkLane(lane);
    if (!this.#mayBypass(lane)) return undefined;
    return this.#takeNow(entry, lane, cost);
  }

  acquire(req: AcquireRequest): Promise<Lease> {
    if (this.#closed) return Promise.reject(new LimiterClosedError());
    const entry = (req.handle as KeyEntry | undefined) ?? this.#entry(req.key);
    try {
      checkCost(entry, req.cost);
      checkLane(req.lane);
    } catch (e) {
      return Promise.reject(e);
    }
    if (req.signal?.aborted) return Promise.reject(new AcquireAbortedError(req.signal.reason));
    if (req.deadline !== undefined && req.deadline < this.#c.clock.now()) {
      // Admitting a claim whose budget is already spent would send it too late: refuse it.
      const predicted = this.predictWait(req.key, req.lane, req.cost, this.#c.clock.now());
      this.#emitRejected(req.key, req.lane, 'deadline', predicted);
      return Promise.reject(new DeadlineExceededError(predicted, req.deadline, 'already-past'));
    }
    if (this.#mayBypass(req.lane)) {
      const lease = this.#takeNow(entry, req.lane, req.cost);
      if (lease !== undefined) return lease === NOOP_LEASE ? RESOLVED_NOOP_LEASE : Promise.resolve(lease);
    }
    const now = this.#c.clock.now();
    const deadline = req.deadline ?? Number.POSITIVE_INFINITY;
    if (deadline !== Number.POSITIVE_INFINITY) {
      const predicted = this.predictWait(req.key, req.lane, req.cost, now);
      if (now + predicted > deadline) {
        this.#emitRejected(req.key, req.lane, 'deadline', predicted);
        return Promise.reject(new DeadlineExceededError(predicted, deadline));
      }
    }
    return new Promise<Lease>((resolve, reject) => {
      const w: Waiter = {
        seq: ++this.#seq,
        entry,
        lane: req.lane,
        cost: req.cost,
        enqueuedAt: now,
        deadline,
        resolve,
        reject,
        signal: req.signal,
        onAbort: undefined,
        deadlineTimer: undefined,
        prev: undefined,
        next: undefined,
        listed: false,
      };
      this.#enqueue(w);
      if (w.signal) {
        w.onAbort = () => this.#fail(w, 'aborted', new AcquireAbortedError(w.signal?.reason));
        w.signal.addEventListener('abort', w.onAbort, { once: true });
      }
      if (deadline !== Number.POSITIVE_INFINITY) {
        w.deadlineTimer = this.#c.clock.setTimer(Math.max(0, deadline - now), () => {
          w.deadlineTimer = undefined;
          // Admission at the deadline itself is on time; the pass runs first for that instant.
          this.pass();
          if (w.listed) {
            const at = this.#c.clock.now();
            this.#fail(
              w,
              'deadline',
              new DeadlineExceededError(
                this.predictWait(w.entry.key, w.lane, w.cost, at),
                deadline,
                'passed-while-queued',
              ),
            );
          }
        });
      }
      this.pass();
    });
  }

  /**
   * Milliseconds until an acquire of `cost` on `key` in `lane` would be admitted if it queued
   * now behind everyone already waiting (concurrency aside: slot releases cannot be predicted).
   */
  predictWait(key: string, lane: Lane, cost: number, now: number): number {
    checkLane(lane);
    const entry = this.#entry(key);
    const { store, account, posPerBatch } = this.#c;
    // pos waits behind pos, plus the batch share interleaved; batch waits behind both.
    const interleave = (posAhead: number, batchAhead: number): number =>
      lane === 'pos'
        ? posAhead + Math.min(batchAhead, Math.ceil((posAhead + cost) / posPerBatch))
        : posAhead + batchAhead;
    const keyAhead = interleave(entry.posCost, entry.batchCost);
    let wait = store.peek(entry.keyLevels, cost + keyAhead, now);
    if (account !== undefined) {
      const acctWait = store.peek([account], cost + interleave(this.#posCost, this.#batchCost), now);
      if (acctWait > wait) wait = acctWait;
    }
    return wait;
  }

  /**
   * Rejects every waiter whose deadline can no longer be met (after the limiter slowed down or
   * paused), on the key's levels and on the account's. Each waiter is predicted behind exactly
   * those ahead of it in its key's lane, which must go first on both levels: a lower bound, so
   * nobody is rejected whose deadline could still be met.
   */
  revalidateDeadlines(): void {
    const now = this.#c.clock.now();
    const { account, store } = this.#c;
    for (const entries of [this.#waitingPos, this.#waitingBatch]) {
      for (const entry of [...entries]) {
        for (const list of [entry.pos, entry.batch]) {
          let ahead = 0;
          for (let w = list.head; w !== undefined; ) {
            const next = w.next;
            if (w.deadline !== Number.POSITIVE_INFINITY) {
              let own = store.peek(entry.keyLevels, ahead + w.cost, now);
              if (account !== undefined) own = Math.max(own, store.peek([account], ahead + w.cost, now));
              if (now + own > w.deadline)
                this.#fail(w, 'deadline', new DeadlineExceededError(own, w.deadline));
              else ahead += w.cost;
            } else ahead += w.cost;
            w = next;
          }
        }
      }
    }
    this.pass();
  }

  /** Admits every waiter that can go now, then sets the one timer for the next possible admission. */
  pass(): void {
    if (this.#passing || this.#closed) return;
    this.#passing = true;
    try {
      const { clock, store } = this.#c;
      const now = clock.now();
      this.#c.beforePass?.(now);
      let wakeAt = Number.POSITIVE_INFINITY;
      while (this.#waiting > 0) {
        if (this.#inFlight >= this.#c.accountConcurrency) break;
        const lanes =
          this.#batchCost > 0 && this.#posCost > 0 && this.#posStreak >= this.#c.posPerBatch
            ? LANES_BATCH_FIRST
            : LANES_POS_FIRST;
        let best: Waiter | undefined;
        for (const lane of lanes) {
          for (const entry of lane === 'pos' ? this.#waitingPos : this.#waitingBatch) {
            if (entry.inFlight >= entry.concurrency) continue;
            const head = (lane === 'pos' ? entry.pos : entry.batch).head!;
            const keyWait = store.peek(entry.keyLevels, head.cost, now);
            if (keyWait > 0) {
              if (now + keyWait < wakeAt) wakeAt = now + keyWait;
              continue;
            }
            if (best === undefined || head.seq < best.seq) best = head;
          }
          if (best !== undefined) break;
        }
        if (best === undefined) break;
        if (now > best.deadline) {
          // A late timer must not admit past the deadline: the deadline wins.
          this.#fail(best, 'deadline', new DeadlineExceededError(0, best.deadline, 'passed-while-queued'));
          continue;
        }
        const wait = store.take(best.entry.allLevels, best.cost, now);
        if (wait > 0) {
          if (now + wait < wakeAt) wakeAt = now + wait;
          break;
        }
        this.#admit(best, now);
      }
      if (this.#waiting > 0 && this.#c.nextChangeAt)
        wakeAt = Math.min(wakeAt, Math.max(now, this.#c.nextChangeAt()));
      this.#arm(this.#waiting > 0 ? wakeAt : Number.POSITIVE_INFINITY, now);
    } finally {
      this.#passing = false;
    }
  }

  /** Rejects every waiter with {@link LimiterClosedError} and stops the timer. */
  close(): void {
    if (this.#closed) return;
    for (const entries of [this.#waitingPos, this.#waitingBatch]) {
      for (const entry of [...entries]) {
        for (const list of [entry.pos, entry.batch]) {
          while (list.head) this.#fail(list.head, 'closed', new LimiterClosedError());
        }
      }
    }
    this.#closed = true;
    this.#arm(Number.POSITIVE_INFINITY, 0);
  }

  // Whether an arrival may be admitted without queueing: nobody it must let go first is waiting.
  #mayBypass(lane: Lane): boolean {
    if (this.#posCost > 0) return false;
    if (lane === 'batch') return this.#batchCost === 0;
    return this.#batchCost === 0 || this.#posStreak < this.#c.posPerBatch;
  }

  #takeNow(entry: KeyEntry, lane: Lane, cost: number): Lease | undefined {
    if (this.#inFlight >= this.#c.accountConcurrency || entry.inFlight >= entry.concurrency) return undefined;
    // A pure concurrency cap has no rate level: no need to read the clock.
    const now = entry.allLevels.length === 0 ? 0 : this.#c.clock.now();
    this.#c.beforePass?.(now);
    if (this.#c.store.take(entry.allLevels, cost, now) > 0) return undefined;
    if (lane === 'pos' && this.#batchCost > 0) this.#posStreak++;
    if ((++this.#ops & (SWEEP_EVERY - 1)) === 0) this.#sweep(now);
    if (this.#listeners.size > 0) this.emit({ type: 'acquired', key: entry.key, lane, cost, waitedMs: 0 });
    return this.#lease(entry);
  }

  #lease(entry: KeyEntry): Lease {
    this.#admitted++;
    entry.admitted++;
    if (
      !this.countInFlight &&
      this.#c.accountConcurrency === Number.POSITIVE_INFINITY &&
      entry.concurrency === Number.POSITIVE_INFINITY
    ) {
      return NOOP_LEASE;
    }
    this.#inFlight++;
    entry.inFlight++;
    return new SlotLease(() => {
      this.#inFlight--;
      entry.inFlight--;
      if (this.#waiting > 0) this.pass();
    });
  }

  #entry(key: string): KeyEntry {
    let e = this.#entries.get(key);
    // A swept entry is recreated on its next use; a held handle keeps working meanwhile.
    if (e === undefined) {
      const limits = this.#c.limitsFor(key);
      const account = this.#c.account;
      const allLevels = account === undefined ? limits.levels : [account, ...limits.levels];
      e = {
        key,
        keyLevels: limits.levels,
        allLevels,
        concurrency: limits.concurrency,
        maxCost: Math.min(Number.POSITIVE_INFINITY, ...allLevels.map((l) => l.burst)),
        pinned: false,
        inFlight: 0,
        admitted: 0,
        pos: new WaitList<Waiter>(),
        batch: new WaitList<Waiter>(),
        posCost: 0,
        batchCost: 0,
      };
      this.#entries.set(key, e);
    }
    return e;
  }

  #enqueue(w: Waiter): void {
    const e = w.entry;
    if (w.lane === 'pos') {
      e.pos.push(w);
      e.posCost += w.cost;
      this.#posCost += w.cost;
      this.#waitingPos.add(e);
    } else {
      e.batch.push(w);
      e.batchCost += w.cost;
      this.#batchCost += w.cost;
      this.#waitingBatch.add(e);
    }
    this.#waiting++;
  }

  #dequeue(w: Waiter): void {
    const e = w.entry;
    if (w.lane === 'pos') {
      e.pos.remove(w);
      e.posCost -= w.cost;
      this.#posCost -= w.cost;
      if (e.pos.size === 0) this.#waitingPos.delete(e);
    } else {
      e.batch.remove(w);
      e.batchCost -= w.cost;
      this.#batchCost -= w.cost;
      if (e.batch.size === 0) this.#waitingBatch.delete(e);
    }
    this.#waiting--;
    w.deadlineTimer?.cancel();
    w.deadlineTimer = undefined;
    if (w.onAbort) w.signal?.removeEventListener('abort', w.onAbort);
  }

  #admit(w: Waiter, now: number): void {
    this.#dequeue(w);
    if (w.lane === 'pos') {
      if (this.#batchCost > 0) this.#posStreak++;
    } else {
      this.#posStreak = 0;
    }
    if (this.#listeners.size > 0) {
      this.emit({
        type: 'acquired',
        key: w.entry.key,
        lane: w.lane,
        cost: w.cost,
        waitedMs: now - w.enqueuedAt,
      });
    }
    w.resolve(this.#lease(w.entry));
  }

  #fail(w: Waiter, reason: RejectReason, error: unknown): void {
    if (!w.listed) return;
    this.#dequeue(w);
    this.#emitRejected(
      w.entry.key,
      w.lane,
      reason,
      error instanceof DeadlineExceededError ? error.predictedWaitMs : undefined,
    );
    w.reject(error);
    // The head may have changed; a waiter behind this one may go now.
    if (reason !== 'closed') this.pass();
  }

  #emitRejected(key: string, lane: Lane, reason: RejectReason, predictedWaitMs: number | undefined): void {
    if (this.#listeners.size === 0) return;
    this.emit(
      predictedWaitMs === undefined
        ? { type: 'rejected', key, lane, reason }
        : { type: 'rejected', key, lane, reason, predictedWaitMs },
    );
  }

  #arm(at: number, now: number): void {
    if (at === this.#timerAt) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    this.#timer = this.#c.clock.setTimer(Math.max(0, at - now), () => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.pass();
    });
  }

  #sweep(now: number): void {
    for (const [key, e] of this.#entries) {
      if (!e.pinned && e.inFlight === 0 && e.pos.size === 0 && e.batch.size === 0) this.#entries.delete(key);
    }
    this.#c.store.evictIdle(now);
  }

  /** Drops idle keys now (normally amortised over acquires). */
  sweep(): void {
    this.#sweep(this.#c.clock.now());
  }

  get keyCount(): number {
    return this.#entries.size;
  }
}

function checkCost(entry: KeyEntry, cost: number): void {
  // One comparison on the hot path; NaN and non-numbers fail it too.
  if (cost > 0 && cost <= entry.maxCost) return;
  if (typeof cost !== 'number' || !Number.isFinite(cost) || cost <= 0) {
    throw new InvalidOptionError('cost', `must be a finite number > 0, got ${String(cost)}`);
  }
  throw new InvalidOptionError(
    'cost',
    `${cost} exceeds the burst ${entry.maxCost}: it could never be admitted`,
  );
}

function checkLane(lane: Lane): void {
  if (lane === 'pos' || lane === 'batch') return;
  throw new InvalidOptionError('lane', `must be "pos" or "batch", got ${JSON.stringify(lane)}`);
}
