import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { VirtualClock } from './virtual-clock.js';

interface Op {
  readonly delay: number;
  readonly cancel: boolean;
}

describe('VirtualClock', () => {
  it('fires every timer not cancelled, in time order and ties in the order set, each at its own instant', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1000 }),
        fc.array(
          fc.record({
            delay: fc.oneof(fc.integer({ min: 0, max: 50 }), fc.constant(-5)),
            cancel: fc.boolean(),
          }),
          {
            maxLength: 60,
          },
        ),
        async (start, ops: Op[]) => {
          const clock = new VirtualClock(start);
          const fired: Array<{ id: number; at: number }> = [];
          ops.forEach((op, id) => {
            const h = clock.setTimer(op.delay, () => fired.push({ id, at: clock.now() }));
            if (op.cancel) h.cancel();
          });
          await clock.run();
          // The oracle: a stable sort by due time of the timers left (negative delays are due now).
          const expected = ops
            .map((op, id) => ({ id, at: start + Math.max(0, op.delay), cancel: op.cancel }))
            .filter((t) => !t.cancel)
            .sort((a, b) => a.at - b.at)
            .map(({ id, at }) => ({ id, at }));
          assert.deepEqual(fired, expected);
          assert.equal(clock.fired, expected.length);
          assert.equal(clock.now(), expected.at(-1)?.at ?? start);
        },
      ),
    );
  });

  it('run(until) fires only what is due by then and leaves time at until; the rest fires later', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 100 }), { maxLength: 30 }),
        fc.integer({ min: 0, max: 120 }),
        async (delays, until) => {
          const clock = new VirtualClock();
          const fired: number[] = [];
          for (const d of delays) clock.setTimer(d, () => fired.push(d));
          await clock.run(until);
          const due = delays.filter((d) => d <= until).sort((a, b) => a - b);
          assert.deepEqual(fired, due);
          assert.equal(clock.now(), until);
          await clock.run();
          assert.deepEqual(
            fired,
            [...delays].sort((a, b) => a - b),
          );
        },
      ),
    );
  });

  it('promise continuations run at the instant that woke them, and a timer they set lands in order (after one set earlier for the same instant)', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    const sleep = (ms: number) => new Promise<void>((r) => clock.setTimer(ms, r));
    void (async () => {
      await sleep(10);
      log.push(`a woke at ${clock.now()}`);
      await Promise.resolve();
      await Promise.resolve();
      log.push(`a continued at ${clock.now()}`);
      await sleep(5);
      log.push(`a again at ${clock.now()}`);
    })();
    clock.setTimer(12, () => log.push(`b at ${clock.now()}`));
    clock.setTimer(15, () => log.push(`c at ${clock.now()}`));
    await clock.run();
    assert.deepEqual(log, ['a woke at 10', 'a continued at 10', 'b at 12', 'c at 15', 'a again at 15']);
  });

  it('a timer cancelled by an earlier timer at the same instant does not fire', async () => {
    const clock = new VirtualClock();
    const fired: string[] = [];
    let later: { cancel(): void } | undefined;
    clock.setTimer(5, () => {
      fired.push('first');
      later?.cancel();
    });
    later = clock.setTimer(5, () => fired.push('later'));
    await clock.run();
    assert.deepEqual(fired, ['first']);
    assert.equal(clock.fired, 1);
  });
});

