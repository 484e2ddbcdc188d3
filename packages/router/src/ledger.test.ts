// The ledgers as state machines (fast-check model-based): the memory ledger, and the journal
// ledger with restarts (a new ledger replayed from the same journal) and compaction.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import fc from 'fast-check';
import type { CommitState } from './commit-state.js';
import { FileJournal, MemoryJournal } from './journal.js';
import { JournalLedger } from './journal-ledger.js';
import type { Ledger } from './ledger.js';
import { MemoryLedger } from './memory-ledger.js';
import type { Outcome } from './outcome.js';

const DAY = 24 * 3600 * 1000;
const outcome = (id: string, kind: 'paid' | 'dead-lettered' | 'needs-reconciliation'): Outcome =>
  (kind === 'paid'
    ? { kind, amounts: {}, node: 'p', claimKey: id, correlationId: id, path: [], attempts: 1, elapsedMs: 1 }
    : kind === 'dead-lettered'
      ? {
          kind,
          reason: 'x',
          lane: 'batch',
          claimKey: id,
          correlationId: id,
          path: [],
          attempts: 1,
          elapsedMs: 1,
        }
      : {
          kind,
          reason: 'x',
          node: 'p',
          claimKey: id,
          correlationId: id,
          path: [],
          attempts: 1,
          elapsedMs: 1,
        }) as Outcome;

interface Model {
  claims: Map<string, { owned: boolean; commit: CommitState; paidAt: number | undefined }>;
}
interface Real {
  ledger: Ledger;
  journal: MemoryJournal | undefined;
  clock: VirtualClock;
}
const entry = (m: Model, id: string) => {
  let e = m.claims.get(id);
  if (e === undefined) {
    e = { owned: false, commit: { kind: 'unsent' }, paidAt: undefined };
    m.claims.set(id, e);
  }
  return e;
};

class Begin implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: string) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const e = entry(m, this.id);
    const a = await r.ledger.begin(this.id);
    if (e.paidAt !== undefined) assert.equal(a.kind, 'done');
    else if (e.owned) assert.equal(a.kind, 'in-flight');
    else {
      assert.equal(a.kind, 'owner');
      assert.deepEqual(
        a.kind === 'owner' && a.commit,
        e.commit,
        'the owner learns where the claim may be committed',
      );
      e.owned = true;
    }
  }
  toString = () => `begin(${this.id})`;
}
class Pin implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: string,
    readonly node: string,
  ) {}
  check = (m: Readonly<Model>) => m.claims.get(this.id)?.owned === true;
  async run(m: Model, r: Real) {
    await r.ledger.pin(this.id, this.node);
    entry(m, this.id).commit = { kind: 'pinned', node: this.node };
  }
  toString = () => `pin(${this.id}, ${this.node})`;
}
class PinNotOwned implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: string) {}
  check = (m: Readonly<Model>) =>
    m.claims.get(this.id)?.owned !== true && m.claims.get(this.id)?.paidAt === undefined;
  async run(_m: Model, r: Real) {
    await assert.rejects(r.ledger.pin(this.id, 'x'), { name: 'LostOwnershipError' });
  }
  toString = () => `pin-not-owned(${this.id})`;
}
class Unpin implements fc.AsyncCommand<Model, Real> {
  constructor(readonly id: string) {}
  check = (m: Readonly<Model>) => m.claims.get(this.id)?.owned === true;
  async run(m: Model, r: Real) {
    await r.ledger.unpin(this.id);
    entry(m, this.id).commit = { kind: 'unsent' };
  }
  toString = () => `unpin(${this.id})`;
}
class Finish implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly id: string,
    readonly kind: 'paid' | 'dead-lettered' | 'needs-reconciliation',
  ) {}
  check = (m: Readonly<Model>) => m.claims.get(this.id)?.owned === true;
  async run(m: Model, r: Real) {
    await r.ledger.finish(this.id, outcome(this.id, this.kind));
    const e = entry(m, this.id);
    e.owned = false;
    if (this.kind === 'paid') e.paidAt = r.clock.now();
  }
  toString = () => `finish(${this.id}, ${this.kind})`;
}
/** kill -9 and start again: the journal is replayed; nobody owns anything. */
class Restart implements fc.AsyncCommand<Model, Real> {
  constructor(readonly daysLater: number) {}
  check = (_m: Readonly<Model>) => true;
  async run(m: Model, r: Real) {
    if (r.journal === undefined) return;
    await r.clock.advance(this.daysLater * DAY);
    r.ledger = await JournalLedger.open(r.journal, {
      clock: r.clock,
      retainFinishedMs: 7 * DAY,
      compactAfterLines: 5,
    });
    for (const [id, e] of m.claims) {
      e.owned = false;
      // Finished claims older than the window are forgotten; pinned open claims never are.
      if (e.paidAt !== undefined && e.paidAt < r.clock.now() - 7 * DAY) m.claims.delete(id);
    }
  }
  toString = () => `restart(+${this.daysLater}d)`;
}

