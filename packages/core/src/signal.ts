/**
 * The part of `AbortSignal` the policies use: a real `AbortSignal` is one, and so is any
 * cheaper object with these members (the router's per-claim signal).
 */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { readonly once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
