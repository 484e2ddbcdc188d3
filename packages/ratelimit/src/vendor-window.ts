/**
 * The vendor's window (ms) after one answer: the one it declares (IETF `RateLimit-Policy`
 * `w`, carried as `windowSeconds`) from the first answer that says it on; until then the
 * longest reset it reported (a fixed window's reset is at most the window; a sliding log's, the
 * time until its oldest request leaves; a token bucket's, its time to full), read short by a
 * round trip and coarse when the reset is in whole seconds. A window longer than the longest
 * pause is a quota of a day or so, not a rate: not taken, declared or not; nor is a reset under
 * MIN_RESET_WINDOW_MS (one that says "now", see nextFitAfter). A pure decision, tested as a
 * table in vendor-window.test.ts.
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
  if (resetMs !== undefined && resetMs >= MIN_RESET_WINDOW_MS && resetMs > windowMs && resetMs <= maxPauseMs)
    return { windowMs: resetMs, declared: false };
  return { windowMs, declared };
}

/**
 * The shortest reset read as a window (ms): less is a reset that says "now" (see nextFitAfter).
 * No vendor configures a window that short (the shortest in ROUND_WINDOWS_MS is 100 ms), and a
 * next-fit reset of `0.001` that reaches the limiter unreduced (no round trip said) is 1 ms: read
 * as a window, 100 per 1 ms.
 */
export const MIN_RESET_WINDOW_MS = 10;

/**
 * Whether a vendor's reset is the time until one more request fits rather than a window's end
 * (a sliding counter as gateways in the Cloudflare and nginx style estimate a window write it,
 * `X-RateLimit-Reset: 0.001` while there is room), after one answer. Such a reset measures no
 * window: read as the longest reset, the vendor's rate is never read while it has room (100 per
 * 10 s sent at 5/s: exactly half its quota, the advertised limit never taken), and once it is
 * spent the reset is the time to the next request (a window of 100-800 ms for 100 per 10 s:
 * 6-15 % throttled). Its Remaining says the rate, as a vendor's without a reset does
 * (RemainingOnlyRate).
 *
 * Marked (`latched`) by an answer that went through saying half its limit or less is left with
 * a reset under MIN_RESET_WINDOW_MS, before any reset said a window: every other model says a
 * window before half its limit is gone (a fixed window's reset is its end, a sliding log's a
 * window away at first, a bucket's time to full half a window once half is spent, each read
 * short by half a round trip only). A fixed window whose first answers all come from the last
 * moments of a window (a backlog sent at start-up, steady round trips) says that too, so the
 * mark is undone for good (`ruledOut`) by an answer that went through with a request or more
 * left and a reset of MIN_RESET_WINDOW_MS or more: a next-fit reset is under it whenever one
 * more fits. A declared window (IETF `w`) is the window, whatever its resets. A pure decision,
 * tested as a table in vendor-window.test.ts.
 */
export function nextFitAfter(input: {
  /** Marked so far, and ruled out so far. */
  readonly latched: boolean;
  readonly ruledOut: boolean;
  /** The window read so far (0: none yet), and whether it (or this answer's) is declared. */
  readonly windowMs: number;
  readonly declared: boolean;
  readonly throttled: boolean;
  readonly limit: number | undefined;
  readonly remaining: number | undefined;
  /** The reset as the limiter reads it (less half the round trip), if the answer had one. */
  readonly resetMs: number | undefined;
}): { readonly latched: boolean; readonly ruledOut: boolean } {
  const { latched, ruledOut, windowMs, declared, throttled, limit, remaining, resetMs } = input;
  if (ruledOut) return { latched: false, ruledOut };
  const answered = !throttled && remaining !== undefined && resetMs !== undefined && resetMs >= 0;
  if (latched) {
    const room = answered && remaining >= 1 && resetMs >= MIN_RESET_WINDOW_MS;
    return room ? { latched: false, ruledOut: true } : { latched, ruledOut };
  }
  const marks =
    answered &&
    !declared &&
    windowMs === 0 &&
    limit !== undefined &&
    remaining >= 1 &&
    remaining <= limit / 2 &&
    resetMs < MIN_RESET_WINDOW_MS;
  return { latched: marks, ruledOut };
}

/**
 * A fixed window began between the last answer and this one: its reset jumped up by more than
 * half the window (a sliding log's or a bucket's reset creeps; a fixed window's starts over).
 * Only on a window of 4 s or more: resets in whole seconds, less half a round trip that varies
 * by as much, jump about on a window of a second or two (20/s over 1 s, p50 300 ms: a phase
 * read from them cut pauses short, 99.0 -> 86.5 %), and say nothing of its phase anyway.
 */
