/** A cancellable timer returned by {@link Clock.setTimer}. */
export interface TimerHandle {
  cancel(): void;
}

/**
 * Where time comes from: `now()` in milliseconds plus a cancellable timer. The same structural
 * shape as every rxgate policy's clock, so one virtual clock drives them all.
 */
export interface Clock {
  now(): number;
  setTimer(delayMs: number, callback: () => void): TimerHandle;
}

/** The process clock: epoch-aligned and monotonic. Timers are unref'd: a breaker never keeps a process alive. */
export const systemClock: Clock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(delayMs, callback) {
    const handle = setTimeout(callback, Math.min(Math.max(0, delayMs), 2_147_483_647));
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};
