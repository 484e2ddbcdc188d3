import type { Clock } from './clock.js';
import type { AbortSignalLike } from './signal.js';

/**
 * Waits `ms` on the injected clock (one timer, no polling). An abort ends the wait early and
 * resolves: the caller looks at `signal.aborted` to tell the two apart.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignalLike): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = clock.setTimer(ms, done);
    signal?.addEventListener('abort', done, { once: true });
  });
}
