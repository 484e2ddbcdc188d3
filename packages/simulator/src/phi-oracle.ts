/**
 * The PHI oracle beside the fast scanner, sharing none of its logic: every generated PHI value
 * as given (any length, digits and non-ASCII included), looked for by substring search in a
 * sample of every kind of text a run produces (objects serialised whole, numbers too).
 *
 * A match counts unless the value is only part of a longer run of letters and digits (Unicode
 * classes; see `glued`): plain substring search alone flagged 'WEI' inside a base64 claim key, and a random
 * 8-digit date of birth can sit in the fractional digits of a latency, or end an epoch
 * timestamp (a value of digits only counts unless it ends a number of 13 digits or more, or is
 * a decimal's fraction: see `insideNumber`). `dob=19870412`,
 * `dob19870412`, `"dob":19870412` and `ZOË,` are found; `rx1_…WEIx…` and `"at":1796019870412` are not.
 */
export class PhiOracle {
  // Values of 8 characters or fewer (names, dates of birth: a few thousand, offered with every
  // claim) apart from the long ones (a cardholder id a claim): a small set that stays in cache.
  readonly #short = new Set<string>();
  readonly #long = new Set<string>();
  readonly #perKind: number;
  readonly #maxValues: number;
  #offeredValues = 0;
  readonly #samples = new Map<string, Sample>();
  readonly found: Array<{ where: string; sample: string }> = [];
  /** Texts searched, and values looked for in each. */
  searched = 0;
  valuesChecked = 0;

  /**
   * @param perKind texts kept of each kind: the first `perKind`, then up to three times as many
   *   spread evenly over the rest of the run (every `stride`-th, the stride doubling as the run
   *   grows: see `sampleStride`), so the texts of a day's last hour are searched as its first
   * @param maxValues values kept whole; past it, one in 16 of the long ones (cardholder ids, one
   *   per claim: a day of 500,000 claims). Names and dates of birth (8 characters or fewer) always.
   */
  constructor(perKind = 200, maxValues = 100_000) {
    this.#perKind = perKind;
    this.#maxValues = maxValues;
  }

