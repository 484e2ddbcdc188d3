// One conformance suite for every store: the same operation sequences (fc.commands) run against
// MemoryStore and a real RedisStore, on one virtual clock, must give the same takes (granted or
// not, and the same wait) and the same snapshots after every step. The memory store is held to
// hand-worked numbers by store.contract.test.ts; here the shared store is held to it.
//
// Tolerance, defined up front: both stores do the same double operations in the same order
// (the Lua is the memory store's arithmetic, numbers cross as %.17g), so they agree to the last
// bit; anything beyond TOLERANCE (relative, floor 1 ms or token) is a bug. A grant against a
// refusal is never within tolerance.
//
// Each property is also run against deliberately broken stores (mutants of the Redis store)
// and must fail on every one: a property that cannot fail is a bug.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { type LevelAdjustment, type LevelSpec, MemoryStore, type RateStore } from './store.js';
import { type BrokenStore, breakStore, MUTANTS } from './test-support/broken-store.js';
import { openStores } from './test-support/stores.js';

const TOLERANCE = 1e-9;
const same = (a: number, b: number): boolean =>
  a === b || Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));

interface World {
  readonly specs: readonly LevelSpec[];
  readonly memory: MemoryStore;
  readonly other: RateStore;
  now: number;
}

// Which levels one take or peek covers: alone, an account with its key, two keys at once.
const LEVEL_SETS = [[0], [1], [2], [0, 1], [0, 2], [0, 1, 2]] as const;

const rate = fc.constantFrom(0.5, 1, 3, 7, 10, 19.8, 250);
const burst = fc.constantFrom(1, 2, 2.5, 3, 5, 20);
const cost = fc.constantFrom(0.5, 1, 2, 3);
const dt = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 3000 }),
  fc.constantFrom(1000 / 3, 0.5, 1e-3, 1000 / 7),
);

function agree(what: string, a: number, b: number): void {
  assert.ok((a === 0) === (b === 0) && same(a, b), `${what}: memory ${a}, other ${b}`);
}

async function sameSnapshots(w: World, after: string): Promise<void> {
  for (const spec of w.specs) {
    const m = await w.memory.snapshot(spec, w.now);
    const o = await w.other.snapshot(spec, w.now);
    agree(`${after}: tokens of ${spec.id}`, m.tokens, o.tokens);
    agree(`${after}: rate of ${spec.id}`, m.ratePerSecond, o.ratePerSecond);
    agree(`${after}: pausedUntil of ${spec.id}`, m.pausedUntil, o.pausedUntil);
  }
}

type Command = fc.AsyncCommand<World, World>;

class Take implements Command {
  constructor(
    readonly set: number,
    readonly cost: number,
    readonly dt: number,
    readonly peekOnly: boolean,
  ) {}
  check = () => true;
  async run(_: World, w: World): Promise<void> {
    w.now += this.dt;
    const levels = LEVEL_SETS[this.set]!.map((i) => w.specs[i]!);
    const op = this.peekOnly ? 'peek' : 'take';
    agree(
      this.toString(),
      await w.memory[op](levels, this.cost, w.now),
      await w.other[op](levels, this.cost, w.now),
    );
    await sameSnapshots(w, this.toString());
  }
  toString = () =>
    `${this.peekOnly ? 'peek' : 'take'}([${LEVEL_SETS[this.set]}], ${this.cost}) after ${this.dt} ms`;
}

interface AdjustPlan {
  readonly ratePerSecond: number | undefined;
  readonly pauseIn: number | undefined;
  readonly capTokens: number | undefined;
  readonly fill: boolean;
  readonly budget: { readonly count: number; readonly in: number } | undefined;
}

class Adjust implements Command {
  constructor(
    readonly level: number,
    readonly plan: AdjustPlan,
    readonly dt: number,
  ) {}
  check = () => true;
  async run(_: World, w: World): Promise<void> {
    w.now += this.dt;
    const p = this.plan;
    const a: LevelAdjustment = {
      ...(p.ratePerSecond === undefined ? {} : { ratePerSecond: p.ratePerSecond }),
      ...(p.pauseIn === undefined ? {} : { pauseUntil: w.now + p.pauseIn }),
      ...(p.capTokens === undefined ? {} : { capTokens: p.capTokens }),
      ...(p.fill ? { fill: true } : {}),
      ...(p.budget === undefined ? {} : { budget: { count: p.budget.count, until: w.now + p.budget.in } }),
    };
    const spec = w.specs[this.level]!;
    await w.memory.adjust(spec, a, w.now);
    await w.other.adjust(spec, a, w.now);
    await sameSnapshots(w, this.toString());
  }
  toString = () => `adjust(${this.level}, ${JSON.stringify(this.plan)}) after ${this.dt} ms`;
}

const commands = fc.commands(
  [
    fc
      .tuple(fc.nat(LEVEL_SETS.length - 1), cost, dt, fc.boolean())
      .map(([s, c, d, p]) => new Take(s, c, d, p)),
    fc
      .tuple(
        fc.nat(2),
        fc.record({
          ratePerSecond: fc.option(rate, { nil: undefined }),
          pauseIn: fc.option(fc.integer({ min: 0, max: 5000 }), { nil: undefined }),
          capTokens: fc.option(fc.constantFrom(-1, 0, 0.5, 1, 2.7, 10), { nil: undefined }),
          fill: fc.boolean(),
          budget: fc.option(
            fc.record({ count: fc.integer({ min: -1, max: 5 }), in: fc.integer({ min: 0, max: 3000 }) }),
            {
              nil: undefined,
            },
          ),
        }),
        dt,
      )
      .map(([l, p, d]) => new Adjust(l, p, d)),
  ],
  { maxCommands: 40, size: 'large' },
);

const specsArb = fc.tuple(rate, burst, rate, burst, rate, burst).map(([r0, b0, r1, b1, r2, b2]) => [
  { id: 'acct', ratePerSecond: r0, burst: b0 },
  { id: 'key:a', ratePerSecond: r1, burst: b1 },
  { id: 'key:b', ratePerSecond: r2, burst: b2 },
]);

/** Every step gives the same answer on the other store as on the memory store. */
function storesAgree(makeOther: () => RateStore) {
  return fc.asyncProperty(specsArb, commands, async (specs, cmds) => {
    const world: World = { specs, memory: new MemoryStore(), other: makeOther(), now: 1_000_000 };
    await fc.asyncModelRun(() => ({ model: world, real: world }), cmds);
  });
}

const stores = await openStores();
after(() => stores.close());
const redis = stores.kinds.find((k) => k.name === 'redis');

describe('store conformance: RedisStore against MemoryStore', {
  skip: redis === undefined && 'redis-server not installed',
}, () => {
  it('the same takes, peeks and snapshots after any sequence of takes, peeks and adjustments', async () => {
    await fc.assert(
      storesAgree(() => redis!.make()),
      { numRuns: 150 },
    );
  });

  it('holds on a store wrapped as the broken ones are, with nothing broken (the control)', async () => {
    await fc.assert(
      storesAgree(() => breakStore(redis!.make(), 'nothing')),
      { numRuns: 50 },
    );
  });

  for (const mutant of MUTANTS) {
    it(`fails on a broken store: ${mutant}`, async () => {
      const r = await fc.check(
        storesAgree(() => breakStore(redis!.make(), mutant as BrokenStore)),
        {
          numRuns: 1000,
          endOnFailure: true,
        },
      );
      assert.ok(r.failed, `the property held on a store that ${mutant}`);
    });
  }
});
