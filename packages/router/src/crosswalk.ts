/** One NDC's entry in the crosswalk. */
export interface CrosswalkEntry {
  /** The GPI (therapeutic class) the NDC belongs to. */
  readonly gpi: string;
  /** The NDC to bill instead (a successor or the payer's package NDC), when one exists. */
  readonly ndc?: string;
}

/** A versioned NDC → GPI snapshot. The version goes into the audit record of every repair. */
export interface Crosswalk {
  readonly version: string;
  lookup(ndc: string): CrosswalkEntry | undefined;
}

/** A crosswalk from a plain object (`{ "00002143380": { "gpi": "…", "ndc": "…" } }`). */
export function crosswalkSnapshot(
  version: string,
  entries: Readonly<Record<string, CrosswalkEntry>>,
): Crosswalk {
  const map = new Map(Object.entries(entries));
  return { version, lookup: (ndc) => map.get(ndc) };
}
