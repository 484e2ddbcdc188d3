import type { AuditRecord, RouterTelemetryOptions } from '@rxgate/router';
import type { LatencyHistogram } from './latency.js';
import type { ReconciliationCounts } from './reconciliation.js';
import type { Scenario } from './scenario.js';
import type { Series } from './series.js';

/** Where the claims go. */
export type RunMode = 'virtual' | 'loopback' | 'target';

export interface RunOptions {
  /** `virtual` (default): in process, on the virtual clock. `loopback`: real HTTP to the vendor model's msw handlers on 127.0.0.1 at the real rate. `target`: real HTTP to `target`. */
  readonly mode?: RunMode;
  readonly target?: string;
  readonly fallbackTarget?: string;
  /** Client credentials for a target's `/oauth/token` (none: no Authorization header). */
  readonly credentials?: { readonly clientId: string; readonly clientSecret: string };
  /** Claims to send instead of generated ones (`target` mode; JSON lines of wire-form claims). */
  readonly claims?: ReadonlyArray<Record<string, unknown>>;
  /** The file the claims came from, for the replay line. */
  readonly claimsFile?: string;
  /** The file line of each claim (blank lines skipped), to name an invalid one. @default index + 1 */
  readonly claimLines?: readonly number[];
  /** Write every router log line here (JSON lines). */
  readonly logFile?: string;
  /** Write the audit log here (JSON lines, fsync at each outcome). */
  readonly auditFile?: string;
  /**
   * `target` mode: the router's durable ledger file. A run killed (kill -9) and started again
   * with the same claims never pays one twice. @default '.rxgate/target-ledger.jsonl'
   */
  readonly ledgerFile?: string;
  /**
   * Texts of each kind (log line, event, audit record, outcome) the independent PHI oracle
   * searches: the first this many, then a thin sample. `Infinity`: every text (property tests).
   * @default 200
   */
  readonly phiOracleSample?: number;
  /** Keep every audit record in memory for the claims that break an invariant (replay). @default true under 50,000 claims */
  readonly keepAudit?: boolean;
  /** Keep the audit trail of these claims (by correlation id) as well as of the broken ones. */
  readonly traceCorrelationIds?: readonly string[];
  /** Submit claims as fast as the router admits them, ignoring the traffic rate (a claims file). */
  readonly asFastAsAdmitted?: boolean;
  /** A shared store (`redis://…`): the quota, the ledger and the negative cache live in Redis. Real-time modes only. */
  readonly store?: string;
  /**
   * The namespace of every key this run writes to the store. Processes of one run share it;
   * another run must not (its ledger would answer this run's claims as already paid).
   * @default `rxgate:sim:<a fresh run id>`
   */
  readonly storePrefix?: string;
  /** Submit only this share of the traffic (worker `worker` of `of`): the other workers send the rest. */
  readonly share?: { readonly worker: number; readonly of: number };
  /**
   * The router's OpenTelemetry (a meter, a tracer): what `--metrics-port` serves. Without it the
   * router records none, whatever provider is registered globally. @default false
   */
  readonly telemetry?: RouterTelemetryOptions;
  /** Called about every simulated bucket. */
  readonly onProgress?: (p: {
    readonly submitted: number;
    readonly settled: number;
    readonly total: number | undefined;
    readonly elapsedMs: number;
  }) => void;
}

/** One claim's trace, for the claims that broke an invariant. */
export interface ClaimTrace {
  readonly index: number;
  readonly correlationId: string;
  readonly lane: string;
  readonly records: readonly AuditRecord[];
}

export interface RunResult {
  readonly scenario: Scenario;
  readonly hash: string;
  readonly mode: RunMode;
  /** The target URL and the claims file, in `target` mode. */
  readonly target?: string;
  readonly claimsFile?: string;
  /** Claims the router refused as invalid: the claims-file line and the fields at fault (never the values). */
  readonly invalidClaims: ReadonlyArray<{ readonly line: number; readonly fields: readonly string[] }>;
  /** What the user should know before trusting the run (another run's keys in the store). */
  readonly warnings: readonly string[];
  /** The namespace of the run's keys in the store, with `store`. */
  readonly storePrefix?: string;
  /** Simulated (virtual) or real milliseconds from the first claim to the last outcome. */
  readonly spanMs: number;
  readonly claims: number;
  readonly outcomes: Readonly<Record<string, number>>;
  /** Claims left maybe-committed (`needs-reconciliation`) by the run, and after `router.reconcile()` at its end. */
  readonly reconciliation: ReconciliationCounts;
  readonly rejectCodes: Readonly<Record<string, number>>;
  /** Vendor answers by status (`reset`, `refused`, `hang` for lost connections); empty against a target. */
  readonly statuses: Readonly<Record<string, number>>;
  readonly latency: Readonly<Record<'all' | 'pos' | 'batch', LatencyHistogram>>;
  readonly attempts: number;
  readonly throttledAnswers: number;
  readonly failovers: number;
  readonly adjudicatedAnswers: number;
  /** Vendor quota, requests per second (undefined against a target). */
  readonly quotaPerSecond: number | undefined;
  readonly breakerTransitions: ReadonlyArray<{
    readonly at: number;
    readonly key: string;
    readonly from: string;
    readonly to: string;
    readonly reason: string;
  }>;
  readonly series: Series;
  readonly invariants: Invariants;
  /** Claims that broke an invariant, with their audit trail. */
  readonly broken: readonly ClaimTrace[];
  readonly slowest: ReadonlyArray<{
    readonly correlationId: string;
    readonly lane: string;
    readonly elapsedMs: number;
    readonly kind: string;
  }>;
  readonly deadLettered: ReadonlyArray<{ readonly correlationId: string; readonly reason: string }>;
  readonly faultsFired: readonly number[];
}

export interface Invariants {
  /** Claim keys the vendor paid more than once (empty when checked and kept). */
  readonly paidTwice: readonly string[];
  readonly paidTwiceChecked: boolean;
  /** Claims that did not end in exactly one outcome. */
  readonly notExactlyOnce: readonly number[];
  readonly phiFound: ReadonlyArray<{ readonly where: string; readonly sample: string }>;
  readonly phiTextsScanned: number;
  /** The independent oracle: plain substring search of every PHI value over a sample of each kind of text. */
  readonly phiOracleFound: ReadonlyArray<{ readonly where: string; readonly sample: string }>;
  readonly phiOracleTexts: number;
  readonly phiOracleValues: number;
  /** Most half-open probes in flight at once, per breaker, and the bound. */
  readonly maxProbesInFlight: number;
  readonly probeBound: number;
  /** pos claims that finished after their deadline (+1 ms). */
  readonly deadlineMisses: readonly number[];
  /** After the last fault window healed: when throughput was back, and the allowed time. */
  readonly liveness: {
    readonly applicable: boolean;
    readonly recoveredAfterMs: number | undefined;
    readonly withinMs: number;
    readonly ok: boolean;
  };
  /** Fault windows (by index) that never fired. */
  readonly faultsNeverFired: readonly number[];
}
