/**
 * After a bare throttle (a vendor that sends no quota headers), in `hold` mode: the rate to hold
 * just under (`wMax`), the rate to start again from (`cut`) and how long the climb from one to
 * the other takes (`climbMs`), given the rate the vendor refused (RateController's throttled
 * rate). A pure decision, tested as a table in retry-after-rate.test.ts.
 *
 * A throttle cuts to `beta` of the refused rate and climbs back in `recoverMs`. But when a
 * Retry-After paused us again before that climb was over, the climb is what failed: each
 * further throttle costs a whole pause (a second or more, rounded up to whole seconds, on a
 * vendor whose window may be a second: on a 1 s window of 20/s, 20 requests), while a climb
 * that stays a little under the vendor's rate costs a request or two a second. The climb back
 * from the cut then takes `holdMs`, so the rate spends that long between the cut and the
 * refused rate, where the vendor's rate is, instead of reaching the refused rate again within
 * seconds and being paused there. The caller passes the rate in force as the refused one then.
 */
export function throttleCut(input: {
  /** The rate the vendor refused. */
  readonly refused: number;
  /** A Retry-After paused us again before the last climb was over. */
  readonly pausedAgain: boolean;
  readonly beta: number;
  readonly minRate: number;
  readonly recoverMs: number;
  readonly holdMs: number;
}): { readonly wMax: number; readonly cut: number; readonly climbMs: number } {
  const { refused, pausedAgain, beta, minRate, recoverMs, holdMs } = input;
  return {
    wMax: refused,
    cut: Math.max(minRate, refused * beta),
    climbMs: pausedAgain ? holdMs : recoverMs,
  };
}
