export {
  type AuditLog,
  type AuditRecord,
  AuditUnwrittenError,
  JsonlAuditLog,
  MemoryAuditLog,
  type ReplayedClaim,
  replayAudit,
} from './audit.js';
export type { AuditAlarm } from './audit-keeper.js';
export { ROUTER_CHANNELS } from './channels.js';
export {
  type CanonicalClaim,
  decimalFixed,
  logSafe,
  type ParseResult,
  parseClaim,
  type RawClaim,
  rawClaimSchema,
  type SafeClaim,
  safeParseClaim,
  toWire,
  wireBody,
} from './claim.js';
export {
  CLAIM_FIELDS,
  type ClaimField,
  type FieldFormat,
  RESPONSE_FIELDS,
  type ResponseField,
} from './claim-fields.js';
export { type CommitState, commitAfter, maySendTo } from './commit-state.js';
export { type ClientCredentialsOptions, type Credentials, clientCredentials } from './credentials.js';
export { type Crosswalk, type CrosswalkEntry, crosswalkSnapshot } from './crosswalk.js';
export {
  type DeadLetter,
  type DeadLetterQueue,
  MemoryDeadLetterQueue,
  parseDeadLetter,
  serializeDeadLetter,
} from './dead-letters.js';
export { type Action, type ClaimState, decide, MAINTENANCE_MS, type Step } from './decide.js';
export {
  CredentialsError,
  type FieldIssue,
  InvalidClaimError,
  isInvalidClaimError,
  isRouterError,
  isTransportError,
  RouterClosedError,
  RouterConfigError,
  RouterError,
  type RouterErrorCode,
  TransportError,
} from './errors.js';
export { explain } from './explain.js';
export { idempotencyKey, idempotencyKeyer, identityText, repairedKey } from './idempotency.js';
export { FileJournal, type Journal, MemoryJournal } from './journal.js';
export { JournalLedger, type JournalLedgerOptions, openFileLedger } from './journal-ledger.js';
export {
  type Admission,
  advancesGeneration,
  closes,
  isFinal,
  type Ledger,
  type LedgerView,
  LostOwnershipError,
  requestKeyOf,
} from './ledger.js';
export { MemoryLedger } from './memory-ledger.js';
export { MemoryNegativeCache, type NegativeCache } from './negative-cache.js';
export type { RouterMeter, RouterTelemetryOptions, RouterTracer } from './otel.js';
export type {
  Outcome,
  OutcomeBase,
  OutcomeKind,
  PaidAmounts,
} from './outcome.js';
export { type ContainsPhi, type LogSafe, Phi } from './phi.js';
export type { QuotaScopeOptions } from './quota-scope.js';
export {
  type CanonicalReversal,
  type ReversalParse,
  rawReversalSchema,
  reversalBody,
  safeParseReversal,
} from './reversal.js';
export {
  type AuditOptions,
  createRouter,
  type Lane,
  type LaneBudgets,
  type ReconcileOptions,
  type ReconcileReport,
  type RetryOptions,
  type Router,
  type RouterLimiter,
  type RouterNode,
  type RouterOptions,
  type SubmitOptions,
} from './router.js';
export { type AbortSignalLike, toAbortSignal } from './signal.js';
export {
  type CounterHandle,
  type GaugeHandle,
  type HistogramHandle,
  type Logger,
  type MetricLabels,
  Metrics,
  type RouterEvent,
  type SafeLogger,
  safeLogger,
} from './telemetry.js';
export {
  BODY_MAX_BYTES,
  functionTransport,
  type NodeAddress,
  type Transport,
  type UndiciTransportOptions,
  undiciTransport,
  type WireRequest,
  type WireResponse,
} from './transport.js';
