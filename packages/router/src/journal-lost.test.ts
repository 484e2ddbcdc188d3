// The file ledger when its file goes away under it: removed, its directory deleted, or moved
// aside. A pin acknowledged into an unlinked file is no pin (a restart reads the path), so the
// ledger writes its whole state to a new file at the path before a change counts as durable.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FileJournal, isJournalLost, JournalLostError } from './journal.js';
import { openFileLedger } from './journal-ledger.js';
import type { Outcome } from './outcome.js';

const paid = (id: string): Outcome => ({
  kind: 'paid',
  amounts: {},
  node: 'primary',
  claimKey: id,
  correlationId: id,
  path: [],
  attempts: 1,
  elapsedMs: 1,
});

async function withDir(run: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'rxgate-journal-lost-'));
  try {
    await run(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Pays `a`, lets `lose` take the file away, pins `b` on the fallback, and reads the path back after a "restart". */
async function afterLoss(dir: string, lose: (path: string) => Promise<void>) {
  const path = join(dir, 'state', 'ledger.jsonl');
  const ledger = await openFileLedger(path);
  await ledger.begin('a');
  await ledger.pin('a', 'primary');
  await ledger.finish('a', paid('a'));
  await lose(path);
  await ledger.begin('b');
  await ledger.pin('b', 'fallback');
  await ledger.begin('c');
  await ledger.pin('c', 'primary');
  await ledger.unpin('c');
  // No close: a kill -9 leaves what was acknowledged, nothing more.
  const restarted = await openFileLedger(path);
  const result = {
    a: await restarted.begin('a'),
    b: restarted.commitOf('b'),
    c: restarted.commitOf('c'),
  };
  await restarted.close();
  await ledger.close();
  return result;
}

describe('file ledger: the file taken away while it runs', () => {
  for (const [what, lose] of [
    ['the file removed', (p: string) => rm(p)],
    ['its directory deleted', (p: string) => rm(join(p, '..'), { recursive: true })],
    ['the file moved aside', (p: string) => rename(p, `${p}.old`)],
  ] as const) {
    it(`${what}: the next pin is written, with every finished claim, to a new file at the path`, async () => {
      await withDir(async (dir) => {
        const r = await afterLoss(dir, lose);
        assert.equal(r.a.kind, 'done', 'the claim paid before the loss is still answered from the ledger');
        assert.deepEqual(r.b, { kind: 'pinned', node: 'fallback' });
        assert.deepEqual(r.c, { kind: 'unsent' });
      });
    });
  }

  it('a FileJournal refuses to acknowledge lines written to a file no longer at its path', async () => {
    await withDir(async (dir) => {
      const path = join(dir, 'j.jsonl');
      const j = new FileJournal(path);
      await j.read();
      await j.append(['one']);
      await rm(path);
      const err = await j.append(['two']).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof JournalLostError && isJournalLost(err), String(err));
      // A new, empty file made at the path is not the journal either.
      const again = await j.append(['three']).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isJournalLost(again), String(again));
      await j.rewrite(['one', 'two', 'three']);
      await j.append(['four']);
      assert.equal(await readFile(path, 'utf8'), 'one\ntwo\nthree\nfour\n');
      await j.close();
    });
  });
});
