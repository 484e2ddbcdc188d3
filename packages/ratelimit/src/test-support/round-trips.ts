import { seededRandom } from '@rxgate/core';

/**
 * Round trips drawn from a log-normal of median `medianMs` with one in a hundred over `p99Ms`
 * (120 ms and 600 ms: a slow API), seeded: answers come back out of order.
 */
export function logNormalRoundTrips(seed: number, medianMs = 120, p99Ms = 600): () => number {
  const r = seededRandom(seed);
  const sigma = Math.log(p99Ms / medianMs) / 2.326;
  return () => medianMs * Math.exp(sigma * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r()));
}
