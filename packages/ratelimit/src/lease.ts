/**
 * What an admission hands back. With a concurrency cap it holds a slot until released;
 * without one, releasing does nothing. Release is idempotent: a second call leaves counts exact.
 */
export interface Lease extends Disposable {
  /** Gives the concurrency slot back. Safe to call more than once. */
  release(): void;
  /** True once no slot is held: after `release()`, and from the start for an admission that took none. */
  readonly released: boolean;
}

/** The lease of an admission that holds no concurrency slot: nothing to give back, so released from the start. */
export const NOOP_LEASE: Lease = Object.freeze({
  release() {},
  released: true,
  [Symbol.dispose]() {},
});

export const RESOLVED_NOOP_LEASE: Promise<Lease> = Promise.resolve(NOOP_LEASE);

export class SlotLease implements Lease {
  #release: (() => void) | undefined;
  constructor(release: () => void) {
    this.#release = release;
  }
  get released(): boolean {
    return this.#release === undefined;
  }
  release(): void {
    const release = this.#release;
    this.#release = undefined;
    release?.();
  }
  [Symbol.dispose](): void {
    this.release();
  }
}
