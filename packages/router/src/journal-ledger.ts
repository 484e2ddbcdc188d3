import { type Clock, systemClock } from '@rxgate/ratelimit';
import { answer, ClaimTable } from './claim-table.js';
import { type CommitState, UNSENT } from './commit-state.js';
import { FileJournal, isJournalLost, type Journal } from './journal.js';
import { keep, restore } from './kept-outcome.js';
import { type Admission, advancesGeneration, closes, type Ledger, type LedgerView } from './ledger.js';
import { deserializeOutcome, type Outcome, serializeOutcome } from './outcome.js';

export interface JournalLedgerOptions {
  /**
   * How long a finished claim is remembered, from when it finished; older ones are dropped at
   * compaction, and a resubmission after that is sent again (the payer's own duplicate check
   * answers it). Claims still pinned are never dropped.
   * @default 7 days (payers' usual duplicate window)
   */
  readonly retainFinishedMs?: number;
  /** Compact once this many lines were appended since the last compaction and they outnumber the live claims twice. @default 10_000 */
  readonly compactAfterLines?: number;
  readonly clock?: Clock;
}

// Journal lines: a pin, an unpin, a closing outcome, a generation (after a payer's reject or
// an accepted reversal: no stored outcome, unsent, generation g). Each names the claim by its
// identity key.
type Line =
  | { p: string; n: string }
  | { u: string }
  | { d: string; at: number; o: string }
  | { g: string; n: number; at: number };

/**
 * The durable embedded ledger: every pin is written ahead, and synced, before the send it
 * guards; finished outcomes too. At open the journal is replayed: claims that were in flight
 * when the process died come back *unowned but pinned* — the next submission of such a claim
 * goes only to the node it may be committed on. One process owns a journal; processes that
 * share a quota share the Redis ledger instead.
 */
export class JournalLedger implements Ledger {
  readonly #journal: Journal;
  readonly #clock: Clock;
  readonly #retainMs: number;
  readonly #compactAfter: number;
  readonly #table = new ClaimTable();
  #appended = 0;
  #compacting: Promise<void> | undefined;
  // A rewrite of the whole state after the journal's file was lost: the one under way, and
  // the one that the changes made since it took its snapshot share.
  #restoring: Promise<void> | undefined;
  #restoreNext: Promise<void> | undefined;
  /** The replay: every method waits for it (it is done before the first claim is admitted). */
  readonly #ready: Promise<void>;
  #replayed = false;

