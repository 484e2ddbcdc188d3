// One Scheduler for every store: the same operations on `createLimiter` over MemoryStore and
// over a real RedisStore (caller time, one stepping virtual clock each) must admit the same
// acquires at the same instants, refuse the same ones for the same reasons, answer tryAcquire
// and predictWait alike and show the same snapshots: lanes, batchShare, the account queue
// across keys, deadline fail-fast and revalidation, concurrency caps and adaptation included.
// The memory limiter is held to its own definition by properties.test.ts and the unit tests;
// here the Redis one is held to the memory one.
//
// Tolerance, defined up front: predicted waits and snapshot numbers agree within TOLERANCE
// (relative, floor 1 ms or token); admissions, refusals and their instants must be equal.
//
// The property also runs against deliberately broken stores and must fail on each.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { isRateLimitError } from './errors.js';
import type { Lane } from './events.js';
import type { Lease } from './lease.js';
import { createLimiter, type Limiter, type LimiterOptions } from './limiter.js';
import type { QuotaSignal } from './quota-signal.js';
import { MemoryStore, type RateStore } from './store.js';
import { type BrokenStore, breakStore } from './test-support/broken-store.js';
import { SteppingClock } from './test-support/stepping-clock.js';
import { openStores, quiet } from './test-support/stores.js';

const TOLERANCE = 1e-9;
const same = (a: number, b: number): boolean =>
  a === b || Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));

interface Side {
  readonly name: string;
  readonly limiter: Limiter;
  readonly clock: SteppingClock;
  readonly store: RateStore;
  /** What became of each acquire, by id: `admitted@t` or `<code>@t`. */
  readonly log: Map<number, string>;
  readonly leases: Map<number, Lease>;
  readonly aborts: Map<number, AbortController>;
}

interface World {
  readonly sides: readonly [Side, Side];
  nextId: number;
}

const KEYS = ['a', 'b', 'c'] as const;

function side(name: string, store: RateStore, options: Omit<LimiterOptions, 'clock' | 'store'>): Side {
  const clock = new SteppingClock();
  return {
    name,
    limiter: createLimiter({ ...options, clock, store }),
    clock,
    store,
    log: new Map(),
    leases: new Map(),
    aborts: new Map(),
  };
}

const settle = (s: Side) => quiet(s.store);

async function settleAll(w: World): Promise<void> {
  for (const s of w.sides) await settle(s);
}

function sameLogs(w: World, after: string): void {
  const [m, r] = w.sides;
  assert.deepEqual(
    [...r.log].sort((x, y) => x[0] - y[0]),
    [...m.log].sort((x, y) => x[0] - y[0]),
    `${after}: outcomes differ`,
  );
}

// What the runs of the property exercised, counted on the memory side (so a property that
// stopped reaching a path, say deadline revalidation, fails instead of passing quietly).
const exercised = new Map<string, number>();
const count = (s: Side, what: string) => {
  if (s.name === 'memory') exercised.set(what, (exercised.get(what) ?? 0) + 1);
};

const outcome = (e: unknown): string =>
  isRateLimitError(e) ? `${e.code}${'when' in e ? `:${String(e.when)}` : ''}` : `other:${String(e)}`;

type Command = fc.AsyncCommand<World, World>;

abstract class Step implements Command {
  check = () => true;
  abstract apply(s: Side, w: World, id: number): Promise<unknown>;
  async run(_: World, w: World): Promise<void> {
    const id = w.nextId++;
    const answers: unknown[] = [];
    for (const s of w.sides) {
      // A refusal (an invalid cost, a typed error) is an answer to compare like any other.
      answers.push(await this.apply(s, w, id).catch((e: unknown) => `threw ${outcome(e)}`));
      await settle(s);
    }
    this.compare(answers[0], answers[1]);
    sameLogs(w, this.toString());
  }
  compare(m: unknown, r: unknown): void {
    assert.deepEqual(r, m, `${this.toString()}: memory ${JSON.stringify(m)}, redis ${JSON.stringify(r)}`);
  }
  abstract toString(): string;
}

