/**
 * The PHI oracle beside the fast scanner, sharing none of its logic: every generated PHI value
 * as given (any length, digits and non-ASCII included), looked for by substring search in a
 * sample of every kind of text a run produces (objects serialised whole, numbers too).
 *
 * A match counts unless the value is only part of a longer run of letters and digits (Unicode
 * classes): plain substring search alone flagged 'WEI' inside a base64 claim key, and a random
 * 8-digit date of birth can sit in the fractional digits of a latency. `dob=19870412`,
 * `"dob":19870412` and `ZOË,` are found; `rx1_…WEIx…` is not.
 */
export class PhiOracle {
  // Short values (names, dates of birth: few, repeated over claims) are always looked for; of
  // the long ones (cardholder ids, one per claim) an even sample when there are too many.
  readonly #short = new Set<string>();
  readonly #long = new Set<string>();
  readonly #perKind: number;
  readonly #maxValues: number;
  readonly #samples = new Map<string, string[]>();
  readonly #offered = new Map<string, number>();
  readonly found: Array<{ where: string; sample: string }> = [];
  /** Texts searched, and values looked for in each. */
  searched = 0;
  valuesChecked = 0;

  /**
   * @param perKind texts kept of each kind: the first `perKind`, then one in 97 up to four times as many
   * @param maxValues long values looked for, at most (all of them in any run but the largest)
   */
  constructor(perKind = 200, maxValues = 50_000) {
    this.#perKind = perKind;
    this.#maxValues = maxValues;
  }

  add(values: readonly string[]): void {
    for (const v of values) if (v !== '') (v.length <= 8 ? this.#short : this.#long).add(v);
  }

  /** Offers one text (or a value, serialised whole) of a kind; kept if sampled. */
  offer(kind: string, text: unknown): void {
    const n = this.#offered.get(kind) ?? 0;
    this.#offered.set(kind, n + 1);
    let kept = this.#samples.get(kind);
    if (kept === undefined) {
      kept = [];
      this.#samples.set(kind, kept);
    }
    if (n >= this.#perKind && (n % 97 !== 0 || kept.length >= 4 * this.#perKind)) return;
    kept.push(typeof text === 'string' ? text : safeStringify(text));
  }

  /** Searches every sampled text for every value (or an even sample of them when too many). */
  check(): void {
    const long = [...this.#long];
    const step = Math.max(1, Math.ceil(long.length / this.#maxValues));
    const values = [...this.#short, ...(step === 1 ? long : long.filter((_, i) => i % step === 0))];
    this.valuesChecked = values.length;
    for (const [kind, texts] of this.#samples) {
      for (const text of texts) {
        this.searched++;
        for (const v of values) {
          const at = standalone(text, v);
          if (at < 0) continue;
          if (this.found.length < 20)
            this.found.push({ where: kind, sample: `${text.slice(Math.max(0, at - 30), at)}«PHI»` });
          break;
        }
      }
    }
  }
}

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

const WORD = /[\p{L}\p{N}\p{M}]/u;

/** Where `value` occurs in `text` other than inside a longer run of letters and digits; -1 if nowhere. */
function standalone(text: string, value: string): number {
  for (let at = text.indexOf(value); at >= 0; at = text.indexOf(value, at + 1)) {
    const before = at === 0 ? '' : String.fromCodePoint(text.codePointAt(at - 1) ?? 32);
    const after = text.slice(at + value.length, at + value.length + 2);
    const glued = (c: string) => c !== '' && WORD.test(c);
    if (glued(before) && glued(after.charAt(0))) continue;
    return at;
  }
  return -1;
}