const ids = fc.constantFrom('a', 'b', 'c');
const commands = [
  ids.map((id) => new Begin(id)),
  fc.tuple(ids, fc.constantFrom('primary', 'secondary')).map(([id, n]) => new Pin(id, n)),
  ids.map((id) => new PinNotOwned(id)),
  ids.map((id) => new Unpin(id)),
  fc
    .tuple(
      ids,
      fc.constantFrom('paid', 'dead-lettered', 'needs-reconciliation') as fc.Arbitrary<
        'paid' | 'dead-lettered' | 'needs-reconciliation'
      >,
    )
    .map(([id, k]) => new Finish(id, k)),
];

describe('ledgers against a model (fc.commands)', () => {
  it('MemoryLedger: ownership, the commit state and final outcomes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { size: '+1' }), async (cmds) => {
        const clock = new VirtualClock(0);
        await fc.asyncModelRun(
          () => ({
            model: { claims: new Map() },
            real: { ledger: new MemoryLedger(), journal: undefined, clock },
          }),
          cmds,
        );
      }),
      { numRuns: 300 },
    );
  });

  it('JournalLedger: the same, across restarts (replay) and compaction', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.commands([...commands, fc.constantFrom(0, 1, 8).map((d) => new Restart(d))], { size: '+1' }),
        async (cmds) => {
          const clock = new VirtualClock(0);
          const journal = new MemoryJournal();
          const ledger = await JournalLedger.open(journal, {
            clock,
            retainFinishedMs: 7 * DAY,
            compactAfterLines: 5,
          });
          await fc.asyncModelRun(
            () => ({ model: { claims: new Map() }, real: { ledger, journal, clock } }),
            cmds,
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('FileJournal', () => {
  it('survives a torn last line, rewrites atomically, and keeps appends made during a rewrite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-journal-'));
    try {
      const path = join(dir, 'sub', 'ledger.jsonl');
      const j = new FileJournal(path);
      await j.append(['{"p":"a","n":"primary"}', '{"p":"b","n":"primary"}']);
      await j.close();
      await writeFile(path, `${await readFile(path, 'utf8')}{"p":"c","n":"sec`); // a crash mid-write
      const k = new FileJournal(path);
      assert.deepEqual(await k.read(), ['{"p":"a","n":"primary"}', '{"p":"b","n":"primary"}']);
      const rewrite = k.rewrite(['{"p":"a","n":"primary"}']);
      const during = k.append(['{"u":"a"}']);
      await Promise.all([rewrite, during]);
      assert.deepEqual(await k.read(), ['{"p":"a","n":"primary"}', '{"u":"a"}']);
      await k.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a journal ledger over a file: pins come back after a restart, finished claims too', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rxgate-journal-'));
    try {
      const path = join(dir, 'ledger.jsonl');
      const first = await JournalLedger.open(new FileJournal(path));
      await first.begin('x');
      await first.pin('x', 'secondary');
      await first.begin('y');
      await first.finish('y', outcome('y', 'paid'));
      // No close: the process dies here.
      const second = await JournalLedger.open(new FileJournal(path));
      assert.deepEqual(await second.begin('x'), {
        kind: 'owner',
        commit: { kind: 'pinned', node: 'secondary' },
        generation: 0,
      });
      assert.equal((await second.begin('y')).kind, 'done');
      await second.close();
      await first.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
