import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { normalizeRejectCode, REJECT_CODES, type RejectCodeEntry, type RejectGroup } from './reject-codes.js';

const GROUPS = [
  'host-transient',
  'host-planned',
  'host-data',
  'switch-ambiguous',
  'repair-product',
  'repair-routing',
  'other-payer',
  'submitter-fix',
  'terminal',
  'retry-later',
  'duplicate',
  'reversal',
  'unknown',
] as const satisfies readonly RejectGroup[];

const codeKey = z
  .string()
  .refine((c) => normalizeRejectCode(c) !== undefined, { message: 'not a reject code' });

/** Configuration of a catalogue: a payer companion guide's regrouping, and official descriptions. */
export const catalogueConfigSchema = z
  .object({
    /** Codes moved to another group (and optionally relabelled) for this payer. */
    overrides: z
      .record(codeKey, z.object({ group: z.enum(GROUPS), label: z.string().min(1).optional() }).strict())
      .optional(),
    /** Official descriptions by code, loaded by the user (licensed by NCPDP). */
    descriptions: z.record(codeKey, z.string()).optional(),
  })
  .strict();

export type CatalogueConfig = z.input<typeof catalogueConfigSchema>;

/** What the catalogue says of one code. */
export interface RejectCodeInfo {
  readonly code: string;
  readonly group: RejectGroup;
  readonly label: string;
  /** The official description, when one was loaded. */
  readonly description?: string;
}

/** A reject-code lookup. Unknown codes come back in the `unknown` group: a person looks. */
export interface Catalogue {
  lookup(code: unknown): RejectCodeInfo | undefined;
  /** Every known code. */
  entries(): IterableIterator<[string, RejectCodeEntry]>;
}

/** Thrown when catalogue configuration is invalid; `issues` name each bad path. */
export class CatalogueConfigError extends Error {
  readonly code = 'RXGATE_CLASSIFIER_INVALID_CONFIG';
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>;
  constructor(issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) {
    super(`invalid catalogue configuration: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'CatalogueConfigError';
    this.issues = issues;
  }
}

function build(
  map: ReadonlyMap<string, RejectCodeEntry>,
  descriptions: ReadonlyMap<string, string>,
): Catalogue {
  const cache = new Map<string, RejectCodeInfo>();
  return {
    lookup(raw) {
      const code = normalizeRejectCode(raw);
      if (code === undefined) return undefined;
      let info = cache.get(code);
      // Stryker disable next-line ConditionalExpression: the cache saves building an equal answer again.
      if (info === undefined) {
        const e = map.get(code);
        const description = descriptions.get(code);
        info = {
          code,
          group: e?.group ?? 'unknown',
          label: e?.label ?? 'Unknown reject code',
          ...(description === undefined ? {} : { description }),
        };
        // Stryker disable next-line all: the cache's bound only limits memory; every answer is the same.
        if (cache.size < 4096) cache.set(code, info);
      }
      return info;
    },
    entries: () => map.entries(),
  };
}

/** The built-in catalogue, with no overrides. */
export const defaultCatalogue: Catalogue = build(REJECT_CODES, new Map());

/** A catalogue with a payer's overrides and loaded descriptions, validated. */
export function createCatalogue(config: CatalogueConfig = {}): Catalogue {
  const parsed = catalogueConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new CatalogueConfigError(
      parsed.error.issues.map((i) => ({ path: i.path.join('.') || '(root)', message: i.message })),
    );
  }
  const map = new Map(REJECT_CODES);
  for (const [raw, o] of Object.entries(parsed.data.overrides ?? {})) {
    const code = normalizeRejectCode(raw)!;
    map.set(code, { group: o.group, label: o.label ?? map.get(code)?.label ?? 'Payer-specific code' });
  }
  const descriptions = new Map<string, string>();
  for (const [raw, d] of Object.entries(parsed.data.descriptions ?? {}))
    descriptions.set(normalizeRejectCode(raw)!, d);
  return build(map, descriptions);
}

/**
 * Reads official descriptions from a file: JSON (`{ "70": "…" }`) or CSV/TSV lines of
 * `code,description`. Lines that are not a code and a description are skipped.
 */
export async function loadDescriptions(path: string): Promise<Record<string, string>> {
  const text = await readFile(path, 'utf8');
  if (/^\s*[{]/.test(text)) {
    const data: unknown = JSON.parse(text);
    const parsed = z.record(codeKey, z.string()).safeParse(data);
    if (!parsed.success) {
      throw new CatalogueConfigError(
        parsed.error.issues.map((i) => ({ path: `${path}:${i.path.join('.')}`, message: i.message })),
      );
    }
    return parsed.data;
  }
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*"?([0-9A-Za-z*]{1,4})"?\s*[,\t]\s*"?(.*?)"?\s*$/.exec(line);
    if (!m) continue;
    const code = normalizeRejectCode(m[1]);
    if (code !== undefined && m[2]) out[code] = m[2];
  }
  return out;
}
