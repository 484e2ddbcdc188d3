export { type AdapterOptions, classifierAdapters } from './adapters.js';
export {
  type Catalogue,
  type CatalogueConfig,
  CatalogueConfigError,
  catalogueConfigSchema,
  createCatalogue,
  defaultCatalogue,
  loadDescriptions,
  type RejectCodeInfo,
} from './catalogue.js';
export { type ClassifyOptions, classify, type ErrorInput, type ResponseInput } from './classify.js';
export { commitEvidence } from './commit.js';
export type { HeaderInput } from './headers.js';
export { parseQuota, type QuotaOptions, type QuotaSignal, resetToSeconds } from './quota.js';
export { normalizeRejectCode, REJECT_CODES, type RejectCodeEntry, type RejectGroup } from './reject-codes.js';
export { parseHttpDate, parseRetryAfter, type RetryAfterOptions } from './retry-after.js';
export type { Amounts, BreakerOutcome, CommitEvidence, Verdict, VerdictKind } from './verdict.js';