  add(values: readonly string[]): void {
    for (const v of values) {
      if (v === '') continue;
      if (v.length <= 8) this.#short.add(v);
      else if (this.#short.size + this.#long.size < this.#maxValues || this.#offeredValues++ % 16 === 0)
        this.#long.add(v);
    }
  }

  /** Offers one text (or a value, serialised whole) of a kind; kept if sampled. */
  offer(kind: string, text: unknown): void {
    let sample = this.#samples.get(kind);
    if (sample === undefined) {
      sample = { offered: 0, stride: 1, head: [], tail: [] };
      this.#samples.set(kind, sample);
    }
    const n = sample.offered++;
    if (n < this.#perKind) {
      sample.head.push(serialise(text));
      return;
    }
    // The rest: offsets 0, stride, 2·stride… past the head; when the tail is full, every other
    // one goes and the stride doubles.
    const offset = n - this.#perKind;
    if (offset % sample.stride !== 0) return;
    if (sample.tail.length >= 3 * this.#perKind) {
      sample.tail = sample.tail.filter((_, i) => i % 2 === 0);
      sample.stride *= 2;
      if (offset % sample.stride !== 0) return;
    }
    sample.tail.push(serialise(text));
  }

  /**
   * Searches every sampled text for every value: at every position, the substring of each
   * length some value has, looked up in the set of values (the same finds as `indexOf` of each
   * value, in time linear in the text rather than in the number of values).
   */
  check(): void {
    this.valuesChecked = this.#short.size + this.#long.size;
    // The lengths to try where a text's character is the first of some value (ascending), by
    // that character: elsewhere no value can start, and nothing is sliced.
    const sets = new Map<number, Set<number>>();
    for (const v of [...this.#short, ...this.#long]) {
      const first = v.charCodeAt(0);
      const set = sets.get(first);
      if (set === undefined) sets.set(first, new Set([v.length]));
      else set.add(v.length);
    }
    const byFirst = new Map<number, number[]>();
    for (const [c, set] of sets)
      byFirst.set(
        c,
        [...set].sort((a, b) => a - b),
      );
    for (const [kind, sample] of this.#samples) {
      for (const text of [...sample.head, ...sample.tail]) {
        this.searched++;
        const at = this.#firstFind(text, byFirst);
        if (at >= 0 && this.found.length < 20)
          this.found.push({ where: kind, sample: `${text.slice(Math.max(0, at - 30), at)}«PHI»` });
      }
    }
  }

  #firstFind(text: string, byFirst: ReadonlyMap<number, readonly number[]>): number {
    for (let at = 0; at < text.length; at++) {
      const lengths = byFirst.get(text.charCodeAt(at));
      if (lengths === undefined) continue;
      for (const n of lengths) {
        if (at + n > text.length) break;
        if ((n <= 8 ? this.#short : this.#long).has(text.slice(at, at + n)) && !glued(text, at, n)) return at;
      }
    }
    return -1;
  }
}

/** What is kept of one kind of text: the first texts, and an even spread of the rest. */
interface Sample {
  offered: number;
  stride: number;
  readonly head: string[];
  tail: string[];
}

/**
 * The slow definition of the sample: after `offered` texts of a kind, the stride of its tail
 * is the smallest power of two that spreads what came after the first `perKind` over at most
 * `3·perKind` texts; kept are the first `perKind` and every `stride`-th after them.
 */
export function sampleStride(offered: number, perKind: number): number {
  let stride = 1;
  while (Math.ceil(Math.max(0, offered - perKind) / stride) > 3 * perKind) stride *= 2;
  return stride;
}

/** The text the oracle searches for a value offered: a string as it is, anything else as JSON (BigInts as their digits). */
export function serialise(text: unknown): string {
  return typeof text === 'string' ? text : safeStringify(text);
}

function safeStringify(v: unknown): string {
  // Without a replacer first (one call of it per value made this the oracle's largest cost):
  // the same text wherever there is no BigInt, and JSON.stringify throws where there is one.
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    try {
      return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x)) ?? String(v);
    } catch {
      return String(v);
    }
  }
}

const WORD = /[\p{L}\p{N}\p{M}]/u;
const DIGIT = /\p{N}/u;
const DIGITS = /^\p{N}+$/u;

/**
 * Whether text[at, at + n) is only part of a longer run of letters and digits. A value of 8
 * characters or more counts unless glued on both sides (`key=ZX1234567Adef` is a find); a
 * shorter one must stand alone, since random letters and digits hold short values by chance (a
 * vendor's authorization number `A6Y…` ended in a generated three-letter name).
 */
function glued(text: string, at: number, n: number): boolean {
  if (DIGITS.test(text.slice(at, at + n))) return insideNumber(text, at, n);
  const before = at > 0 && WORD.test(text.charAt(at - 1));
  const after = at + n < text.length && WORD.test(text.charAt(at + n));
  return n >= 8 ? before && after : before || after;
}

/**
 * Whether a value of digits only (a date of birth) at text[at, at + n) is the inside of a
 * number that is not it: the end of an epoch timestamp (a run of 13 digits or more with digits
 * before the value: an audit record at 1796019850604 ms ends in a generated date of birth for
 * ~3 % of the instants of a 12-minute window), or the fraction of a decimal (a latency of
 * 136.0198704123 ms). A date of birth at the start of a longer run (`1987041220261130`, then the
 * date of service), after a short prefix (`0119870412`, a person code) or standing alone is a
 * find.
 */
function insideNumber(text: string, at: number, n: number): boolean {
  let start = at;
  while (start > 0 && DIGIT.test(text.charAt(start - 1))) start--;
  let end = at + n;
  while (end < text.length && DIGIT.test(text.charAt(end))) end++;
  if (start > 1 && text.charAt(start - 1) === '.' && DIGIT.test(text.charAt(start - 2))) return true;
  return at > start && end - start >= 13;
}
