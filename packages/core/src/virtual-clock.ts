import type { Clock, TimerHandle } from './clock.js';

/**
 * A timer, and its own handle. Cancelling lets go of the callback at once: a cancelled timer
 * stays in the heap until its instant comes (it is skipped then), and whatever its callback
 * closed over (a claim's state, for a read timeout that never fired) would otherwise live, and
 * be copied by the young-generation collector, until then.
 */
class Timer implements TimerHandle {
  readonly at: number;
  readonly seq: number;
  fn: (() => void) | undefined;

  constructor(at: number, seq: number, fn: () => void) {
    this.at = at;
    this.seq = seq;
    this.fn = fn;
  }

  get cancelled(): boolean {
    return this.fn === undefined;
  }

  cancel(): void {
    this.fn = undefined;
  }

  /** Runs the callback, letting go of it first (a handle kept after it fired holds nothing). */
  fire(): void {
    const fn = this.fn!;
    this.fn = undefined;
    fn();
  }
}

/**
 * The one virtual clock of rxgate: the simulator's and every package's tests'. Time moves only
 * when it is run. Timers fire in time order (ties in the order they were set); every timer due
 * at one instant fires, then the microtask queue drains (promise continuations, and anything
 * they queue, run at the virtual instant that woke them), then time moves to the next instant.
 *
 * The drain between instants waits for a `process.nextTick` queued from a microtask, not for a
 * turn of the event loop: a simulated pharmacy day has millions of instants. Every 256 instants
 * (and before the first) it takes one turn of the event loop, for real I/O. Code that needs a
 * real I/O turn between two instants (a socket, a file) must not expect one.
 */
export class VirtualClock implements Clock {
  #now: number;
  #seq = 0;
  #fired = 0;
  readonly #heap: Timer[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, callback: () => void): TimerHandle {
    const t = new Timer(this.#now + Math.max(0, delayMs || 0), this.#seq++, callback);
    this.#push(t);
    return t;
  }

  /** Timers fired so far. */
  get fired(): number {
    return this.#fired;
  }

  /** Timers still armed. */
  get pending(): number {
    let n = 0;
    for (const t of this.#heap) if (!t.cancelled) n++;
    return n;
  }

  /** When the next timer not cancelled is due, or undefined when none is armed. */
  nextDue(): number | undefined {
    return this.#peek()?.at;
  }

  /** Runs until no timer is left, or until `until` (then time stops there). */
  async run(until = Number.POSITIVE_INFINITY): Promise<void> {
    await this.#run(until, Number.POSITIVE_INFINITY);
  }

  /** Runs every timer due within `ms`, then sets the time to now + ms. */
  async advance(ms: number): Promise<void> {
    await this.#run(this.#now + ms, Number.POSITIVE_INFINITY);
  }

  /** Runs every timer due by `target`, then sets the time to `target` (never backwards). */
  async advanceTo(target: number): Promise<void> {
    await this.#run(target, Number.POSITIVE_INFINITY);
  }

  /** Runs timers until none is left; throws when `maxTimers` fired and some are still left. */
  async runAll(maxTimers = 1_000_000): Promise<void> {
    const left = await this.#run(Number.POSITIVE_INFINITY, this.#fired + maxTimers);
    if (left) throw new Error(`runAll: still timers after ${maxTimers}`);
  }

  /**
   * Moves time synchronously, firing due timers without draining microtasks between them.
   * For tests that interleave through a scheduler of their own (fast-check's `fc.scheduler`).
   */
  advanceSync(ms: number): void {
    const target = this.#now + ms;
    for (;;) {
      const next = this.#peek();
      if (next === undefined || next.at > target) break;
      this.#pop();
      this.#now = next.at;
      this.#fired++;
      next.fire();
    }
    if (target > this.#now) this.#now = target;
  }

  // Returns true when it stopped at `maxFired` with timers still due by `until`.
  async #run(until: number, maxFired: number): Promise<boolean> {
    await drain();
    let sinceYield = 0;
    for (;;) {
      const next = this.#peek();
      if (next === undefined || next.at > until) break;
      if (this.#fired >= maxFired) return true;
      this.#now = next.at;
      // Everything due at this instant, then let the continuations run.
      while (this.#peek()?.at === this.#now) {
        const t = this.#pop()!;
        this.#fired++;
        t.fire();
      }
      // Now and then a turn of the event loop, for real I/O (log files, the progress bar).
      if (++sinceYield === YIELD_EVERY) {
        sinceYield = 0;
        await drain();
      } else await drainMicrotasks();
    }
    if (until !== Number.POSITIVE_INFINITY && until > this.#now) this.#now = until;
    return false;
  }

  #peek(): Timer | undefined {
    while (this.#heap.length > 0 && this.#heap[0]!.cancelled) this.#pop();
    return this.#heap[0];
  }

  #less(a: Timer, b: Timer): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(t: Timer): void {
    const h = this.#heap;
    h.push(t);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(h[i]!, h[p]!)) break;
      const x = h[i]!;
      h[i] = h[p]!;
      h[p] = x;
      i = p;
    }
  }

  #pop(): Timer | undefined {
    const h = this.#heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last !== undefined) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.#less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.#less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        const x = h[i]!;
        h[i] = h[m]!;
        h[m] = x;
        i = m;
      }
    }
    return top;
  }
}

// Instants between two turns of the event loop.
const YIELD_EVERY = 256;

/** Resolves after a turn of the event loop (every queued microtask has run by then). */
function drain(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves once every queued microtask (and those they queue) has run, without a turn of the
 * event loop (a few µs each, and a simulated day has millions of instants). Called from a
 * microtask (`#run` after its first await): Node runs a `nextTick` queued there only once V8's
 * microtask queue is empty, nested continuations included; the resolution then queues `#run`'s
 * own continuation behind anything those left.
 */
function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}
