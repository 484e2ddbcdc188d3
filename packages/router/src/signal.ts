import type { AbortSignalLike } from '@rxgate/ratelimit';

/**
 * What the router hands a transport, the limiter and its waits to say "stop" is an
 * `AbortSignalLike` (`@rxgate/ratelimit`): the part of `AbortSignal` they use. A real
 * `AbortSignal` is one; the router's own is much cheaper to make (Node 20 spends ~2 µs building
 * an `AbortController`'s signal), and undici accepts it as is. A transport that needs a real
 * `AbortSignal` (for `fetch`, say) calls {@link toAbortSignal}.
 */
export type { AbortSignalLike };

/** A one-shot abort signal: listeners run once, in the order added, when it aborts. */
export class ClaimSignal implements AbortSignalLike {
  aborted = false;
  reason: unknown = undefined;
  #listeners: Array<() => void> | undefined;

  addEventListener(type: 'abort', listener: () => void): void {
    if (type !== 'abort' || this.aborted) return;
    if (this.#listeners === undefined) this.#listeners = [listener];
    else this.#listeners.push(listener);
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const l = this.#listeners;
    if (type !== 'abort' || l === undefined) return;
    const i = l.indexOf(listener);
    if (i >= 0) l.splice(i, 1);
  }

  /** Aborts with `reason` (an `AbortError` `DOMException`, as `AbortController` gives, by default). */
  abort(reason?: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason ?? new DOMException('This operation was aborted', 'AbortError');
    const l = this.#listeners;
    this.#listeners = undefined;
    if (l !== undefined) for (const f of l) f();
  }
}

/** A real `AbortSignal` that aborts with `signal` (the same signal when it already is one). */
export function toAbortSignal(signal: AbortSignalLike): AbortSignal {
  if (signal instanceof AbortSignal) return signal;
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller.signal;
}
