/**
 * The window of a counter (a fixed window, or one that starts at the first request after the
 * last one ended) that reports Limit and Remaining but no reset, read from one of its windows:
 * when it began, when a refusal's Retry-After says it ends, and how much of ours it took in
 * between. A pure decision, tested as a table in refusal-window.test.ts.
 *
 * Read from its resets alone (reset-period.ts), such a window takes four of them: at 100 per
 * 10 s, 40 s. A counter with an expiry never shows it in phase (each window starts at our first
 * request after the last one ended, a pause's rounding late), and its intervals run a second
 * over the window (the Retry-After in whole seconds): held-out zoo, 100 per 10 s, each window
 * until the fourth cost that second (96.0-97.8 %).
 */

/** Where a window's end lies: after `lo`, before `hi`. */
export interface WindowEnd {
  readonly lo: number;
  readonly hi: number;
}

/**
 * Where the window in force ends, by a refusal's Retry-After: the vendor measured it somewhere
 * between the send and the answer, and rounded it to a whole second one way or the other (most
 * round up, some down). An HTTP-date, read against our clock, comes in milliseconds but is no
 * finer: read to the millisecond, the zoo's counters and logs that send one were read as 2 s
 * windows and more (99.0 -> 95.5-97.3 %).
 */
export function refusalEnd(sentAt: number, answeredAt: number, retryAfterMs: number): WindowEnd {
  return { lo: sentAt + retryAfterMs - 1000, hi: answeredAt + retryAfterMs + 1000 };
}

/**
 * The window vendors configure (`windows`) that alone lies between the least and the most the
 * window can last: it began after `startLo` and no later than `startHi` (the sends of the answers
 * either side of the reset, and no earlier than the last window's end, at its least) and ends
 * within `end`. Only when the vendor's level (what it counted of ours since the reset plus what
 * it had left) stayed at its `limit` at every answer from the reset and at the refusal, where it
 * had taken its limit of ours (within a twentieth, 1 at least, of it and of each other): a counter begun afresh at the
 * reset counts ours and nothing else. One whose level rose freed some meanwhile (a bucket, a
 * sliding log or counter, whose Retry-After says when one more fits, not when a window that
 * began at the reset ends: a sliding counter of 5 per 2 s, its Retry-After to its next 2 s
 * boundary, was read as 5 s); one whose level fell counts others' requests too, or had not begun
 * afresh at the reset. Undefined when none or
 * more than one fit (by a Retry-After, known to two seconds and more, a window of 1 or 2 s never
 * fits alone; by where the vendor last refused and first accepted again, it may), or the one that
 * fits is over `maxWindowMs`.
 */
export function windowFromRefusal(input: {
  readonly startLo: number;
  readonly startHi: number;
  readonly end: WindowEnd;
  /**
   * The least and the most the vendor said it had counted of ours in the window plus had left,
   * over its answers from the reset, and what it took of ours by the refusal.
   */
  readonly level: { readonly least: number; readonly most: number };
  readonly limit: number;
  readonly windows: readonly number[];
  readonly maxWindowMs?: number;
}): number | undefined {
  const { startLo, startHi, end, level, limit, windows } = input;
  const slack = Math.max(1, Math.round(limit / 20));
  if (level.least < limit - slack || level.most > limit + slack || level.most - level.least > slack)
    return undefined;
  const least = end.lo - startHi;
  const most = end.hi - startLo;
  const max = input.maxWindowMs ?? Number.POSITIVE_INFINITY;
  let found: number | undefined;
  for (const w of windows) {
    if (w <= least || w >= most) continue;
    if (found !== undefined) return undefined;
    found = w;
  }
  return found !== undefined && found <= max ? found : undefined;
}
