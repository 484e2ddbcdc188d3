import type { Clock, TimerHandle } from '../clock.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A virtual clock that fires one timer at a time and waits for `settle` after each, so a
 * limiter on an asynchronous store finishes what a timer set off (its round trips) before the
 * next timer fires, as the memory store does at once. Time never moves while it settles.
 */
export class SteppingClock implements Clock {
  #now = 0;
  #seq = 0;
  #timers: Timer[] = [];

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const t: Timer = { at: this.#now + Math.max(0, delayMs), seq: ++this.#seq, fn, cancelled: false };
    this.#timers.push(t);
    return {
      cancel: () => {
        t.cancelled = true;
      },
    };
  }

  /** Timers still armed. */
  get pending(): number {
    return this.#timers.filter((t) => !t.cancelled).length;
  }

  /** Fires every timer due by `target`, in time order (then arming order), settling after each. */
  async advanceTo(target: number, settle: () => Promise<void>): Promise<void> {
    // What was set off before (a release's pass) arms its timers first.
    await settle();
    for (;;) {
      this.#timers = this.#timers.filter((t) => !t.cancelled);
      let next: Timer | undefined;
      for (const t of this.#timers)
        if (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq)) next = t;
      if (next === undefined || next.at > target) break;
      this.#timers.splice(this.#timers.indexOf(next), 1);
      if (next.at > this.#now) this.#now = next.at;
      next.fn();
      await settle();
    }
    if (target > this.#now) this.#now = target;
  }
}
