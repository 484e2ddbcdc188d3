import { AdmissionLog } from './admission-log.js';
import type { AbortSignalLike, Clock, TimerHandle } from './clock.js';
import {
  AcquireAbortedError,
  DeadlineExceededError,
  InvalidOptionError,
  LimiterClosedError,
} from './errors.js';
import type { Lane, LimiterEvent, LimiterListener, RejectReason } from './events.js';
import { type Lease, NOOP_LEASE, RESOLVED_NOOP_LEASE, SlotLease } from './lease.js';
import { Pacer, type PaceSpec } from './pacer.js';
import { StallWatch } from './stall-watch.js';
import { type LevelSpec, type RateStore, type SyncRateStore, syncOf } from './store.js';
import { isStoreUnavailableError, StoreUnavailableError } from './store-unavailable.js';
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
  /** A take for this waiter is on its way to an asynchronous store: its answer decides. */
  taking: boolean;
}

/**
 * What revalidateDeadlines counts ahead of the next waiter of a lane: the cost of those before
 * it, and on an asynchronous store the waiters themselves, so that one admitted (or gone) while
 * a peek was out can come off (see there).
 */
class Ahead {
  cost = 0;
  readonly #waiters: Waiter[] | undefined;

  constructor(asynchronous: boolean) {
    this.#waiters = asynchronous ? [] : undefined;
  }

  add(w: Waiter): void {
    this.cost += w.cost;
    this.#waiters?.push(w);
  }

  /** Whether one counted is no longer waiting (an asynchronous store only). */
  get anyGone(): boolean {
    return this.#waiters?.some((w) => !w.listed) ?? false;
  }

  /** Takes those no longer waiting off. */
  dropGone(): void {
    const waiters = this.#waiters;
    if (waiters === undefined) return;
    let kept = 0;
    for (const w of waiters) {
      if (!w.listed) this.cost -= w.cost;
      else waiters[kept++] = w;
    }
    waiters.length = kept;
  }
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
  /** When the last ones were made, once the scheduler logs admissions. */
  log: AdmissionLog | undefined;
  readonly pos: WaitList<Waiter>;
  readonly batch: WaitList<Waiter>;
  posCost: number;
  batchCost: number;
}

