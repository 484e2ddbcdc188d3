/** A cancellable timer returned by {@link Clock.setTimer}. */
export interface TimerHandle {
  /** Cancels the timer; calling it after the timer fired, or twice, does nothing. */
  cancel(): void;
  /**
   * Lets the process exit while this timer is pending (a background timer: a breaker's health
   * probe). A clock whose timers never hold a process (a virtual one) need not have it.
   */
  unref?(): void;
}

/**
 * Where time comes from. Every rxgate policy takes one, so a test or the simulator drives them
 * all on one {@link VirtualClock}; the default, {@link systemClock}, reads the process clock.
 */
export interface Clock {
  /** Milliseconds on a monotonic time line (the system clock uses epoch milliseconds). */
  now(): number;
  /** Calls `callback` once, `delayMs` from now. */
  setTimer(delayMs: number, callback: () => void): TimerHandle;
}

// setTimeout overflows at 2^31-1 ms (about 24.8 days) and would fire at once.
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The process clock: epoch-aligned and monotonic (it does not jump with wall-clock changes).
 * A delay past 24.8 days is armed in steps instead of firing at once. A timer keeps the process
 * alive (someone awaits it: a retry's wait, a queued acquire) until its owner unrefs it
 * (`handle.unref()`, as the breaker does for its background timers).
 */
// The process's time origin is fixed at start; read once (its getter allocates on every read).
const ORIGIN = performance.timeOrigin;

export const systemClock: Clock = {
  now: () => ORIGIN + performance.now(),
  setTimer(delayMs, callback) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    let unref = false;
    const arm = (remaining: number): void => {
      const step = Math.min(Math.max(0, remaining || 0), MAX_TIMEOUT_MS);
      handle = setTimeout(() => {
        if (remaining > MAX_TIMEOUT_MS) arm(remaining - MAX_TIMEOUT_MS);
        else callback();
      }, step);
      if (unref) handle.unref();
    };
    arm(delayMs);
    return {
      cancel: () => {
        if (handle !== undefined) clearTimeout(handle);
        handle = undefined;
      },
      unref: () => {
        unref = true;
        handle?.unref();
      },
    };
  },
};
