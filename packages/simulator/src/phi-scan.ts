/**
 * Finds PHI values in text by token: each run of letters and digits is looked up in the set of
 * PHI values generated for the run. Linear in the text, whatever the number of claims.
 */
export class PhiScanner {
  readonly #values = new Set<string>();
  readonly found: Array<{ where: string; sample: string }> = [];
  scanned = 0;

  add(values: readonly string[]): void {
    for (const v of values)
      for (const token of v.split(/[^A-Za-z0-9]+/)) if (token.length >= 4) this.#values.add(token);
  }

  /**
   * Scans a value's strings, however deep, without serialising it first: a short string is
   * looked up whole, a longer one token by token.
   */
  scanValue(where: string, value: unknown): void {
    this.scanned++;
    this.#walk(where, value, 0);
  }

  #walk(where: string, v: unknown, depth: number): void {
    if (typeof v === 'string') {
      if (v.length < 4) return;
      if (this.#values.has(v)) this.#found(where, v, v.length);
      else if (v.length > 10) this.#tokens(where, v);
    } else if (Array.isArray(v)) {
      for (const x of v) this.#walk(where, x, depth + 1);
    } else if (v !== null && typeof v === 'object' && depth < 8) {
      for (const k in v) this.#walk(where, (v as Record<string, unknown>)[k], depth + 1);
    }
  }

  #tokens(where: string, text: string): void {
    const re = /[A-Za-z0-9]{4,}/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (this.#values.has(m[0])) {
        this.#found(where, text, m.index);
        return;
      }
    }
  }

  #found(where: string, text: string, at: number): void {
    if (this.found.length < 20)
      this.found.push({ where, sample: text.slice(Math.max(0, at - 30), at).concat('«PHI»') });
  }

  /** Scans one text; records where PHI was found (the sample shows the field, masked). */
  scan(where: string, text: string): void {
    this.scanned++;
    const re = /[A-Za-z0-9]{4,}/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (this.#values.has(m[0])) {
        if (this.found.length < 20)
          this.found.push({ where, sample: text.slice(Math.max(0, m.index - 30), m.index).concat('«PHI»') });
        return;
      }
    }
  }
}