// A store operation a scheduling step asks for: the memory store answers it at once, a shared
// store asynchronously; the same steps (generators) run either way, so both stores are
// scheduled by the very same code.
const TAKE = 0;
const PEEK = 1;
type Op = readonly [kind: typeof TAKE | typeof PEEK, levels: readonly LevelSpec[], cost: number, now: number];
type Steps<T> = Generator<readonly Op[], T, readonly number[]>;

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
  readonly #store: RateStore;
  // The memory store's synchronous face: with it every step below runs to its end at once.
  readonly #sync: SyncRateStore | undefined;
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
  // An asynchronous store: something changed while a pass awaited the store; pass again after it.
  #passAgain = false;
  // An asynchronous store: settles when the passes running now (and those asked meanwhile) end.
  #passesDone: Promise<void> | undefined;
  #endPasses: (() => void) | undefined;

  constructor(config: SchedulerConfig) {
    this.#c = config;
    this.#store = config.store;
    this.#sync = syncOf(config.store);
  }

  /** Whether the store answers at once (the memory store): every result below is then a plain value. */
  get synchronous(): boolean {
    return this.#sync !== undefined;
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

  #log: AdmissionLog | undefined;
  // Levels kept to their own pace (see pace), by level id.
  readonly #pacers = new Map<string, Pacer>();
  // How late the admission timer fires (see StallWatch).
  readonly #stalls = new StallWatch();

  /**
   * How late this process's timers have fired lately (ms; 0 in virtual time): the allowance a
   * pace to a vendor's window leaves for a stall between an admission and its request.
   */
  stallAllowanceMs(now: number): number {
    return this.#stalls.allowanceMs(now);
  }

  /** Keeps `level`'s admissions to a pace (see Pacer), or no longer (undefined). */
  pace(level: LevelSpec, spec: PaceSpec | undefined): void {
    if (spec === undefined) {
      this.#pacers.delete(level.id);
      return;
    }
    const p = this.#pacers.get(level.id);
    if (p === undefined) this.#pacers.set(level.id, new Pacer(spec));
    else p.setSpec(spec);
  }

  /** `level` was paused from `now`: its pace's lead is dropped (see Pacer.paused). */
  pacePaused(level: LevelSpec, now: number): void {
    this.#pacers.get(level.id)?.paused(now);
  }

  // How long until every one of `levels` that keeps a pace lets one more go.
  #paceWaitOf(levels: readonly LevelSpec[], now: number): number {
    if (this.#pacers.size === 0) return 0;
    let wait = 0;
    for (const level of levels) wait = Math.max(wait, this.#pacers.get(level.id)?.wait(now) ?? 0);
    return wait;
  }

  #paceAccountWait(now: number): number {
    const account = this.#c.account;
    return account === undefined ? 0 : (this.#pacers.get(account.id)?.wait(now) ?? 0);
  }

  #paced(entry: KeyEntry, now: number, cost: number): void {
    if (this.#pacers.size === 0) return;
    for (const level of entry.allLevels) this.#pacers.get(level.id)?.admitted(now, cost);
  }

  /**
   * Logs the admissions of `key` (or of every key) with their times from `now` on: a limiter
   * does so once a quota signal for that level says its round trip, since what was admitted
   * after the request answered is not in its Remaining yet. A key's log goes when its entry is
   * swept.
   */
  logAdmissions(key: string | undefined, now: number): void {
    if (key === undefined) this.#log ??= new AdmissionLog(now);
    else {
      const e = this.#entries.get(key);
      if (e !== undefined) e.log ??= new AdmissionLog(now);
    }
  }

  /**
   * Admissions on `key` (or every key) at or after `t`; undefined when that is not logged, or
   * not that far back.
   */
  admittedSince(key: string | undefined, t: number): number | undefined {
    const log = key === undefined ? this.#log : this.#entries.get(key)?.log;
    return log?.since(t);
  }

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

  /**
   * Admits now or answers undefined; never queues. Waiters of the same or a higher lane go
   * first. A plain value with the memory store, a promise with an asynchronous one.
   */
  tryAcquire(key: string, lane: Lane, cost: number): Lease | undefined | Promise<Lease | undefined> {
    return this.tryAcquireEntry(this.#entry(key), lane, cost);
  }

  /** The scheduler's handle of a key, for callers that use one key on every call. */
  handle(key: string): KeyHandle {
    const e = this.#entry(key);
    e.pinned = true;
    return e;
  }

  tryAcquireEntry(
    handle: KeyHandle,
    lane: Lane,
    cost: number,
  ): Lease | undefined | Promise<Lease | undefined> {
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
      const deadline = req.deadline;
      return settle(this.#predict(entry, req.lane, req.cost, this.#c.clock.now()), (predicted) => {
        this.#emitRejected(req.key, req.lane, 'deadline', predicted);
        return Promise.reject(new DeadlineExceededError(predicted, deadline, 'already-past'));
      });
    }
    if (this.#mayBypass(req.lane)) {
      const lease = this.#takeNow(entry, req.lane, req.cost);
      if (lease instanceof Promise) return lease.then((l) => l ?? this.#queue(entry, req));
      if (lease !== undefined) return lease === NOOP_LEASE ? RESOLVED_NOOP_LEASE : Promise.resolve(lease);
    }
    return this.#queue(entry, req);
  }

  // Fails fast on a deadline the queue ahead already makes unreachable, else waits in line.
  #queue(entry: KeyEntry, req: AcquireRequest): Promise<Lease> {
    const now = this.#c.clock.now();
    const deadline = req.deadline ?? Number.POSITIVE_INFINITY;
    if (deadline === Number.POSITIVE_INFINITY) return this.#wait(entry, req, now, deadline);
    return settle(this.#predict(entry, req.lane, req.cost, now), (predicted) => {
      if (now + predicted > deadline) {
        this.#emitRejected(req.key, req.lane, 'deadline', predicted);
        return Promise.reject(new DeadlineExceededError(predicted, deadline));
      }
      return this.#wait(entry, req, now, deadline);
    });
  }

  #wait(entry: KeyEntry, req: AcquireRequest, now: number, deadline: number): Promise<Lease> {
    // Only an asynchronous store gets here after a wait: close and abort may have come meanwhile.
    if (this.#closed) return Promise.reject(new LimiterClosedError());
    if (req.signal?.aborted) return Promise.reject(new AcquireAbortedError(req.signal.reason));
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
        taking: false,
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
          // A take on its way to the store for this waiter decides (it was asked in time), and
          // with an asynchronous store the pass for this instant ends first.
          const passes = this.#passesDone;
          if (passes === undefined) {
            if (w.listed && !w.taking) this.#failLate(w);
          } else
            passes.then(() => {
              if (w.listed && !w.taking) this.#failLate(w);
            });
        });
      }
      this.pass();
    });
  }

  #failLate(w: Waiter): void {
    const at = this.#c.clock.now();
    const fail = (predicted: number) =>
      this.#fail(w, 'deadline', new DeadlineExceededError(predicted, w.deadline, 'passed-while-queued'));
    const predicted = this.#predict(w.entry, w.lane, w.cost, at);
    if (typeof predicted === 'number') fail(predicted);
    else predicted.then(fail, () => fail(Number.NaN));
  }

  /**
   * Milliseconds until an acquire of `cost` on `key` in `lane` would be admitted if it queued
   * now behind everyone already waiting (concurrency aside: slot releases cannot be predicted).
   * A plain number with the memory store, a promise with an asynchronous one.
   */
  predictWait(key: string, lane: Lane, cost: number, now: number): number | Promise<number> {
    checkLane(lane);
    return this.#predict(this.#entry(key), lane, cost, now);
  }

  #predict(entry: KeyEntry, lane: Lane, cost: number, now: number): number | Promise<number> {
    return this.#drive(this.#predictSteps(entry, lane, cost, now));
  }

  *#predictSteps(entry: KeyEntry, lane: Lane, cost: number, now: number): Steps<number> {
    const { account, posPerBatch } = this.#c;
    // pos waits behind pos, plus the batch share interleaved; batch waits behind both.
    const interleave = (posAhead: number, batchAhead: number): number =>
      lane === 'pos'
        ? posAhead + Math.min(batchAhead, Math.ceil((posAhead + cost) / posPerBatch))
        : posAhead + batchAhead;
    const ops: Op[] = [];
    if (entry.keyLevels.length > 0)
      ops.push([PEEK, entry.keyLevels, cost + interleave(entry.posCost, entry.batchCost), now]);
    if (account !== undefined)
      ops.push([PEEK, [account], cost + interleave(this.#posCost, this.#batchCost), now]);
    if (ops.length === 0) return 0;
    const waits = yield ops;
    // With nobody waiting an arrival the bucket lets go goes at once, unpaced.
    return Math.max(0, this.#waiting > 0 ? this.#paceWaitOf(entry.allLevels, now) : 0, ...waits);
  }

  /**
   * Rejects every waiter whose deadline can no longer be met (after the limiter slowed down or
   * paused), on the key's levels and on the account's. Each waiter is predicted behind exactly
   * those ahead of it in its key's lane, which must go first on both levels: a lower bound, so
   * nobody is rejected whose deadline could still be met.
   */
  revalidateDeadlines(): void {
    const done = this.#drive(this.#revalidateSteps(this.#c.clock.now()));
    if (done instanceof Promise)
      done.then(
        () => this.pass(),
        (e: unknown) => this.#failAll(e),
      );
    else this.pass();
  }

  *#revalidateSteps(now: number): Steps<void> {
    const { account } = this.#c;
    for (const entries of [this.#waitingPos, this.#waitingBatch]) {
      for (const entry of [...entries]) {
        for (const list of [entry.pos, entry.batch]) {
          // Those counted ahead so far. On an asynchronous store a pass runs while this one
          // waits for the store, and one of them may be admitted meanwhile (or leave): what it
          // took is then the store's, no longer ahead of the next. Peeked while it was on its way
          // (the store answers in order: its take first), it was counted twice: after a throttle
          // rejected a waiter of one key, the pass that followed admitted the next of another,
          // and the one behind it was predicted at 2000 ms against a deadline 1000 ms off and
          // rejected, where the memory store admits it at 1000 (a random seed of the conformance
          // property). So the peek goes again, less those (Ahead), until none left while it was
          // out. (This rests on the store answering in order and on a take's answer reaching its
          // pass before a later peek's reaches this one: both go through the same #driveAsync.)
          const ahead = new Ahead(this.#sync === undefined);
          for (let w = list.head; w !== undefined; ) {
            const next = w.next;
            if (w.deadline !== Number.POSITIVE_INFINITY) {
              let own: number;
              do {
                ahead.dropGone();
                const ops: Op[] = [];
                if (entry.keyLevels.length > 0) ops.push([PEEK, entry.keyLevels, ahead.cost + w.cost, now]);
                if (account !== undefined) ops.push([PEEK, [account], ahead.cost + w.cost, now]);
                own = ops.length === 0 ? 0 : Math.max(0, ...(yield ops));
              } while (w.listed && ahead.anyGone);
              if (!w.listed) {
                // Left while the store answered (an asynchronous store only).
              } else if (now + own > w.deadline)
                this.#fail(w, 'deadline', new DeadlineExceededError(own, w.deadline));
              else ahead.add(w);
            } else ahead.add(w);
            w = next;
          }
        }
      }
    }
  }

  /** Admits every waiter that can go now, then sets the one timer for the next possible admission. */
  pass(): void {
    if (this.#closed) return;
    if (this.#passing) {
      if (this.#sync === undefined) this.#passAgain = true;
      return;
    }
    this.#passing = true;
    const clock = this.#c.clock;
    let result: number | Promise<number>;
    let now: number;
    try {
      now = clock.now();
      this.#c.beforePass?.(now);
      result = this.#drive(this.#passSteps(now));
      if (typeof result === 'number') {
        this.#afterPass(result, now);
        return;
      }
    } catch (e) {
      this.#passing = false;
      throw e;
    } finally {
      if (this.#sync !== undefined) this.#passing = false;
    }
    if (this.#passesDone === undefined)
      this.#passesDone = new Promise<void>((resolve) => {
        this.#endPasses = resolve;
      });
    result.then(
      (wakeAt) => {
        this.#passing = false;
        if (this.#passAgain) {
          this.#passAgain = false;
          this.pass();
          if (this.#passing) return;
        } else this.#afterPass(wakeAt, clock.now());
        this.#passesEnded();
      },
      (e: unknown) => {
        this.#passing = false;
        this.#passAgain = false;
        this.#failAll(e);
        this.#passesEnded();
      },
    );
  }

  #passesEnded(): void {
    const end = this.#endPasses;
    this.#passesDone = undefined;
    this.#endPasses = undefined;
    end?.();
  }

  #afterPass(wakeAt: number, now: number): void {
    if (this.#closed) return;
    let at = wakeAt;
    if (this.#waiting > 0 && this.#c.nextChangeAt) at = Math.min(at, Math.max(now, this.#c.nextChangeAt()));
    this.#arm(this.#waiting > 0 ? at : Number.POSITIVE_INFINITY);
  }

  // One pass: the next waiter to go (lane order, then arrival), its levels taken, until none can.
  // Returns when the next admission may become possible.
  *#passSteps(start: number): Steps<number> {
    const sync = this.#sync !== undefined;
    const clock = this.#c.clock;
    let now = start;
    let wakeAt = Number.POSITIVE_INFINITY;
    while (this.#waiting > 0 && !this.#closed) {
      if (this.#inFlight >= this.#c.accountConcurrency) break;
      const lanes =
        this.#batchCost > 0 && this.#posCost > 0 && this.#posStreak >= this.#c.posPerBatch
          ? LANES_BATCH_FIRST
          : LANES_POS_FIRST;
      let best: Waiter | undefined;
      for (const lane of lanes) {
        const heads: Waiter[] = [];
        const ops: Op[] = [];
        for (const entry of lane === 'pos' ? this.#waitingPos : this.#waitingBatch) {
          if (entry.inFlight >= entry.concurrency) continue;
          const head = (lane === 'pos' ? entry.pos : entry.batch).head!;
          if (entry.keyLevels.length === 0) {
            if (best === undefined || head.seq < best.seq) best = head;
            continue;
          }
          heads.push(head);
          ops.push([PEEK, entry.keyLevels, head.cost, now]);
        }
        if (ops.length > 0) {
          const waits = yield ops;
          if (!sync) now = clock.now();
          for (let i = 0; i < heads.length; i++) {
            const head = heads[i]!;
            if (!head.listed) continue;
            const keyWait = Math.max(waits[i]!, this.#paceWaitOf(head.entry.keyLevels, now));
            if (keyWait > 0) {
              if (now + keyWait < wakeAt) wakeAt = now + keyWait;
              continue;
            }
            if (best === undefined || head.seq < best.seq) best = head;
          }
        }
        if (best?.listed) break;
        best = undefined;
      }
      if (best === undefined) break;
      if (now > best.deadline) {
        // A late timer must not admit past the deadline: the deadline wins.
        this.#fail(best, 'deadline', new DeadlineExceededError(0, best.deadline, 'passed-while-queued'));
        continue;
      }
      const entry = best.entry;
      // The account's pace (the keys' was read with their levels above).
      const paced = this.#paceAccountWait(now);
      if (paced > 0) {
        if (now + paced < wakeAt) wakeAt = now + paced;
        break;
      }
      // The slot is held while the store answers, so concurrent admissions respect the caps.
      this.#inFlight++;
      entry.inFlight++;
      best.taking = true;
      let wait: number;
      try {
        wait = (yield [[TAKE, entry.allLevels, best.cost, now]])[0]!;
      } finally {
        best.taking = false;
        this.#inFlight--;
        entry.inFlight--;
      }
      if (!sync) now = clock.now();
      if (wait > 0) {
        if (now + wait < wakeAt) wakeAt = now + wait;
        // Its deadline timer fired while the store answered: the deadline wins now.
        if (!sync && best.listed && now >= best.deadline) this.#failLate(best);
        break;
      }
      // Granted to a waiter that left while the store answered: its tokens are spent.
      if (best.listed) this.#admit(best, now);
    }
    return wakeAt;
  }

  // Runs a scheduling step against the store: at once with the memory store, else awaiting each
  // batch of operations (a batch goes to the store together: one pipelined write to Redis).
  #drive<T>(steps: Steps<T>): T | Promise<T> {
    const sync = this.#sync;
    if (sync === undefined) return this.#driveAsync(steps);
    let r = steps.next();
    while (!r.done) {
      const ops = r.value;
      const answers: number[] = [];
      for (const [kind, levels, cost, now] of ops)
        answers.push(kind === TAKE ? sync.take(levels, cost, now) : sync.peek(levels, cost, now));
      r = steps.next(answers);
    }
    return r.value;
  }

  async #driveAsync<T>(steps: Steps<T>): Promise<T> {
    const store = this.#store;
    let r = steps.next();
    while (!r.done) {
      let answers: number[];
      try {
        answers = await Promise.all(
          r.value.map(([kind, levels, cost, now]) =>
            kind === TAKE ? store.take(levels, cost, now) : store.peek(levels, cost, now),
          ),
        );
      } catch (e) {
        r = steps.throw(isStoreUnavailableError(e) ? e : new StoreUnavailableError(e));
        continue;
      }
      r = steps.next(answers);
    }
    return r.value;
  }

  /** Rejects every waiter with {@link LimiterClosedError} and stops the timer. */
  close(): void {
    if (this.#closed) return;
    this.#rejectAll('closed', () => new LimiterClosedError());
    this.#closed = true;
    this.#arm(Number.POSITIVE_INFINITY);
  }

  // The store failed (fail-closed): nobody waiting can be admitted by it now.
  #failAll(error: unknown): void {
    const e = isStoreUnavailableError(error) ? error : new StoreUnavailableError(error);
    this.#rejectAll('unavailable', () => e);
  }

  #rejectAll(reason: RejectReason, error: () => unknown): void {
    for (const entries of [this.#waitingPos, this.#waitingBatch]) {
      for (const entry of [...entries]) {
        for (const list of [entry.pos, entry.batch]) {
          while (list.head) this.#fail(list.head, reason, error());
        }
      }
    }
  }

  // Whether an arrival may be admitted without queueing: nobody it must let go first is waiting.
  #mayBypass(lane: Lane): boolean {
    if (this.#posCost > 0) return false;
    if (lane === 'batch') return this.#batchCost === 0;
    return this.#batchCost === 0 || this.#posStreak < this.#c.posPerBatch;
  }

  #takeNow(entry: KeyEntry, lane: Lane, cost: number): Lease | undefined | Promise<Lease | undefined> {
    if (this.#inFlight >= this.#c.accountConcurrency || entry.inFlight >= entry.concurrency) return undefined;
    // A pure concurrency cap has no rate level: no need to read the clock.
    const levels = entry.allLevels;
    const now = levels.length === 0 ? 0 : this.#c.clock.now();
    this.#c.beforePass?.(now);
    // A pos arrival may go past queued batch waiters (the lane share): it keeps to their pace.
    if (this.#waiting > 0 && levels.length > 0 && this.#paceWaitOf(entry.allLevels, now) > 0)
      return undefined;
    const sync = this.#sync;
    if (sync !== undefined) {
      if (sync.take(levels, cost, now) > 0) return undefined;
      return this.#tookNow(entry, lane, cost, now);
    }
    if (levels.length === 0) return this.#tookNow(entry, lane, cost, now);
    // The slot is held while the store answers, so concurrent admissions respect the caps.
    this.#inFlight++;
    entry.inFlight++;
    const unhold = () => {
      this.#inFlight--;
      entry.inFlight--;
    };
    return this.#store.take(levels, cost, now).then(
      (wait) => {
        unhold();
        if (wait === 0 && !this.#closed) return this.#tookNow(entry, lane, cost, now);
        if (this.#waiting > 0) this.pass();
        return undefined;
      },
      (e: unknown) => {
        unhold();
        if (this.#waiting > 0) this.pass();
        throw isStoreUnavailableError(e) ? e : new StoreUnavailableError(e);
      },
    );
  }

  #tookNow(entry: KeyEntry, lane: Lane, cost: number, now: number): Lease {
    // With others waiting it went past them, so it takes a turn of their pace.
    if (this.#waiting > 0) this.#paced(entry, now, cost);
    if (lane === 'pos' && this.#batchCost > 0) this.#posStreak++;
    if ((++this.#ops & (SWEEP_EVERY - 1)) === 0) this.#sweep(now);
    if (this.#listeners.size > 0) this.emit({ type: 'acquired', key: entry.key, lane, cost, waitedMs: 0 });
    return this.#lease(entry, now);
  }

  #lease(entry: KeyEntry, now: number): Lease {
    this.#admitted++;
    entry.admitted++;
    this.#log?.record(now);
    entry.log?.record(now);
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
        log: undefined,
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
    // A waiter keeps to the pace; what went at once with nobody waiting did not (no catch-up).
    this.#paced(w.entry, now, w.cost);
    w.resolve(this.#lease(w.entry, now));
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
    if (reason !== 'closed' && reason !== 'unavailable') this.pass();
  }

  #emitRejected(key: string, lane: Lane, reason: RejectReason, predictedWaitMs: number | undefined): void {
    if (this.#listeners.size === 0) return;
    this.emit(
      predictedWaitMs === undefined || Number.isNaN(predictedWaitMs)
        ? { type: 'rejected', key, lane, reason }
        : { type: 'rejected', key, lane, reason, predictedWaitMs },
    );
  }

  #arm(at: number): void {
    if (at === this.#timerAt) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = at;
    if (at === Number.POSITIVE_INFINITY) return;
    // Armed from the clock as it reads now, not the pass's start: the pass's own time is no
    // lateness of the timer (StallWatch).
    const armed = this.#c.clock.now();
    const due = Math.max(at, armed);
    this.#timer = this.#c.clock.setTimer(due - armed, () => {
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      this.#stalls.fired(due, this.#c.clock.now());
      this.pass();
    });
  }

  #sweep(now: number): void {
    for (const [key, e] of this.#entries) {
      if (!e.pinned && e.inFlight === 0 && e.pos.size === 0 && e.batch.size === 0) this.#entries.delete(key);
    }
    if (this.#sync !== undefined) this.#sync.evictIdle(now);
    else this.#store.evictIdle(now).catch(() => undefined);
  }

  /** Drops idle keys now (normally amortised over acquires). */
  sweep(): void {
    this.#sweep(this.#c.clock.now());
  }

  get keyCount(): number {
    return this.#entries.size;
  }
}

/** The value of a step on the memory store, which answers at once (the in-process limiters' sync API). */
export function atOnce<T>(x: T | Promise<T>): T {
  if (x instanceof Promise)
    throw new TypeError('this limiter needs a store that answers at once (MemoryStore)');
  return x;
}

// `then` for a value that is plain with the memory store and a promise with an asynchronous one.
function settle<T, U>(x: T | Promise<T>, f: (t: T) => Promise<U>): Promise<U> {
  return x instanceof Promise ? x.then(f) : f(x);
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
