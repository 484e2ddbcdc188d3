/**
 * The vendor's window (ms) after one answer: the one it declares (IETF `RateLimit-Policy`
 * `w`, carried as `windowSeconds`) from the first answer that says it on; until then the
 * longest reset it reported (a fixed window's reset is at most the window; a sliding log's, the
 * time until its oldest request leaves; a token bucket's, its time to full), read short by a
 * round trip and coarse when the reset is in whole seconds. A window longer than the longest
 * pause is a quota of a day or so, not a rate: not taken, declared or not. A pure decision,
 * tested as a table in vendor-window.test.ts.
 */
export function windowAfter(input: {
  /** The window so far (0: none yet). */
  readonly windowMs: number;
  /** The window so far is the vendor's declared one. */
  readonly declared: boolean;
  /** The window this answer declares (ms), if it does. */
  readonly declaredMs?: number | undefined;
  /** This answer's reset (ms), if it has one. */
  readonly resetMs?: number | undefined;
  readonly maxPauseMs: number;
}): { readonly windowMs: number; readonly declared: boolean } {
  const { windowMs, declared, declaredMs, resetMs, maxPauseMs } = input;
  if (declaredMs !== undefined && Number.isFinite(declaredMs) && declaredMs > 0 && declaredMs <= maxPauseMs)
    return { windowMs: declaredMs, declared: true };
  if (declared) return { windowMs, declared };
  if (resetMs !== undefined && resetMs > windowMs && resetMs <= maxPauseMs)
    return { windowMs: resetMs, declared: false };
  return { windowMs, declared };
}
