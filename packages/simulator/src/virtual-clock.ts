import type { Clock, TimerHandle } from '@rxgate/ratelimit';

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * The simulator's clock: time moves only when `run` fires the next timer. Timers fire in time
 * order (ties in the order they were set); every timer due at one instant fires, then the
 * microtask queue drains, so promise continuations run at the virtual instant that woke them
 * and any timer they set lands in order. It satisfies every rxgate policy's `Clock`.
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
    const t: Timer = {
      at: this.#now + Math.max(0, delayMs || 0),
      seq: this.#seq++,
      fn: callback,
      cancelled: false,
    };
    this.#push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Timers fired so far. */
  get fired(): number {
    return this.#fired;
  }

  /** Runs until no timer is left, or until `until` (then time stops there). */
  async run(until = Number.POSITIVE_INFINITY): Promise<void> {
    await drain();
    let sinceYield = 0;
    for (;;) {
      const next = this.#peek();
      if (next === undefined || next.at > until) break;
      this.#now = next.at;
      // Everything due at this instant, then let the continuations run.
      while (this.#peek()?.at === this.#now) {
        const t = this.#pop()!;
        this.#fired++;
        t.fn();
      }
      // Now and then a turn of the event loop, for real I/O (log files, the progress bar).
      if (++sinceYield === YIELD_EVERY) {
        sinceYield = 0;
        await drain();
      } else await drainMicrotasks();
    }
    if (until !== Number.POSITIVE_INFINITY && until > this.#now) this.#now = until;
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
      [h[i], h[p]] = [h[p]!, h[i]!];
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
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

// Instants between two turns of the event loop.
const YIELD_EVERY = 256;

/** Resolves once every queued microtask (and those they queue) has run, via a turn of the event loop. */
function drain(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves once every queued microtask (and those they queue) has run, without a turn of the
 * event loop (a few µs each, and a simulated day has millions of instants). Called from a
 * microtask (`run` after its first await): Node runs a `nextTick` queued there only once V8's
 * microtask queue is empty, nested continuations included; the resolution then queues `run`'s
 * own continuation behind anything those left.
 */
function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => process.nextTick(resolve));
}
