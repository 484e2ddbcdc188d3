/**
 * Finds PHI values in text by token: each run of letters and digits is looked up in the set of
 * PHI values generated for the run. Linear in the text, whatever the number of claims.
 */
export class PhiScanner {
  readonly #values = new Set<string>();
  readonly found: Array<{ where: string; sample: string }> = [];
  scanned = 0;

  add(values: readonly string[]): void {
    for (const v of values) for (const token of v.split(/[^A-Za-z0-9]+/)) if (token.length >= 4) this.#values.add(token);
  }

  /** Scans one text; records where PHI was found (the sample shows the field, masked). */
  scan(where: string, text: string): void {
    this.scanned++;
    const re = /[A-Za-z0-9]{4,}/g;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      if (this.#values.has(m[0])) {
        if (this.found.length < 20) this.found.push({ where, sample: text.slice(Math.max(0, m.index - 30), m.index).concat('«PHI»') });
        return;
      }
    }
  }
}