  /**
   * The ledger over `journal`, replayed in the background; its methods wait for the replay.
   * {@link JournalLedger.open} returns it replayed (and fails if the journal cannot be read).
   */
  constructor(journal: Journal, options: JournalLedgerOptions = {}) {
    this.#journal = journal;
    this.#clock = options.clock ?? systemClock;
    this.#retainMs = options.retainFinishedMs ?? 7 * 24 * 3600 * 1000;
    this.#compactAfter = options.compactAfterLines ?? 10_000;
    this.#ready = this.#replay().then(() => {
      this.#replayed = true;
    });
    // A failed replay is answered at each call (the router then sends nothing).
    this.#ready.catch(() => undefined);
  }

  /** Replays `journal` (dropping what compaction would drop) and returns the ledger. */
  static async open(journal: Journal, options: JournalLedgerOptions = {}): Promise<JournalLedger> {
    const ledger = new JournalLedger(journal, options);
    await ledger.#ready;
    return ledger;
  }

  async #replay(): Promise<void> {
    const lines = await this.#journal.read();
    for (const text of lines) {
      let line: Line;
      try {
        line = JSON.parse(text) as Line;
      } catch {
        continue; // compaction below drops it
      }
      this.#apply(line);
    }
    if (lines.length > 0) await this.#compact();
  }

  #apply(line: Line): void {
    if ('p' in line) this.#table.entry(line.p).commit = { kind: 'pinned', node: line.n };
    else if ('u' in line) this.#table.entry(line.u).commit = UNSENT;
    else if ('d' in line) {
      const e = this.#table.entry(line.d);
      e.outcome = keep(deserializeOutcome(line.o));
      e.finishedAt = line.at;
    } else if ('g' in line) {
      const e = this.#table.entry(line.g);
      e.outcome = undefined;
      e.commit = UNSENT;
      e.generation = line.n;
      e.finishedAt = line.at;
    }
  }

  begin(identity: string): Promise<Admission> {
    if (!this.#replayed) return this.#ready.then(() => this.begin(identity));
    return Promise.resolve(this.#table.begin(identity));
  }

  async pin(identity: string, node: string): Promise<void> {
    if (this.#table.pin(identity, node)) await this.#write({ p: identity, n: node });
  }

  async unpin(identity: string): Promise<void> {
    if (this.#table.unpin(identity)) await this.#write({ u: identity });
  }

  async finish(identity: string, outcome: Outcome): Promise<void> {
    const at = this.#clock.now();
    const waiters = this.#table.finish(identity, outcome, at);
    try {
      if (closes(outcome)) await this.#write({ d: identity, at, o: serializeOutcome(outcome) });
      else if (advancesGeneration(outcome))
        await this.#write({ g: identity, n: this.#table.lookup(identity).generation, at });
    } finally {
      answer(waiters, outcome);
    }
  }

  async reopen(identity: string): Promise<void> {
    if (!this.#replayed) await this.#ready;
    const at = this.#clock.now();
    const n = this.#table.reopen(identity, at);
    if (n >= 0) await this.#write({ g: identity, n, at });
  }

  async lookup(identity: string): Promise<LedgerView> {
    if (!this.#replayed) await this.#ready;
    return this.#table.lookup(identity);
  }

  /** Where the claim may be committed now (for tests and tools). */
  commitOf(identity: string): CommitState {
    return this.#table.commitOf(identity);
  }

  async #write(line: Line): Promise<void> {
    try {
      await this.#journal.append([JSON.stringify(line)]);
    } catch (e) {
      if (!isJournalLost(e)) throw e;
      // The file was removed or moved away: the table (this change included) is written
      // whole to a new file at the path before the change counts as durable.
      await this.#restore();
      return;
    }
    if (++this.#appended >= this.#compactAfter && this.#appended > 2 * this.#table.size)
      this.#compacting ??= this.#compact().finally(() => {
        this.#compacting = undefined;
      });
  }

  /** A rewrite of the whole table that starts after every change made so far. */
  #restore(): Promise<void> {
    this.#restoreNext ??= (async () => {
      await this.#restoring?.catch(() => undefined);
      await this.#compacting?.catch(() => undefined);
      // The snapshot is taken synchronously at the start of #compact: a change after this
      // point waits for the next restore.
      this.#restoreNext = undefined;
      const run = this.#compact();
      this.#restoring = run;
      try {
        await run;
      } finally {
        if (this.#restoring === run) this.#restoring = undefined;
      }
    })();
    return this.#restoreNext;
  }

  /** Rewrites the journal as the live claims: pins of open claims, outcomes inside the window. */
  async #compact(): Promise<void> {
    this.#appended = 0;
    const horizon = this.#clock.now() - this.#retainMs;
    const lines: string[] = [];
    for (const [id, e] of this.#table.entries()) {
      const settled = e.outcome !== undefined || (e.generation > 0 && e.commit.kind === 'unsent');
      if (settled && e.finishedAt < horizon && !e.owned) {
        this.#table.delete(id);
        continue;
      }
      // The generation first: on replay it clears the outcome the next line restores.
      if (e.generation > 0) lines.push(JSON.stringify({ g: id, n: e.generation, at: e.finishedAt }));
      if (e.outcome !== undefined)
        lines.push(JSON.stringify({ d: id, at: e.finishedAt, o: serializeOutcome(restore(e.outcome)) }));
      else if (e.commit.kind === 'pinned') lines.push(JSON.stringify({ p: id, n: e.commit.node }));
      else if (!e.owned && e.waiters === undefined && e.generation === 0) this.#table.delete(id);
    }
    await this.#journal.rewrite(lines);
  }

  /** Claims the ledger holds (finished within the window, or open). */
  get size(): number {
    return this.#table.size;
  }

  async close(): Promise<void> {
    await this.#ready.catch(() => undefined);
    await this.#compacting;
    await this.#journal.close();
  }
}

/**
 * The durable embedded ledger in a file: a {@link JournalLedger} over a {@link FileJournal}
 * at `path` (its directory is made when missing), replayed before it resolves.
 */
export async function openFileLedger(
  path: string,
  options: JournalLedgerOptions = {},
): Promise<JournalLedger> {
  return JournalLedger.open(new FileJournal(path), options);
}
