// Deliberately broken stores: each wraps a working one and breaks one rule of the RateStore
// contract, for the conformance properties to show they fail on it.
import type { LevelAdjustment, LevelSnapshot, LevelSpec, RateStore } from '../store.js';
import { quiet } from './stores.js';

export const MUTANTS = [
  'forgets pauses',
  'forgets budgets',
  'spends level by level (not all or nothing)',
  'rounds waits up to whole milliseconds',
  'ignores the cost (takes one token)',
  'peeks 0 (says everything could go now)',
] as const;
export type BrokenStore = (typeof MUTANTS)[number];

/** `how` breaks one rule; `nothing` breaks none (the control: the properties hold on it). */
export function breakStore(
  store: RateStore,
  how: BrokenStore | 'nothing',
): RateStore & { quiet(): Promise<void> } {
  return {
    quiet: () => quiet(store),
    async take(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
      if (how === 'spends level by level (not all or nothing)') {
        let wait = 0;
        for (const l of levels) wait = Math.max(wait, await store.take([l], cost, now));
        return wait;
      }
      const wait = await store.take(levels, how === 'ignores the cost (takes one token)' ? 1 : cost, now);
      return how === 'rounds waits up to whole milliseconds' ? Math.ceil(wait) : wait;
    },
    async peek(levels: readonly LevelSpec[], cost: number, now: number): Promise<number> {
      if (how === 'peeks 0 (says everything could go now)') return 0;
      const wait = await store.peek(levels, how === 'ignores the cost (takes one token)' ? 1 : cost, now);
      return how === 'rounds waits up to whole milliseconds' ? Math.ceil(wait) : wait;
    },
    adjust(level: LevelSpec, a: LevelAdjustment, now: number): Promise<void> {
      const { pauseUntil, budget, ...rest } = a;
      return store.adjust(
        level,
        {
          ...rest,
          ...(pauseUntil === undefined || how === 'forgets pauses' ? {} : { pauseUntil }),
          ...(budget === undefined || how === 'forgets budgets' ? {} : { budget }),
        },
        now,
      );
    },
    snapshot(level: LevelSpec, now: number): Promise<LevelSnapshot> {
      return store.snapshot(level, now);
    },
    evictIdle(now: number): Promise<number> {
      return store.evictIdle(now);
    },
  };
}
