/** A JSON value a flat object may hold. */
export type FlatValue = string | number | boolean | null;

// Character codes.
const C_TAB = 9;
const C_LF = 10;
const C_CR = 13;
const C_SPACE = 32;
const C_QUOTE = 34;
const C_PLUS = 43;
const C_COMMA = 44;
const C_MINUS = 45;
const C_DOT = 46;
const C_ZERO = 48;
const C_NINE = 57;
const C_COLON = 58;
const C_E = 69;
const C_BACKSLASH = 92;
const C_LOWERE = 101;
const C_OPENBRACE = 123;
const C_CLOSEBRACE = 125;

/**
 * Reads the `wanted` fields of a flat JSON object (string, number, boolean and null values)
 * without building the object: the vendor model reads four fields of every claim it is sent,
 * and `JSON.parse` of the whole claim was its largest cost. Returns `undefined` for any text it
 * does not read to the end as such an object — nested values, escapes in a string, anything
 * malformed — and the caller then asks `JSON.parse`, which decides. When it answers, it answers
 * what `JSON.parse` would (a property test holds it to that).
 */
export function readFlatObject(
  text: string,
  wanted: readonly string[],
): Record<string, FlatValue> | undefined {
  const n = text.length;
  const out: Record<string, FlatValue> = {};
  let i = skip(text, 0);
  if (at(text, i) !== C_OPENBRACE) return undefined;
  i = skip(text, i + 1);
  if (at(text, i) === C_CLOSEBRACE) return skip(text, i + 1) === n ? out : undefined;
  const hashes = hashesOf(wanted);
  for (;;) {
    if (at(text, i) !== C_QUOTE) return undefined;
    const keyStart = i + 1;
    // The key's end, as stringEnd finds it, and its hash on the way: a wanted key is compared
    // only where its hash is the key's (a startsWith a wanted key a key was most of this).
    let keyEnd = -1;
    let h = 0;
    for (let j = keyStart; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === C_QUOTE) {
        keyEnd = j;
        break;
      }
      if (c === C_BACKSLASH || c < C_SPACE) return undefined;
      h = (Math.imul(h, 31) + c) | 0;
    }
    if (keyEnd < 0) return undefined;
    let want: string | undefined;
    for (let k = 0; k < wanted.length; k++) {
      const w = wanted[k]!;
      if (hashes[k] === h && w.length === keyEnd - keyStart && text.startsWith(w, keyStart)) {
        want = w;
        break;
      }
    }
    i = skip(text, keyEnd + 1);
    if (at(text, i) !== C_COLON) return undefined;
    i = skip(text, i + 1);
    const c = at(text, i);
    let value: FlatValue;
    if (c === C_QUOTE) {
      const end = stringEnd(text, i + 1);
      if (end < 0) return undefined;
      value = want === undefined ? '' : text.slice(i + 1, end);
      i = end + 1;
    } else if (c === C_MINUS || (c >= C_ZERO && c <= C_NINE)) {
      const end = numberEnd(text, i);
      if (end < 0) return undefined;
      value = want === undefined ? 0 : Number(text.slice(i, end));
      i = end;
    } else if (text.startsWith('true', i)) {
      value = true;
      i += 4;
    } else if (text.startsWith('false', i)) {
      value = false;
      i += 5;
    } else if (text.startsWith('null', i)) {
      value = null;
      i += 4;
    } else return undefined;
    // A repeated key: JSON.parse keeps the last.
    if (want !== undefined) out[want] = value;
    i = skip(text, i);
    const sep = at(text, i);
    if (sep === C_COMMA) i = skip(text, i + 1);
    else if (sep === C_CLOSEBRACE) return skip(text, i + 1) === n ? out : undefined;
    else return undefined;
  }
}

/** The hash readFlatObject computes of a key, of each wanted key. */
function keyHash(key: string): number {
  let h = 0;
  for (let j = 0; j < key.length; j++) h = (Math.imul(h, 31) + key.charCodeAt(j)) | 0;
  return h;
}

// The wanted keys' hashes, by wanted list (its keys kept to see that it did not change since).
const hashCache = new WeakMap<readonly string[], { keys: string[]; hashes: Int32Array }>();

function hashesOf(wanted: readonly string[]): Int32Array {
  let e = hashCache.get(wanted);
  if (e !== undefined && sameKeys(e.keys, wanted)) return e.hashes;
  e = { keys: [...wanted], hashes: Int32Array.from(wanted, keyHash) };
  hashCache.set(wanted, e);
  return e.hashes;
}

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function skip(text: string, i: number): number {
  // Bounds checked: reading past the end (NaN) would throw V8's optimised code out again and again.
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== C_SPACE && c !== C_TAB && c !== C_LF && c !== C_CR) return i;
    i++;
  }
  return i;
}

/** The character code at `i`, or -1 past the end. */
function at(text: string, i: number): number {
  return i < text.length ? text.charCodeAt(i) : -1;
}

/** The index of the closing quote of a string without escapes or control characters; -1 otherwise. */
function stringEnd(text: string, i: number): number {
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === C_QUOTE) return i;
    if (c === C_BACKSLASH || c < C_SPACE) return -1;
  }
  return -1;
}

/** The end of a JSON number (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`) at `i`; -1 if there is none. */
function numberEnd(text: string, i: number): number {
  if (at(text, i) === C_MINUS) i++;
  const first = at(text, i);
  if (first === C_ZERO) i++;
  else if (first > C_ZERO && first <= C_NINE) i = digits(text, i);
  else return -1;
  if (at(text, i) === C_DOT) {
    const after = digits(text, i + 1);
    if (after === i + 1) return -1;
    i = after;
  }
  const e = at(text, i);
  if (e === C_E || e === C_LOWERE) {
    i++;
    const sign = at(text, i);
    if (sign === C_PLUS || sign === C_MINUS) i++;
    const after = digits(text, i);
    if (after === i) return -1;
    i = after;
  }
  return i;
}

function digits(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c < C_ZERO || c > C_NINE) break;
    i++;
  }
  return i;
}
