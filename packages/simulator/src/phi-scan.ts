/**
 * Finds PHI values in text by token: each run of letters and digits is looked up in the set of
 * PHI values generated for the run. Linear in the text, whatever the number of claims.
 */
export class PhiScanner {
  readonly #values = new Set<string>();
  // Lengths of the PHI tokens: a run of letters and digits of any other length is skipped unread.
  readonly #lengths: boolean[] = [];
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
    this.#values.add(token);
    this.#lengths[token.length] = true;
  }

  /** Scans a value's strings, however deep, without serialising it first. */
  scanValue(where: string, value: unknown): void {
    this.scanned++;
    this.#walk(where, value, 0);
  }

  #walk(where: string, v: unknown, depth: number): void {
    if (typeof v === 'string') {
      if (v.length >= 4) this.#scanText(where, v);
    } else if (Array.isArray(v)) {
      for (const x of v) this.#walk(where, x, depth + 1);
    } else if (v !== null && typeof v === 'object' && depth < 8) {
      for (const k in v) this.#walk(where, (v as Record<string, unknown>)[k], depth + 1);
    }
  }

  /** Looks up every run of 4+ letters and digits whose length some PHI token has. */
  #scanText(where: string, text: string): boolean {
    const lengths = this.#lengths;
    let start = -1;
    for (let i = 0; i <= text.length; i++) {
      const c = i < text.length ? text.charCodeAt(i) : 0;
      if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
        if (start < 0) start = i;
      } else if (start >= 0) {
        const n = i - start;
        if (n >= 4 && lengths[n] === true && this.#values.has(text.slice(start, i))) {
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
