/**
 * A set of strings that answers whether a range of a text is one of them without slicing it,
 * in flat typed arrays: the PHI scanner's half a million tokens of a day. A `Set<string>` of
 * that size cost ~1 µs an insert on this machine (its table grows into cache misses and old
 * space) and each lookup needed a slice of the text; here a slot is one 8-byte pair (hash,
 * index of the string) with linear probing, and equal hashes are confirmed on the characters.
 */
export class StringSet {
  // Slot i: [2i] the hash (0: empty), [2i + 1] the index of its string in #strings.
  #slots = new Int32Array(2 * 1024);
  #mask = 1023;
  readonly #strings: string[] = [];

  get size(): number {
    return this.#strings.length;
  }

  add(s: string): void {
    const h = hashRange(s, 0, s.length);
    const slots = this.#slots;
    const mask = this.#mask;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = slots[2 * i]!;
      if (at === 0) {
        slots[2 * i] = h;
        slots[2 * i + 1] = this.#strings.length;
        this.#strings.push(s);
        // At most half full: a miss, the common answer, ends within a few slots.
        if (2 * this.#strings.length > mask) this.#grow();
        return;
      }
      if (at === h && this.#strings[slots[2 * i + 1]!] === s) return;
    }
  }

  has(s: string): boolean {
    return this.hasRange(s, 0, s.length);
  }

  /** Whether `text.slice(start, end)` is in the set. */
  hasRange(text: string, start: number, end: number): boolean {
    const h = hashRange(text, start, end);
    const slots = this.#slots;
    const mask = this.#mask;
    const n = end - start;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const at = slots[2 * i]!;
      if (at === 0) return false;
      if (at === h) {
        const s = this.#strings[slots[2 * i + 1]!]!;
        if (s.length === n && text.startsWith(s, start)) return true;
      }
    }
  }

  #grow(): void {
    const old = this.#slots;
    const mask = 2 * (this.#mask + 1) - 1;
    const slots = new Int32Array(2 * (mask + 1));
    for (let j = 0; j < old.length; j += 2) {
      const h = old[j]!;
      if (h === 0) continue;
      let i = h & mask;
      while (slots[2 * i] !== 0) i = (i + 1) & mask;
      slots[2 * i] = h;
      slots[2 * i + 1] = old[j + 1]!;
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}

/** FNV-1a over the UTF-16 code units of text[start, end), mixed (murmur3's finaliser) so the low bits index well; never 0. */
export function hashRange(text: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h === 0 ? 1 : h;
}