class Acquire extends Step {
  constructor(
    readonly key: string,
    readonly lane: Lane,
    readonly cost: number,
    readonly deadlineIn: number | undefined,
    readonly abortable: boolean,
  ) {
    super();
  }
  async apply(s: Side, _: World, id: number): Promise<undefined> {
    const ac = this.abortable ? new AbortController() : undefined;
    if (ac) s.aborts.set(id, ac);
    const at = s.clock.now();
    s.limiter
      .acquire({
        key: this.key,
        lane: this.lane,
        cost: this.cost,
        ...(this.deadlineIn === undefined ? {} : { deadline: s.clock.now() + this.deadlineIn }),
        ...(ac ? { signal: ac.signal } : {}),
      })
      .then(
        (lease) => {
          count(s, s.clock.now() > at ? `admitted after waiting (${this.lane})` : 'admitted at once');
          s.log.set(id, `admitted@${s.clock.now()}`);
          s.leases.set(id, lease);
        },
        (e: unknown) => {
          count(s, outcome(e));
          s.log.set(id, `${outcome(e)}@${s.clock.now()}`);
        },
      );
    return undefined;
  }
  toString = () =>
    `acquire(${this.key}, ${this.lane}, cost ${this.cost}, deadline +${this.deadlineIn}${this.abortable ? ', abortable' : ''})`;
}

class TryAcquire extends Step {
  constructor(
    readonly key: string,
    readonly lane: Lane,
    readonly cost: number,
  ) {
    super();
  }
  async apply(s: Side, _: World, id: number): Promise<boolean> {
    const lease = await s.limiter.tryAcquire({ key: this.key, lane: this.lane, cost: this.cost });
    if (lease !== undefined) s.leases.set(id, lease);
    return lease !== undefined;
  }
  toString = () => `tryAcquire(${this.key}, ${this.lane}, cost ${this.cost})`;
}

class PredictWait extends Step {
  constructor(
    readonly key: string,
    readonly lane: Lane,
    readonly cost: number,
  ) {
    super();
  }
  apply(s: Side): Promise<number> {
    return s.limiter.predictWait({ key: this.key, lane: this.lane, cost: this.cost });
  }
  override compare(m: unknown, r: unknown): void {
    if (typeof m !== 'number' || typeof r !== 'number') {
      super.compare(m, r);
      return;
    }
    assert.ok(same(m, r), `${this.toString()}: memory ${m}, redis ${r}`);
  }
  toString = () => `predictWait(${this.key}, ${this.lane}, cost ${this.cost})`;
}

class Observe extends Step {
  constructor(
    readonly signal: QuotaSignal,
    readonly key: string | undefined,
  ) {
    super();
  }
  async apply(s: Side): Promise<undefined> {
    await s.limiter.observe(this.signal, this.key === undefined ? undefined : { key: this.key });
    return undefined;
  }
  toString = () =>
    `observe(${JSON.stringify(this.signal)}${this.key === undefined ? '' : `, key ${this.key}`})`;
}

class Advance extends Step {
  constructor(readonly ms: number) {
    super();
  }
  async apply(s: Side): Promise<undefined> {
    await s.clock.advanceTo(s.clock.now() + this.ms, () => settle(s));
    return undefined;
  }
  toString = () => `advance(${this.ms})`;
}

/** Aborts, or releases, the n-th acquire still waiting, or lease still held (the same on both sides). */
class Let extends Step {
  constructor(
    readonly what: 'abort' | 'release',
    readonly pick: number,
  ) {
    super();
  }
  #id: number | undefined;
  async apply(s: Side, w: World): Promise<number | undefined> {
    // The memory side (first) chooses, so both act on the same acquire or lease.
    if (s === w.sides[0]) {
      const ids =
        this.what === 'abort' ? [...s.aborts.keys()].filter((id) => !s.log.has(id)) : [...s.leases.keys()];
      this.#id = ids.length === 0 ? undefined : ids[this.pick % ids.length];
    }
    const id = this.#id;
    if (id === undefined) return undefined;
    if (this.what === 'abort') s.aborts.get(id)?.abort();
    else {
      s.leases.get(id)?.release();
      s.leases.delete(id);
    }
    return id;
  }
  toString = () => `${this.what}(#${this.pick})`;
}

class Snapshot extends Step {
  constructor(readonly key: string | undefined) {
    super();
  }
  apply(s: Side) {
    return s.limiter.snapshot(this.key);
  }
  override compare(m: unknown, r: unknown): void {
    const a = m as Record<string, number>;
    const b = r as Record<string, number>;
    for (const f of ['tokens', 'ratePerSecond', 'pausedUntil', 'waiting', 'inFlight'])
      assert.ok(same(a[f]!, b[f]!), `${this.toString()}: ${f} memory ${a[f]}, redis ${b[f]}`);
  }
  toString = () => `snapshot(${this.key ?? 'account'})`;
}

