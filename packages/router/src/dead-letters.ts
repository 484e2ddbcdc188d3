import { type CanonicalClaim, parseClaim, toWire } from './claim.js';
import { InvalidClaimError } from './errors.js';
import { safeParseReversal } from './reversal.js';

/** A claim handed over for later: the batch lane, or a person. */
export interface DeadLetter {
  readonly claimKey: string;
  readonly correlationId: string;
  readonly reason: string;
  /** Who takes it: `batch` resubmits it later; `pos` never appears (a pos claim is handed to batch). */
  readonly lane: 'pos' | 'batch';
  /** The node it must go back to, when it may already be paid there (an answer was lost). */
  readonly pinnedNode?: string;
  /** The identity's attempt generation the claim was in (absent for 0). */
  readonly generation?: number;
  readonly at: number;
  /**
   * The claim itself, to resubmit (a B2 reversal holds only a reversal's fields). Holds PHI: a
   * dead-letter queue is storage, never telemetry.
   */
  readonly claim: CanonicalClaim;
}

export interface DeadLetterQueue {
  put(letter: DeadLetter): Promise<void>;
  /**
   * Removes and returns the letters of claims that may be committed (a `pinnedNode`), for
   * `router.reconcile()`; a queue without it leaves reconciliation to its owner.
   */
  takePinned?(): Promise<DeadLetter[]>;
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
  const c = o.claim as Record<string, unknown> | null;
  if (c !== null && typeof c === 'object' && c['103-A3'] === 'B2') {
    const r = safeParseReversal(c);
    if (!r.ok) throw new InvalidClaimError(r.issues);
    return { ...o, claim: r.reversal as unknown as CanonicalClaim };
  }
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
  takePinned(): Promise<DeadLetter[]> {
    const pinned: DeadLetter[] = [];
    let kept = 0;
    for (const l of this.#letters) {
      if (l.pinnedNode !== undefined) pinned.push(l);
      else this.#letters[kept++] = l;
    }
    this.#letters.length = kept;
    return Promise.resolve(pinned);
  }
  /** The letters, without removing them. */
  peek(): readonly DeadLetter[] {
    return this.#letters;
  }
}
