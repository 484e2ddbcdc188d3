/** A cancellable timer returned by {@link Clock.setTimer}. */
export interface TimerHandle {
  /** Cancels the timer; calling it after the timer fired, or twice, does nothing. */
  cancel(): void;
}

/**
 * Where time comes from. Every policy takes one, so a test or the simulator can drive it on a
 * virtual clock; the default reads the process clock.
 */
export interface Clock {
  /** Milliseconds on a monotonic time line (the system clock uses epoch milliseconds). */
  now(): number;
  /** Calls `callback` once, `delayMs` from now. */
  setTimer(delayMs: number, callback: () => void): TimerHandle;
}

// setTimeout overflows at 2^31-1 ms (about 24.8 days) and would fire at once.
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The process clock: epoch-aligned and monotonic (it does not jump with wall-clock changes). */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(delayMs, callback) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    const arm = (remaining: number): void => {
      const step = Math.min(Math.max(0, remaining), MAX_TIMEOUT_MS);
      handle = setTimeout(() => {
        if (remaining > MAX_TIMEOUT_MS) arm(remaining - MAX_TIMEOUT_MS);
        else callback();
      }, step);
    };
    arm(delayMs);
    return {
      cancel: () => {
        if (handle !== undefined) clearTimeout(handle);
        handle = undefined;
      },
    };
  },
};

/**
 * The part of `AbortSignal` the limiters use: a real `AbortSignal` is one, and so is any
 * cheaper object with these members (the router's per-claim signal).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