const key = fc.constantFrom(...KEYS);
const lane = fc.constantFrom<Lane>('pos', 'batch');
const cost = fc.constantFrom(1, 1, 2);
const signal: fc.Arbitrary<QuotaSignal> = fc.oneof(
  fc.constant({ throttled: true }),
  fc.integer({ min: 1, max: 3000 }).map((retryAfterMs) => ({ retryAfterMs, throttled: true })),
  fc
    .record({
      limit: fc.constantFrom(5, 10, 20),
      remaining: fc.integer({ min: 0, max: 12 }),
      reset: fc.integer({ min: 0, max: 2000 }),
    })
    .map(({ limit, remaining, reset }) => ({ limit, remaining, resetSeconds: reset / 1000 })),
  fc.record({ limit: fc.constantFrom(10, 20), remaining: fc.integer({ min: 0, max: 12 }) }),
);

const acquire = fc
  .tuple(key, lane, cost, fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }), fc.boolean())
  .map(([k, l, c, d, a]) => new Acquire(k, l, c, d, a));

const commands = fc.commands(
  [
    // Acquires three times as often as anything else: queues to schedule.
    acquire,
    acquire,
    acquire,
    fc.tuple(key, lane, cost).map(([k, l, c]) => new TryAcquire(k, l, c)),
    fc.tuple(key, lane, cost).map(([k, l, c]) => new PredictWait(k, l, c)),
    fc.tuple(signal, fc.option(key, { nil: undefined })).map(([s, k]) => new Observe(s, k)),
    fc
      .oneof(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 400, max: 5000 }))
      .map((ms) => new Advance(ms)),
    fc
      .tuple(fc.constantFrom<'abort' | 'release'>('abort', 'release'), fc.nat(5))
      .map(([w, p]) => new Let(w, p)),
    fc.option(key, { nil: undefined }).map((k) => new Snapshot(k)),
  ],
  { maxCommands: 40, size: 'large' },
);

const optionsArb: fc.Arbitrary<Omit<LimiterOptions, 'clock' | 'store'>> = fc
  .record({
    rate: fc.constantFrom(2, 5, 10, 20),
    burst: fc.constantFrom(1, 2, 5),
    concurrency: fc.option(fc.constantFrom(1, 3), { nil: undefined }),
    keyRate: fc.constantFrom(1, 4, 10),
    keyBurst: fc.constantFrom(1, 2, 3),
    batchShare: fc.constantFrom(0.1, 0.25, 0.5),
  })
  .map((o) => ({
    account: {
      ratePerSecond: o.rate,
      burst: o.burst,
      ...(o.concurrency === undefined ? {} : { concurrency: o.concurrency }),
    },
    perKey: {
      default: { ratePerSecond: o.keyRate, burst: o.keyBurst },
      overrides: { c: { ratePerSecond: 1, burst: 1, concurrency: 1 } },
    },
    lanes: { batchShare: o.batchShare },
  }));

/** The limiter over `makeOther()` does what the limiter over a MemoryStore does, step by step. */
function schedulersAgree(makeOther: () => RateStore) {
  return fc.asyncProperty(optionsArb, commands, (options, cmds) => bothRun(makeOther, options, cmds));
}

/** One run of `cmds` on both sides (the property's body); throws where they differ. */
async function bothRun(
  makeOther: () => RateStore,
  options: Omit<LimiterOptions, 'clock' | 'store'>,
  cmds: Iterable<Command>,
): Promise<void> {
  const world: World = {
    sides: [side('memory', new MemoryStore(), options), side('redis', makeOther(), options)],
    nextId: 0,
  };
  try {
    await fc.asyncModelRun(() => ({ model: world, real: world }), cmds);
    // Everything left ends the same way too.
    for (const s of world.sides) {
      // One at a time, as every step: a release while a pass awaits Redis is seen by that pass
      // from its next step on, so releases at once may admit in another (as fair) order.
      for (const l of s.leases.values()) {
        l.release();
        await settle(s);
      }
      await s.clock.advanceTo(s.clock.now() + 3_600_000, () => settle(s));
    }
    sameLogs(world, 'at the end');
  } finally {
    for (const s of world.sides) s.limiter.close();
    await settleAll(world);
  }
}

