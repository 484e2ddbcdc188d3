import { type Random, seededRandom } from '@rxgate/core';

/** A seedable random source: mulberry32, floats in [0, 1) (defined in @rxgate/core). */
export type { Random };

export const seeded: (seed: number) => Random = seededRandom;

/** An independent stream derived from a seed and a name (vendor, traffic, router…). */
export function stream(seed: number, name: string): Random {
  let h = seed >>> 0;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x9e3779b1) >>> 0;
  return seeded(h);
}

/** A standard normal sample (Box–Muller). */
export function normal(random: Random): number {
  const u = 1 - random();
  const v = random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** A log-normal latency with the given median and 99th percentile. */
export function logNormal(random: Random, median: number, p99: number): number {
  const sigma = Math.log(Math.max(p99, median * 1.0001) / median) / 2.3263;
  return median * Math.exp(sigma * normal(random));
}

/** Picks a key of `weights` with probability proportional to its weight. */
export function weighted<K extends string>(random: Random, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as Array<[K, number]>;
  const total = entries.reduce((a, [, w]) => a + w, 0);
  let x = random() * total;
  for (const [k, w] of entries) {
    x -= w;
    if (x < 0) return k;
  }
  return entries.at(-1)![0];
}

/** An exponential inter-arrival time for a Poisson process of `ratePerSecond`, in ms. */
export function exponentialMs(random: Random, ratePerSecond: number): number {
  return (-Math.log(1 - random()) / ratePerSecond) * 1000;
}
