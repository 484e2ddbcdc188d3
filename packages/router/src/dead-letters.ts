import { type CanonicalClaim, parseClaim, toWire } from './claim.js';

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
  put(letter: DeadLetter): Promise<void>;
}

/**
 * A dead letter as text, for a queue that stores it (a file, a table, a broker). The claim is
 * written in its wire form, PHI included: this is storage of a claim to send again, never
 * telemetry — keep it where the claims themselves are kept. {@link parseDeadLetter} reads it.
 */
export function serializeDeadLetter(letter: DeadLetter): string {
  const { claim, ...rest } = letter;
  return JSON.stringify({ ...rest, claim: toWire(claim) });
}

/** The inverse of {@link serializeDeadLetter}; the claim is validated again (a typed error names a bad field). */
export function parseDeadLetter(text: string): DeadLetter {
  const o = JSON.parse(text) as Omit<DeadLetter, 'claim'> & { claim: unknown };
  return { ...o, claim: parseClaim(o.claim) };
}

/** The embedded queue: `take()` empties it for a batch run. */
export class MemoryDeadLetterQueue implements DeadLetterQueue {
  readonly #letters: DeadLetter[] = [];
  put(letter: DeadLetter): Promise<void> {
    this.#letters.push(letter);
    return Promise.resolve();
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
