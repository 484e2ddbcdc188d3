import type { CanonicalClaim } from './claim.js';

/** A claim handed over for later: the batch lane, or a person. */
export interface DeadLetter {
  readonly claimKey: string;
  readonly correlationId: string;
  readonly reason: string;
  /** Who takes it: `batch` resubmits it later; `pos` never appears (a pos claim is handed to batch). */
  readonly lane: 'pos' | 'batch';
  /** The node it must go back to, when it may already be paid there (an answer was lost). */
  readonly pinnedNode?: string;
  readonly at: number;
  /** The claim itself, to resubmit. Holds PHI: a dead-letter queue is storage, never telemetry. */
  readonly claim: CanonicalClaim;
}

export interface DeadLetterQueue {
  put(letter: DeadLetter): void | Promise<void>;
}

/** The embedded queue: `take()` empties it for a batch run. */
export class MemoryDeadLetterQueue implements DeadLetterQueue {
  readonly #letters: DeadLetter[] = [];
  put(letter: DeadLetter): void {
    this.#letters.push(letter);
  }
  get size(): number {
    return this.#letters.length;
  }
  /** Removes and returns every letter. */
  take(): DeadLetter[] {
    return this.#letters.splice(0);
  }
  /** The letters, without removing them. */
  peek(): readonly DeadLetter[] {
    return this.#letters;
  }
}