const stores = await openStores();
after(() => stores.close());
const redis = stores.kinds.find((k) => k.name === 'redis');

describe('scheduler conformance: createLimiter over RedisStore against MemoryStore', {
  skip: redis === undefined && 'redis-server not installed',
}, () => {
  it('the same admissions, refusals, tryAcquire and predictWait answers and snapshots', async () => {
    exercised.clear();
    await fc.assert(
      schedulersAgree(() => redis!.make()),
      { numRuns: 200 },
    );
    if (process.env.SHOW_EXERCISED)
      process.stderr.write(`${JSON.stringify(Object.fromEntries(exercised))}\n`);
    for (const path of [
      'admitted at once',
      'admitted after waiting (pos)',
      'admitted after waiting (batch)',
      'RXGATE_RATELIMIT_DEADLINE:predicted',
      'RXGATE_RATELIMIT_DEADLINE:passed-while-queued',
      'RXGATE_RATELIMIT_ABORTED',
      'RXGATE_RATELIMIT_CLOSED',
    ])
      assert.ok(
        (exercised.get(path) ?? 0) > 0,
        `no run reached: ${path} (${JSON.stringify([...exercised])})`,
      );
  });

  it("deadlines revalidated while a pass admits: a waiter admitted meanwhile is not counted twice, one whose take failed is still judged (random seeds' counterexamples)", async () => {
    // Found by `npm test` on a clean clone (FC_SEED=1827444849): the account's queue holds a
    // claim of key b (cost 2) ahead of two of key a; a throttle on b rejects it at once, the
    // pass that follows sends a's first to the store, and the revalidation, on its way to a's
    // second, counted the first as still ahead while the store had already spent its token:
    // predicted 2000 ms against a deadline 1000 ms off, rejected, where memory admits it at 1000.
    // The first fix skipped a waiter whose take was on its way (its take to decide), and another
    // seed (FC_SEED=1858939475) found the one whose take failed under an account pause of 1001 ms
    // left waiting, where memory rejects it at once (the second example).
    const options = {
      account: { ratePerSecond: 20, burst: 2 },
      perKey: {
        default: { ratePerSecond: 1, burst: 2 },
        overrides: { c: { ratePerSecond: 1, burst: 1, concurrency: 1 } },
      },
      lanes: { batchShare: 0.1 },
    };
    const examples: [Omit<LimiterOptions, 'clock' | 'store'>, Command[]][] = [
      [
        options,
        [
          new Acquire('a', 'pos', 1, undefined, false),
          new Acquire('b', 'pos', 2, 50, false),
          new Acquire('a', 'pos', 1, 100, false),
          new Acquire('a', 'pos', 1, 1000, false),
          new Observe({ retryAfterMs: 1, throttled: true }, 'b'),
        ],
      ],
      [
        {
          ...options,
          account: { ratePerSecond: 2, burst: 1 },
          perKey: { ...options.perKey, default: { ratePerSecond: 1, burst: 1 } },
        },
        [
          new Acquire('a', 'pos', 1, undefined, false),
          new Acquire('b', 'pos', 1, 500, false),
          new Acquire('c', 'pos', 1, 1000, false),
          new Observe({ retryAfterMs: 1001, throttled: true }, undefined),
        ],
      ],
    ];
    for (const [o, cmds] of examples) await bothRun(() => redis!.make(), o, cmds);
  });

  it('holds on a store wrapped as the broken ones are, with nothing broken (the control)', async () => {
    await fc.assert(
      schedulersAgree(() => breakStore(redis!.make(), 'nothing')),
      { numRuns: 50 },
    );
  });

  for (const mutant of [
    'forgets pauses',
    'spends level by level (not all or nothing)',
    'ignores the cost (takes one token)',
    'peeks 0 (says everything could go now)',
  ] as const satisfies readonly BrokenStore[]) {
    it(`fails on a broken store: ${mutant}`, async () => {
      const r = await fc.check(
        schedulersAgree(() => breakStore(redis!.make(), mutant)),
        {
          numRuns: 1000,
          endOnFailure: true,
        },
      );
      assert.ok(r.failed, `the property held on a store that ${mutant}`);
    });
  }
});
