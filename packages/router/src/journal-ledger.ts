import { type Clock, systemClock } from '@rxgate/ratelimit';
import { type CommitState, UNSENT } from './commit-state.js';
import { FileJournal, type Journal } from './journal.js';
import { type Admission, isFinal, type Ledger, LostOwnershipError } from './ledger.js';
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

interface Entry {
  owned: boolean;
  commit: CommitState;
  outcome: Outcome | undefined;
  finishedAt: number;
  waiters: Array<(o: Outcome | undefined) => void> | undefined;
}

// Journal lines: a pin, an unpin, a final outcome. Each names the claim by its identity key.
type Line = { p: string; n: string } | { u: string } | { d: string; at: number; o: string };

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
  readonly #claims = new Map<string, Entry>();
  #appended = 0;
  #compacting: Promise<void> | undefined;
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
    if ('p' in line) this.#entry(line.p).commit = { kind: 'pinned', node: line.n };
    else if ('u' in line) this.#entry(line.u).commit = UNSENT;
    else if ('d' in line) {
      const e = this.#entry(line.d);
      e.outcome = deserializeOutcome(line.o);
      e.finishedAt = line.at;
    }
  }

  #entry(identity: string): Entry {
    let e = this.#claims.get(identity);
    if (e === undefined) {
      e = { owned: false, commit: UNSENT, outcome: undefined, finishedAt: 0, waiters: undefined };
      this.#claims.set(identity, e);
    }
    return e;
  }

  begin(identity: string): Promise<Admission> {
    if (!this.#replayed) return this.#ready.then(() => this.begin(identity));
    const e = this.#entry(identity);
    if (e.outcome !== undefined) return Promise.resolve({ kind: 'done', outcome: e.outcome });
    if (e.owned) {
      const waiters = e.waiters ?? [];
      e.waiters = waiters;
      const wait = new Promise<Outcome | undefined>((resolve) => {
        waiters.push(resolve);
      });
      return Promise.resolve({ kind: 'in-flight', wait });
    }
    e.owned = true;
    return Promise.resolve({ kind: 'owner', commit: e.commit });
  }

  async pin(identity: string, node: string): Promise<void> {
    const e = this.#claims.get(identity);
    if (e === undefined || !e.owned) throw new LostOwnershipError();
    if (e.commit.kind === 'pinned' && e.commit.node === node) return;
    e.commit = { kind: 'pinned', node };
    await this.#write({ p: identity, n: node });
  }

  async unpin(identity: string): Promise<void> {
    const e = this.#claims.get(identity);
    if (e === undefined || !e.owned || e.commit.kind === 'unsent') return;
    e.commit = UNSENT;
    await this.#write({ u: identity });
  }

  async finish(identity: string, outcome: Outcome): Promise<void> {
    const e = this.#claims.get(identity);
    if (e === undefined) return;
    e.owned = false;
    const final = isFinal(outcome);
    const waiters = e.waiters;
    e.waiters = undefined;
    if (final) {
      e.outcome = outcome;
      e.finishedAt = this.#clock.now();
      try {
        await this.#write({ d: identity, at: e.finishedAt, o: serializeOutcome(outcome) });
      } finally {
        if (waiters !== undefined) for (const f of waiters) f(outcome);
      }
      return;
    }
    if (e.commit.kind === 'unsent' && waiters === undefined) this.#claims.delete(identity);
    if (waiters !== undefined) for (const f of waiters) f(undefined);
  }

  /** Where the claim may be committed now (for tests and tools). */
  commitOf(identity: string): CommitState {
    return this.#claims.get(identity)?.commit ?? UNSENT;
  }

  async #write(line: Line): Promise<void> {
    await this.#journal.append([JSON.stringify(line)]);
    if (++this.#appended >= this.#compactAfter && this.#appended > 2 * this.#claims.size)
      this.#compacting ??= this.#compact().finally(() => {
        this.#compacting = undefined;
      });
  }

  /** Rewrites the journal as the live claims: pins of open claims, outcomes inside the window. */
  async #compact(): Promise<void> {
    this.#appended = 0;
    const horizon = this.#clock.now() - this.#retainMs;
    const lines: string[] = [];
    for (const [id, e] of this.#claims) {
      if (e.outcome !== undefined) {
        if (e.finishedAt < horizon && !e.owned) {
          this.#claims.delete(id);
          continue;
        }
        lines.push(JSON.stringify({ d: id, at: e.finishedAt, o: serializeOutcome(e.outcome) }));
      } else if (e.commit.kind === 'pinned') lines.push(JSON.stringify({ p: id, n: e.commit.node }));
      else if (!e.owned && e.waiters === undefined) this.#claims.delete(id);
    }
    await this.#journal.rewrite(lines);
  }

  /** Claims the ledger holds (finished within the window, or open). */
  get size(): number {
    return this.#claims.size;
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
