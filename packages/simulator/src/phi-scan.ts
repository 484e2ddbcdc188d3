import { StringSet } from './string-set.js';

/**
 * Finds PHI values in text by token: each run of letters and digits is looked up in the set of
 * PHI values generated for the run. Linear in the text, whatever the number of claims.
 */
export class PhiScanner {
  // Every PHI token of the run; a run of the text is looked up where it lies, never sliced.
  // Tokens of 8 characters or fewer (names, dates of birth: a few thousand, met on every
  // claim) are kept apart from the long ones (a cardholder id a claim): their small table
  // stays in cache, where one table of half a million missed it on each add.
  readonly #short = new StringSet();
  readonly #long = new StringSet();
  // Lengths of the PHI tokens: a run of letters and digits of any other length is skipped unread.
  readonly #lengths: boolean[] = [];
  // The first four characters of every PHI token, as a bit set over 62^4 codes: a run whose
  // start no PHI token has is never sliced or looked up (nearly every run, in practice).
  readonly #prefixes = new Uint8Array(Math.ceil(62 ** 4 / 8));
  readonly found: Array<{ where: string; sample: string }> = [];
  scanned = 0;

  /** Adds each value's runs of letters and digits (a value of one run whole, as given). */
  add(values: readonly string[]): void {
    for (const v of values) {
      let start = -1;
      for (let i = 0; i <= v.length; i++) {
        if (i < v.length && isAlnum(v.charCodeAt(i))) {
          if (start < 0) start = i;
        } else if (start >= 0) {
          if (i - start >= 4) this.#token(start === 0 && i === v.length ? v : v.slice(start, i));
          start = -1;
        }
      }
    }
  }

  #token(token: string): void {
    (token.length <= SHORT ? this.#short : this.#long).add(token);
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
      if (isAlnum(c)) {
        if (start < 0) {
          start = i;
          candidate = false;
        } else if (i - start === 3) {
          const p = prefixCode(text, start);
          candidate = (prefixes[p >>> 3]! & (1 << (p & 7))) !== 0;
        }
      } else if (start >= 0) {
        const n = i - start;
        if (
          candidate &&
          lengths[n] === true &&
          (n <= SHORT ? this.#short : this.#long).hasRange(text, start, i)
        ) {
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

// The longest token kept in the small table.
const SHORT = 8;

/** An ASCII letter or digit. */
function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** The four letters or digits at `at` as a number below 62^4. */
function prefixCode(text: string, at: number): number {
  let code = 0;
  for (let i = at; i < at + 4; i++) {
    const c = text.charCodeAt(i);
    code = code * 62 + (c <= 57 ? c - 48 : c <= 90 ? c - 55 : c - 61);
  }
  return code;
}
