// Windows vendors configure, in ms. A reset is read short (it was measured at the vendor
// before the answer came back, and the router takes half the round trip off it), so the
// longest reset seen is rounded up to the next of these when it is within 30 % of it. Read
// too long, the rate is lower than it could be; read too short, every window is overrun.
export const ROUND_WINDOWS_MS: readonly number[] = [
  100, 200, 250, 500, 1000, 2000, 3000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000,
  900_000, 1_800_000, 3_600_000,
];

/** The window a vendor most likely configured, given the longest reset it reported (ms). */
export function roundWindow(ms: number): number {
  for (const w of ROUND_WINDOWS_MS) if (w >= ms) return w <= ms * 1.3 ? w : ms;
  return ms;
}

/** The window vendors configure nearest to `ms`. */
export function nearestWindow(ms: number): number {
  let best = ROUND_WINDOWS_MS[0]!;
  for (const w of ROUND_WINDOWS_MS) if (Math.abs(w - ms) < Math.abs(best - ms)) best = w;
  return best;
}
