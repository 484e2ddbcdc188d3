interface Timer {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * A clock that moves only when a test says so. Timers fire in time order (ties in the order
 * they were set); after each one the microtask queue is drained, so promise continuations run
 * at the virtual instant that woke them.
 */
export class VirtualClock {
  #now: number;
  #seq = 0;
  readonly #heap: Timer[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): { cancel(): void } {
    const t: Timer = { at: this.#now + Math.max(0, delayMs), seq: this.#seq++, fn, cancelled: false };
    this.#push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Timers still armed. */
  get pending(): number {
    return this.#heap.filter((t) => !t.cancelled).length;
  }

  /** Runs every timer due within `ms`, then sets the time to now + ms. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  async advanceTo(target: number): Promise<void> {
    await flush();
    while (this.#fireNext(target)) await flush();
    this.#now = Math.max(this.#now, target);
  }

  /**
   * Moves time synchronously, firing due timers without draining microtasks between them.
   * For tests that interleave through a scheduler of their own (fast-check's `fc.scheduler`).
   */
  advanceSync(ms: number): void {
    const target = this.#now + ms;
    while (this.#fireNext(target));
    this.#now = Math.max(this.#now, target);
  }

  /** Runs timers until none is left (or `maxTimers` have fired). */
  async runAll(maxTimers = 1_000_000): Promise<void> {
    await flush();
    for (let i = 0; i < maxTimers; i++) {
      if (!this.#fireNext(Number.POSITIVE_INFINITY)) return;
      await flush();
    }
    throw new Error(`runAll: still timers after ${maxTimers}`);
  }

  // Fires the next timer due by `target`; false when there is none.
  #fireNext(target: number): boolean {
    this.#dropCancelled();
    const next = this.#heap[0];
    if (next === undefined || next.at > target) return false;
    this.#pop();
    this.#now = Math.max(this.#now, next.at);
    next.fn();
    return true;
  }

  #dropCancelled(): void {
    while (this.#heap[0]?.cancelled) this.#pop();
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

/** Lets every queued promise continuation run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
