/**
 * Finds PHI values in text by token: each run of letters and digits is looked up in the set of
 * PHI values generated for the run. Linear in the text, whatever the number of claims.
 */
export class PhiScanner {
  readonly #values = new Set<string>();
  // Lengths of the PHI tokens: a run of letters and digits of any other length is skipped unread.
  readonly #lengths: boolean[] = [];
  // The first four characters of every PHI token, as a bit set over 62^4 codes: a run whose
  // start no PHI token has is never sliced or looked up (nearly every run, in practice).
  readonly #prefixes = new Uint8Array(Math.ceil(62 ** 4 / 8));
  readonly #recent = new Set<string>();
  readonly found: Array<{ where: string; sample: string }> = [];
  scanned = 0;

  add(values: readonly string[]): void {
    for (const v of values) {
      if (ALNUM.test(v)) this.#token(v);
      else for (const token of v.split(/[^A-Za-z0-9]+/)) this.#token(token);
    }
  }

  #token(token: string): void {
    if (token.length < 4) return;
    // Names and dates of birth come back again and again: a small set answers them without
    // touching the large one (a cache miss each, with half a million cardholders in it).
    if (this.#recent.has(token)) return;
    if (this.#recent.size >= RECENT) this.#recent.clear();
    this.#recent.add(token);
    this.#values.add(token);
    this.#lengths[token.length] = true;
    const p = prefixCode(token, 0);
    this.#prefixes[p >>> 3]! |= 1 << (p & 7);
  }

  /** Scans a value's strings, however deep, without serialising it first. */
  scanValue(where: string, value: unknown): void {
    this.scanned++;
    this.#walk(where, value, 0);
  }

  #walk(where: string, v: unknown, depth: number): void {
    if (typeof v === 'string') {
      if (v.length >= 4) this.#scanText(where, v);
    } else if (typeof v === 'number') {
      // A date of birth logged as a number is PHI as much as the string.
      if (Number.isInteger(v) && Math.abs(v) >= 1000) this.#scanText(where, String(v));
    } else if (Array.isArray(v)) {
      for (const x of v) this.#walk(where, x, depth + 1);
    } else if (v !== null && typeof v === 'object' && depth < 8) {
      for (const k in v) this.#walk(where, (v as Record<string, unknown>)[k], depth + 1);
    }
  }

  /** Looks up every run of 4+ letters and digits whose length and first four characters some PHI token has. */
  #scanText(where: string, text: string): boolean {
    const lengths = this.#lengths;
    const prefixes = this.#prefixes;
    let start = -1;
    // Whether the current run's first four characters are a PHI token's.
    let candidate = false;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 0;
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        if (start < 0) {
          start = i;
          candidate = false;
        } else if (i - start === 3) {
          const p = prefixCode(text, start);
          candidate = (prefixes[p >>> 3]! & (1 << (p & 7))) !== 0;
        }
      } else if (start >= 0) {
        const n = i - start;
        if (candidate && lengths[n] === true && this.#values.has(text.slice(start, i))) {
          if (this.found.length < 20)
            this.found.push({ where, sample: text.slice(Math.max(0, start - 30), start).concat('«PHI»') });
          return true;
        }
        start = -1;
      }
    }
    return false;
  }

  /** Scans one text; records where PHI was found (the sample shows the field, masked). */
  scan(where: string, text: string): void {
    this.scanned++;
    this.#scanText(where, text);
  }
}

const ALNUM = /^[A-Za-z0-9]*$/;
const RECENT = 32_768;

/** The four letters or digits at `at` as a number below 62^4. */
function prefixCode(text: string, at: number): number {
  let code = 0;
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i);
    code = code * 62 + (c <= 57 ? c - 48 : c <= 90 ? c - 55 : c - 61);
  }
  return code;
}
