/**
 * How long to wait before retry `n` (0 for the first retry):
 * - `full`: `U(0, min(baseMs·2^n, capMs))` (AWS's "full jitter");
 * - `decorrelated`: `min(capMs, U(baseMs, 3·previous))`, starting from `previous = baseMs`
 *   (AWS's "decorrelated jitter": each wait grows from the last one, not from `n`).
 */
export type BackoffOptions =
  | { readonly kind: 'full'; readonly baseMs: number; readonly capMs: number }
  | { readonly kind: 'decorrelated'; readonly baseMs: number; readonly capMs: number };

/** The ceiling of full jitter for retry `n`: `min(baseMs·2^n, capMs)`, with no overflow for large `n`. */
export function fullJitterCeiling(baseMs: number, capMs: number, n: number): number {
  // 2^n past 2^1000 is Infinity anyway; min() keeps it at the cap.
  return Math.min(capMs, baseMs * 2 ** Math.min(n, 1000));
}

/**
 * The wait before retry `n`, given the previous wait (decorrelated only) and one draw `r` in
 * [0, 1) of the injected random source. Pure.
 */
export function backoffDelay(b: BackoffOptions, n: number, previousMs: number, r: number): number {
  if (b.kind === 'full') return r * fullJitterCeiling(b.baseMs, b.capMs, n);
  const prev = Math.max(previousMs, b.baseMs);
  return Math.min(b.capMs, b.baseMs + r * (prev * 3 - b.baseMs));
}
