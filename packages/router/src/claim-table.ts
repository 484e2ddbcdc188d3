import { type CommitState, UNSENT } from './commit-state.js';
import { type KeptOutcome, keep, restore } from './kept-outcome.js';
import {
  type Admission,
  advancesGeneration,
  closes,
  isFinal,
  type LedgerView,
  LostOwnershipError,
} from './ledger.js';
import type { Outcome } from './outcome.js';

/** One claim as an embedded ledger holds it in memory. */
export interface ClaimEntry {
  owned: boolean;
  commit: CommitState;
  /** Set when finished with a closing outcome (paid, approved, captured, duplicate), as kept. */
  outcome: KeptOutcome | undefined;
  /** The attempt generation: one more per payer reject and per accepted reversal. */
  generation: number;
  /** When it finished or last moved generation (the ledger's clock), for retention. */
  finishedAt: number;
  /** Submissions waiting for the owner's outcome. */
  waiters: Array<(o: Outcome | undefined) => void> | undefined;
}

const OWNED_UNSENT: Admission = Object.freeze({ kind: 'owner', commit: UNSENT, generation: 0 });

/**
 * The in-memory state machine of the embedded ledgers — ownership, joiners, commit state,
 * final outcomes — with no I/O: `MemoryLedger` answers from it at once, `JournalLedger`
 * writes each change to its journal first.
 */
export class ClaimTable {
  readonly #claims = new Map<string, ClaimEntry>();

  /** The entry of `identity`, made (unowned, unsent) when missing: for a journal's replay. */
  entry(identity: string): ClaimEntry {
    let e = this.#claims.get(identity);
    if (e === undefined) {
      e = {
        owned: false,
        commit: UNSENT,
        outcome: undefined,
        generation: 0,
        finishedAt: 0,
        waiters: undefined,
      };
      this.#claims.set(identity, e);
    }
    return e;
  }

  begin(identity: string): Admission {
    const e = this.entry(identity);
    if (e.outcome !== undefined) return { kind: 'done', outcome: restore(e.outcome) };
    if (e.owned) {
      const waiters = e.waiters ?? [];
      e.waiters = waiters;
      const wait = new Promise<Outcome | undefined>((resolve) => {
        waiters.push(resolve);
      });
      return { kind: 'in-flight', wait };
    }
    e.owned = true;
    return e.commit.kind === 'unsent' && e.generation === 0
      ? OWNED_UNSENT
      : { kind: 'owner', commit: e.commit, generation: e.generation };
  }

  /** Pins an owned claim to `node`; false when it was pinned there already. Throws when not owned. */
  pin(identity: string, node: string): boolean {
    const e = this.#claims.get(identity);
    if (e === undefined || !e.owned) throw new LostOwnershipError();
    if (e.commit.kind === 'pinned' && e.commit.node === node) return false;
    e.commit = { kind: 'pinned', node };
    return true;
  }

  /** Unpins an owned claim; false when there was nothing to change. */
  unpin(identity: string): boolean {
    const e = this.#claims.get(identity);
    if (e === undefined || !e.owned || e.commit.kind === 'unsent') return false;
    e.commit = UNSENT;
    return true;
  }

  /**
   * Ends ownership: a closing outcome is stored (at `at`); a payer's reject moves the identity
   * to its next generation (unsent); an open claim with nothing to keep is dropped. Returns the
   * joiners to answer — with the outcome when final, else `undefined` (they begin again) — for
   * the caller to call once the change is durable.
   */
  finish(
    identity: string,
    outcome: Outcome,
    at: number,
  ): Array<(o: Outcome | undefined) => void> | undefined {
    const e = this.#claims.get(identity);
    if (e === undefined) return undefined;
    e.owned = false;
    const waiters = e.waiters;
    e.waiters = undefined;
    if (closes(outcome)) {
      e.outcome = keep(outcome);
      e.finishedAt = at;
    } else if (advancesGeneration(outcome)) {
      e.generation++;
      e.commit = UNSENT;
      e.finishedAt = at;
    } else if (e.commit.kind === 'unsent' && e.generation === 0 && waiters === undefined)
      this.#claims.delete(identity);
    return waiters;
  }

  /**
   * An accepted reversal: the stored payment goes, the identity is unsent in its next
   * generation. Never under a live owner (a rebill already under way after an earlier reopen):
   * its pin stands, and -1 says nothing changed.
   */
  reopen(identity: string, at: number): number {
    const e = this.entry(identity);
    if (e.owned) return -1;
    e.outcome = undefined;
    e.commit = UNSENT;
    e.generation++;
    e.finishedAt = at;
    return e.generation;
  }

  lookup(identity: string): LedgerView {
    const e = this.#claims.get(identity);
    return {
      outcome: e?.outcome === undefined ? undefined : restore(e.outcome),
      generation: e?.generation ?? 0,
      commit: e?.commit ?? UNSENT,
    };
  }

  commitOf(identity: string): CommitState {
    return this.#claims.get(identity)?.commit ?? UNSENT;
  }

  entries(): IterableIterator<[string, ClaimEntry]> {
    return this.#claims.entries();
  }

  delete(identity: string): void {
    this.#claims.delete(identity);
  }

  get size(): number {
    return this.#claims.size;
  }
}

/** Answers the joiners `finish` returned. */
export function answer(waiters: Array<(o: Outcome | undefined) => void> | undefined, outcome: Outcome): void {
  if (waiters === undefined) return;
  const o = isFinal(outcome) ? outcome : undefined;
  for (const f of waiters) f(o);
}