export function windowBegan(prevResetMs: number | undefined, resetMs: number, windowMs: number): boolean {
  return prevResetMs !== undefined && windowMs >= MIN_PHASE_WINDOW_MS && resetMs > prevResetMs + windowMs / 2;
}

/** The shortest declared window whose phase is read (see windowBegan). */
export const MIN_PHASE_WINDOW_MS = 4000;

/**
 * When the vendor's windows begin, as far as we know, after a window was seen to begin `now`:
 * every such sighting is late (the answer was counted after the window began, and came back
 * after that), so the earliest of them, brought a whole number of windows forward, is kept.
 */
export function phaseAfter(beganAt: number | undefined, now: number, windowMs: number): number {
  if (beganAt === undefined || !(windowMs > 0)) return now;
  const projected = beganAt + Math.round((now - beganAt) / windowMs) * windowMs;
  return Math.min(projected, now);
}

/**
 * A reset sharpened by the phase of the vendor's declared window: once a window was seen to
 * begin (`beganAt`, when the first answer from it came back, a little after its true start),
 * the next ones begin a window apart. A coarse reset (the IETF `t` is whole seconds, rounded
 * up) reads up to a second long, and an answer that was on its way when its window ended reads
 * a reset that has passed already; a pause or a budget until it wastes up to a second of every
 * window it ends (100 per 10 s, IETF: 94.6 %). So the latest window start the phase puts
 * within the two seconds before the reset said (the second `t` rounds, and a second for the
 * answer's age) is taken, or none when it has passed; otherwise the reset stands. A pure
 * decision, tested as a table in vendor-window.test.ts.
 */
export function resetByPhase(input: {
  readonly resetMs: number;
  readonly now: number;
  readonly windowMs: number;
  readonly beganAt: number | undefined;
}): number {
  const { resetMs, now, windowMs, beganAt } = input;
  if (beganAt === undefined || !(windowMs > 0) || beganAt > now) return resetMs;
  const last = beganAt + Math.floor((now - beganAt) / windowMs) * windowMs;
  for (const start of [last + windowMs, last]) {
    const toStart = start - now;
    if (toStart <= resetMs && toStart > resetMs - 2000) return Math.max(0, Math.min(resetMs, toStart));
  }
  return resetMs;
}

/**
 * Whether an answer whose reset is in whole seconds (the IETF `t`, an integer `X-RateLimit-Reset`)
 * comes from a window that is over, for a vendor that counts a request as it arrives (an API
 * gateway's limit, in front of the work): its window ends within the second before the
 * whole-second reset it wrote (`t` rounds up), counted from the count, and the count was a round
 * trip ago at most. So once the round trip is the reset written or more, that window is over.
 *
 * A `Remaining: 0` (less the requests in flight) pauses until its reset, or sets what goes
 * before it (adaptive.ts); from such an answer, neither. On a 1 s window `t` is always 1, and
 * half the round trip taken off it says nothing of where in the window the answer was counted:
 * an answer back after a second or more with little left read a reset of 0.4-0.5 s, and the
 * limiter paused that long at the start of a window that was whole (a fixed window of 20/s,
 * round trips of p50 300 ms and p99 1.5 s: 83.6-89.7 %, 0.65-1.48 % throttled).
 *
 * The premise is the vendor's: one that counts half a round trip after the send, or just before
 * it answers, may still be in that window (a review's harness: 14 of 43 and 39 of 39 such answers
 * were). adaptive.ts takes such answers at their word again, for good, once a request admitted
 * while one of them said nothing was left is refused.
 *
 * `resetMs` is as the limiter reads it, the vendor's reset less half the round trip (see
 * `signalAsAnswered` in `@rxgate/core`): a reset not in whole seconds once that half is added
 * back (to the microsecond) is an exact one, left to `WindowEnd`. A pure decision, tested as a
 * table in vendor-window.test.ts.
 */
export function coarseResetEnded(input: { readonly resetMs: number; readonly roundTripMs: number }): boolean {
  const { resetMs, roundTripMs } = input;
  if (!(resetMs > 0 && roundTripMs >= 0 && Number.isFinite(roundTripMs))) return false;
  const written = resetMs + roundTripMs / 2;
  const seconds = Math.round(written / 1000);
  if (seconds < 1 || Math.abs(written - seconds * 1000) > 1e-3) return false;
  return roundTripMs >= written;
}