describe('VirtualClock, the tests’ API on the same rule', () => {
  it('advance fires what is due within ms and moves time to now + ms; pending counts what is left', async () => {
    const clock = new VirtualClock(100);
    const fired: number[] = [];
    clock.setTimer(5, () => fired.push(clock.now()));
    const h = clock.setTimer(7, () => fired.push(-1));
    clock.setTimer(20, () => fired.push(clock.now()));
    h.cancel();
    assert.equal(clock.pending, 2);
    await clock.advance(10);
    assert.deepEqual(fired, [105]);
    assert.equal(clock.now(), 110);
    assert.equal(clock.pending, 1);
    await clock.advanceTo(90); // never backwards
    assert.equal(clock.now(), 110);
    await clock.runAll();
    assert.deepEqual(fired, [105, 120]);
  });

  it('nextDue: when the next timer not cancelled is due; undefined when none is armed', async () => {
    const clock = new VirtualClock(100);
    assert.equal(clock.nextDue(), undefined);
    const first = clock.setTimer(5, () => {});
    clock.setTimer(20, () => {});
    assert.equal(clock.nextDue(), 105);
    first.cancel();
    assert.equal(clock.nextDue(), 120);
    await clock.advanceTo(120);
    assert.equal(clock.nextDue(), undefined);
  });

  it('between instants it waits for a nextTick queued from a microtask (the simulator’s rule)', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimer(1, () => {
      void Promise.resolve().then(() => process.nextTick(() => log.push(`tick at ${clock.now()}`)));
    });
    clock.setTimer(2, () => log.push(`next instant at ${clock.now()}`));
    await clock.run();
    assert.deepEqual(log, ['tick at 1', 'next instant at 2']);
  });

  it('every timer due at one instant fires before any continuation of that instant runs', async () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimer(3, () => void Promise.resolve().then(() => log.push('continuation')));
    clock.setTimer(3, () => log.push('second timer'));
    await clock.advance(3);
    assert.deepEqual(log, ['second timer', 'continuation']);
  });

  it('runAll throws when timers keep coming past maxTimers', async () => {
    const clock = new VirtualClock();
    const again = (): void => void clock.setTimer(1, again);
    again();
    await assert.rejects(clock.runAll(50), /still timers after 50/);
    assert.equal(clock.fired, 50);
  });

  it('advanceSync fires due timers in order without draining microtasks', () => {
    const clock = new VirtualClock();
    const log: string[] = [];
    clock.setTimer(2, () => void Promise.resolve().then(() => log.push('later')));
    clock.setTimer(1, () => log.push('one'));
    clock.setTimer(9, () => log.push('nine'));
    clock.advanceSync(5);
    assert.deepEqual(log, ['one']);
    assert.equal(clock.now(), 5);
  });
});

describe('VirtualClock: advance, advanceSync and runAll keep run()’s order', () => {
  // Timers that may set a follow-up timer (a continuation that sleeps again).
  const plan = fc.array(
    fc.record({
      delay: fc.integer({ min: 0, max: 40 }),
      again: fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
    }),
    { maxLength: 25 },
  );
  const arm = (
    clock: VirtualClock,
    ops: ReadonlyArray<{ delay: number; again: number | undefined }>,
    log: string[],
  ): void => {
    for (const [id, op] of ops.entries())
      clock.setTimer(op.delay, () => {
        log.push(`${id}@${clock.now()}`);
        const again = op.again;
        if (again !== undefined)
          void Promise.resolve().then(() => clock.setTimer(again, () => log.push(`${id}'@${clock.now()}`)));
      });
  };

  it('advancing in any steps fires what run() fires, at the same instants, in the same order', async () => {
    await fc.assert(
      fc.asyncProperty(
        plan,
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 10 }),
        async (ops, steps) => {
          const a = new VirtualClock();
          const want: string[] = [];
          arm(a, ops, want);
          await a.run();
          const b = new VirtualClock();
          const got: string[] = [];
          arm(b, ops, got);
          for (const s of steps) await b.advance(s);
          await b.runAll();
          assert.deepEqual(got, want);
        },
      ),
    );
  });

  it('advanceSync fires the timers run() fires when no continuation sets one', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 25 }),
        fc.integer({ min: 0, max: 50 }),
        async (delays, until) => {
          const ops = delays.map((delay) => ({ delay, again: undefined }));
          const a = new VirtualClock();
          const want: string[] = [];
          arm(a, ops, want);
          await a.run(until);
          const b = new VirtualClock();
          const got: string[] = [];
          arm(b, ops, got);
          b.advanceSync(until);
          assert.deepEqual(got, want);
          assert.equal(b.now(), a.now());
        },
      ),
    );
  });
});

describe('VirtualClock: what a timer holds', () => {
  // A full collection on demand, without starting node with --expose-gc.
  const collect = (): void => {
    setFlagsFromString('--expose-gc');
    (runInNewContext('gc') as () => void)();
  };
  const turn = () => new Promise<void>((r) => setImmediate(r));

  it('a cancelled timer, and one that fired, let go of their callback before the cancelled one’s instant comes', async () => {
    const clock = new VirtualClock();
    const refs: Array<WeakRef<object>> = [];
    // Each callback closes over a value of its own; the clock is the only other holder.
    const arm = (ms: number): { cancel(): void } => {
      const state = { claim: new Array(1000).fill(0) };
      refs.push(new WeakRef(state));
      return clock.setTimer(ms, () => state.claim.push(1));
    };
    const cancelled = arm(60_000);
    const fired = arm(10);
    clock.setTimer(20, () => cancelled.cancel());
    await clock.run(30);
    assert.equal(clock.pending, 0);
    // Both handles are still held here; WeakRefs are cleared only after the job that made them.
    await turn();
    collect();
    await turn();
    assert.deepEqual(
      refs.map((r) => r.deref() === undefined),
      [true, true],
    );
    assert.ok(fired !== undefined && cancelled !== undefined);
  });
});
