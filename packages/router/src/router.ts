import type { TimerHandle } from '@rxgate/ratelimit';
import { type CanonicalClaim, safeParseClaim } from './claim.js';
import { ClaimRun, runClaim } from './claim-run.js';
import type { CommitState } from './commit-state.js';
import { RouterContext } from './context.js';
import type { DeadLetter } from './dead-letters.js';
import type { Lane } from './decide.js';
import type { FieldIssue } from './errors.js';
import { RouterClosedError, RouterConfigError } from './errors.js';
import { withExplanation } from './explain.js';
import { idempotencyKeyer } from './idempotency.js';
import type { Admission } from './ledger.js';
import { type LedgerView, requestKeyOf } from './ledger.js';
import { type RouterOptions, resolveOptions, type SubmitOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { Recorder } from './record.js';
import { type CanonicalReversal, reversalBody, reversedIdentity, safeParseReversal } from './reversal.js';
import { readSubmitOptions } from './submit-options.js';
import type { Metrics } from './telemetry.js';

export type {
  AuditOptions,
  Lane,
  LaneBudgets,
  RetryOptions,
  RouterLimiter,
  RouterNode,
  RouterOptions,
  SubmitOptions,
} from './options.js';

export interface Router {
  /**
   * Runs one claim to exactly one outcome. Never rejects for anything about the claim or its
   * options (bad input is an `invalid` outcome); only a router already closed rejects, with
   * `RouterClosedError`, having sent nothing.
   */
  submit(raw: unknown, options?: SubmitOptions): Promise<Outcome>;
  /**
   * Submits a dead letter again: to its pinned node only, when it has one (it may be paid
   * there), whatever this router's ledger remembers.
   */
  resubmit(letter: DeadLetter, options?: Omit<SubmitOptions, 'pinnedNode'>): Promise<Outcome>;
  /**
   * Asks the pinned node again, under the same key, for every claim that may be committed there
   * and whose run ended (the dead-letter queue's pinned letters): a replayed or fresh answer
   * settles it (ledger, audit, a `reconciled` event); a node that stays down keeps it pinned
   * (its letter is put back). Never sends a claim to a node other than its pin.
   */
  reconcile(): Promise<ReconcileReport>;
  /** Waits for the claims in flight, then closes pools, the ledger and the audit log. Idempotent. */
  close(): Promise<void>;
  readonly metrics: Metrics;
  /** Claims in flight. */
  readonly inFlight: number;
}

/** What one `reconcile()` pass did. */
export interface ReconcileReport {
  /** Maybe-committed claims asked again. */
  readonly asked: number;
  /** Of those, settled with a final outcome. */
  readonly settled: number;
  /** Of those, still pinned (the node did not answer). */
  readonly stillOpen: number;
  readonly outcomes: readonly Outcome[];
}

export interface ReconcileOptions {
  /** Run `reconcile()` every this many ms on the router's clock, until `close()`. */
  readonly everyMs: number;
}

/** A B2 in wire form (read once, guarded by the caller). */
function isReversal(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as Record<string, unknown>)['103-A3'] === 'B2';
}

/**
 * Creates the router. A claim's path: parse → admission (the ledger: own, join, or take over,
 * with where the claim may already be committed) → attempts, each decided by `decide` → one
 * outcome, recorded once (ledger, audit, event, metric).
 */
export function createRouter(options: RouterOptions): Router {
  const o = resolveOptions(options);
  const rec = new Recorder(o);
  const ctx = new RouterContext(o, rec);
  const keyOf = idempotencyKeyer(o.secret);
  const clock = o.clock;
  // The memory ledger answers at once: no await where the value is already there.
  const atOnce = ctx.ledgerAtOnce;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  let closing: Promise<void> | undefined;
  let sequence = 0;
  const correlationPrefix = `${Math.floor(o.random() * 0xffffff)
    .toString(16)
    .padStart(6, '0')}-`;

  const outcomeOf = (
    claimKey: string,
    correlationId: string,
    start: number,
    body: { kind: 'dead-lettered'; reason: string } | { kind: 'in-flight-elsewhere' },
  ): Outcome =>
    ({
      ...(body.kind === 'dead-lettered' ? { ...body, lane: 'batch' } : body),
      claimKey,
      correlationId,
      path: [],
      attempts: 0,
      elapsedMs: clock.now() - start,
    }) as Outcome;

  async function submitParsed(
    claim: CanonicalClaim,
    correlationId: string,
    lane: Lane,
    start: number,
    so: SubmitOptions,
    /**
     * A reversal: its ledger identity, its body, and the node its B1 is (maybe) paid on, where
     * it goes unless its own identity is pinned elsewhere already.
     */
    pre?: { readonly identity: string; readonly body: string; readonly target?: string | undefined },
  ): Promise<Outcome> {
    const segment = so.segment ?? 'retail';
    // By name, not o.lanes[lane]: a keyed read of two names is a megamorphic access.
    const budgets = lane === 'pos' ? o.lanes.pos : o.lanes.batch;
    const deadline = so.deadline ?? start + (budgets[segment] ?? budgets.default);
    const claimKey = pre?.identity ?? keyOf(claim);
    // No claim starts that its audit trail cannot follow.
    if (rec.audit.full) {
      rec.audit.drop();
      return outcomeOf(claimKey, correlationId, start, {
        kind: 'dead-lettered',
        reason: 'audit-unavailable',
      });
    }
    for (;;) {
      let a: Admission;
      try {
        a = atOnce !== undefined ? atOnce.begin(claimKey) : await o.ledger.begin(claimKey);
      } catch {
        // Without the ledger, exactly-once cannot be promised: nothing is sent.
        return recorded(
          outcomeOf(claimKey, correlationId, start, { kind: 'dead-lettered', reason: 'ledger-unavailable' }),
          lane,
        );
      }
      if (a.kind === 'done') {
        // A payment whose reversal the payer accepted, where the process stopped before the
        // identity was reopened: reopened now, and the rebill goes to the payer.
        if (pre === undefined && closesPayment(a.outcome) && (await reversedMeanwhile(claimKey))) continue;
        // A ledger keeps the outcome as it was finished, before its explanation was written.
        return withExplanation(a.outcome);
      }
      if (a.kind === 'in-flight') {
        // A joiner settles by its own deadline (or abort), whatever the owner does.
        const joined = await joinUntil(a.wait, deadline, so.signal);
        if (joined === 'deadline')
          return recorded(outcomeOf(claimKey, correlationId, start, { kind: 'in-flight-elsewhere' }), lane);
        if (joined !== undefined) return withExplanation(joined);
        continue; // The owner is gone or left the claim open: begin again, and maybe own it.
      }
      let commit: CommitState = a.commit;
      const pinTo = so.pinnedNode ?? (a.commit.kind === 'unsent' ? pre?.target : undefined);
      if (pinTo !== undefined && !(commit.kind === 'pinned' && commit.node === pinTo)) {
        try {
          await o.ledger.pin(claimKey, pinTo);
          commit = { kind: 'pinned', node: pinTo };
        } catch {
          const refused = outcomeOf(claimKey, correlationId, start, {
            kind: 'dead-lettered',
            reason: 'ledger-unavailable',
          });
          await o.ledger.finish(claimKey, refused).catch(() => undefined);
          return recorded(refused, lane);
        }
      }
      const r = new ClaimRun(
        ctx,
        claim,
        claimKey,
        correlationId,
        lane,
        segment,
        start,
        deadline,
        `${claim.bin}/${claim.pcn}`,
        commit,
        a.generation,
      );
      if (pre !== undefined) r.body = pre.body;
      return await own(r, so.signal);
    }
  }

  /** Waits for the owner's outcome until `deadline` or an abort. */
  function joinUntil(
    wait: Promise<Outcome | undefined>,
    deadline: number,
    signal: AbortSignal | undefined,
  ): Promise<Outcome | undefined | 'deadline'> {
    return new Promise((resolve) => {
      const stop = () => {
        timer.cancel();
        signal?.removeEventListener('abort', stop);
        resolve('deadline');
      };
      const timer = clock.setTimer(Math.max(0, deadline - clock.now()), stop);
      signal?.addEventListener('abort', stop, { once: true });
      if (signal?.aborted) stop();
      wait.then(
        (outcome) => {
          timer.cancel();
          signal?.removeEventListener('abort', stop);
          resolve(outcome);
        },
        () => {
          timer.cancel();
          signal?.removeEventListener('abort', stop);
          resolve(undefined);
        },
      );
    });
  }

  /** Runs an owned claim to its outcome, then records it: ledger, then audit, event, metrics. */
  async function own(r: ClaimRun, userSignal: AbortSignal | undefined): Promise<Outcome> {
    const onAbort = userSignal === undefined ? undefined : () => r.signal.abort(userSignal.reason);
    if (userSignal !== undefined && onAbort !== undefined) {
      if (userSignal.aborted) r.signal.abort(userSignal.reason);
      else userSignal.addEventListener('abort', onAbort, { once: true });
    }
    let outcome: Outcome;
    try {
      outcome = await runClaim(r);
    } catch (e) {
      // Exactly one outcome, whatever happened inside; a claim that may be committed stays pinned.
      rec.log.error(
        { correlationId: r.correlationId, error: e instanceof Error ? e.name : 'unknown' },
        'router internal error',
      );
      outcome =
        r.commit.kind === 'pinned'
          ? r.finish({ kind: 'needs-reconciliation', reason: 'internal-error', node: r.commit.node })
          : r.finish({ kind: 'dead-lettered', reason: 'internal-error', lane: 'batch' });
    } finally {
      r.timer?.cancel();
      if (onAbort !== undefined) userSignal?.removeEventListener('abort', onAbort);
    }
    try {
      if (atOnce !== undefined) atOnce.finish(r.claimKey, outcome);
      else await o.ledger.finish(r.claimKey, outcome);
    } catch {
      rec.log.warn(
        { correlationId: r.correlationId, ledger: 'finish-failed' },
        'ledger unavailable at finish',
      );
    }
    return await recorded(outcome, r.lane);
  }

  function recorded(outcome: Outcome, lane: Lane): Promise<Outcome> {
    return rec.outcome(withExplanation(outcome), lane);
  }

  const invalid = (issues: readonly FieldIssue[], correlationId: string, lane: Lane): Promise<Outcome> =>
    recorded(
      withExplanation({
        kind: 'invalid',
        issues,
        claimKey: '',
        correlationId,
        path: [],
        attempts: 0,
        elapsedMs: 0,
      }),
      lane,
    );

  // Not async: it hands on the promise of the path it takes (one async frame fewer a claim).
  function submit(raw: unknown, given: unknown): Promise<Outcome> {
    const start = clock.now();
    const correlationId = correlationPrefix + (++sequence).toString(36);
    // Nothing a caller passes makes submit reject or hang: a getter that throws, a NaN
    // deadline, an unknown lane are an `invalid` outcome naming what is wrong.
    const so = readSubmitOptions(given);
    const lane: Lane = so.ok && so.options.lane === 'batch' ? 'batch' : 'pos';
    if (!so.ok) return invalid(so.issues, correlationId, lane);
    let reversal: ReturnType<typeof safeParseReversal> | undefined;
    let parsed: ReturnType<typeof safeParseClaim> | undefined;
    try {
      if (isReversal(raw)) reversal = safeParseReversal(raw);
      else parsed = safeParseClaim(raw);
    } catch {
      return invalid(
        [{ field: '(claim)', message: 'could not be read (a property threw)' }],
        correlationId,
        lane,
      );
    }
    if (reversal !== undefined) {
      if (!reversal.ok) return invalid(reversal.issues, correlationId, lane);
      return submitReversal(reversal.reversal, correlationId, lane, start, so.options);
    }
    if (!parsed!.ok) return invalid(parsed!.issues, correlationId, lane);
    return submitParsed(parsed!.claim, correlationId, lane, start, so.options);
  }

  /** Whether the paid generation of `b1Key` has an accepted reversal on record; reopens it if so. */
  async function reversedMeanwhile(b1Key: string): Promise<boolean> {
    try {
      const { generation } = await o.ledger.lookup(b1Key);
      const b2 = await o.ledger.lookup(`${requestKeyOf(b1Key, generation)}.b2`);
      if (b2.outcome === undefined || !closesPayment(b2.outcome)) return false;
      await o.ledger.reopen(b1Key);
      return true;
    } catch {
      return false; // the ledger answers the stored payment; nothing is sent
    }
  }

  /**
   * A B2: it undoes the payment of its B1 identity, so it goes to the node that paid it (when
   * the ledger knows it), under its own key (the B1 generation it reverses, `.b2`). Accepted,
   * the B1 identity is reopened: a rebill is sent, under the next generation's key.
   */
  async function submitReversal(
    rev: CanonicalReversal,
    correlationId: string,
    lane: Lane,
    start: number,
    so: SubmitOptions,
  ): Promise<Outcome> {
    const b1 = reversedIdentity(rev);
    const b1Key = keyOf(b1);
    let known: LedgerView;
    try {
      known = await o.ledger.lookup(b1Key);
    } catch {
      known = { outcome: undefined, generation: 0, commit: { kind: 'unsent' } };
    }
    // Paid there, or maybe paid there (answer lost): the reversal goes to that node only.
    const paidOn =
      known.outcome !== undefined && 'node' in known.outcome
        ? known.outcome.node
        : known.commit.kind === 'pinned'
          ? known.commit.node
          : undefined;
    // A reversal of the generation that is paid; when none is (reopened by an accepted
    // reversal), of the one before: the same B2 again is answered by the ledger, not re-sent.
    const reversedGeneration =
      known.outcome === undefined && known.commit.kind === 'unsent' && known.generation > 0
        ? known.generation - 1
        : known.generation;
    const identity = `${requestKeyOf(b1Key, reversedGeneration)}.b2`;
    const outcome = await submitParsed(rev as unknown as CanonicalClaim, correlationId, lane, start, so, {
      identity,
      body: reversalBody(rev),
      target: paidOn,
    });
    // Reopened once, by the submission the payer answered (a repeat gets the stored answer).
    const accepted = closesPayment(outcome);
    if (accepted && outcome.correlationId === correlationId) {
      try {
        await o.ledger.reopen(b1Key);
      } catch {
        rec.log.error({ correlationId, ledger: 'reopen-failed' }, 'ledger unavailable after a reversal');
      }
    }
    return outcome;
  }

  // The last guard: an internal failure before a claim is owned is still one outcome.
  const internalError = (): Outcome =>
    withExplanation({
      kind: 'dead-lettered',
      reason: 'internal-error',
      lane: 'batch',
      claimKey: '',
      correlationId: correlationPrefix + (++sequence).toString(36),
      path: [],
      attempts: 0,
      elapsedMs: 0,
    } as Outcome);

  async function reconcile(): Promise<ReconcileReport> {
    const taken = (await o.deadLetters.takePinned?.()) ?? [];
    // A letter of a generation the identity has left (reversed since, or rejected and sent
    // again) is settled: asking again would bill what the pharmacist reversed.
    const letters: DeadLetter[] = [];
    for (const letter of taken) {
      if (letter.claim.transactionCode !== 'B2') {
        const view = await o.ledger.lookup(letter.claimKey).catch(() => undefined);
        if (view !== undefined && view.generation !== (letter.generation ?? 0)) continue;
      }
      letters.push(letter);
    }
    const outcomes = await Promise.all(
      letters.map((letter) =>
        resubmitLetter(letter, { lane: 'batch' }).then((outcome) => {
          const settled = outcome.kind !== 'needs-reconciliation' && outcome.kind !== 'in-flight-elsewhere';
          o.onEvent?.({
            type: 'reconciled',
            correlationId: outcome.correlationId,
            claimKey: letter.claimKey,
            node: letter.pinnedNode!,
            kind: outcome.kind,
            settled,
          });
          return outcome;
        }),
      ),
    );
    const settled = outcomes.filter(
      (x) => x.kind !== 'needs-reconciliation' && x.kind !== 'in-flight-elsewhere',
    );
    return {
      asked: letters.length,
      settled: settled.length,
      stillOpen: letters.length - settled.length,
      outcomes,
    };
  }

  function resubmitLetter(letter: DeadLetter, so: Omit<SubmitOptions, 'pinnedNode'>): Promise<Outcome> {
    const start = clock.now();
    const lane: Lane = so.lane === 'batch' ? 'batch' : (so.lane ?? letter.lane);
    const correlationId = correlationPrefix + (++sequence).toString(36);
    const pinned = letter.pinnedNode === undefined ? so : { ...so, pinnedNode: letter.pinnedNode };
    if (letter.claim.transactionCode === 'B2')
      return submitReversal(letter.claim as unknown as CanonicalReversal, correlationId, lane, start, pinned);
    return submitParsed(letter.claim, correlationId, lane, start, pinned);
  }

  // The background cadence: one pass at a time, stopped by close().
  let cadence: TimerHandle | undefined;
  const every = options.reconcile?.everyMs;
  if (every !== undefined) {
    if (!(typeof every === 'number' && every > 0 && Number.isFinite(every)))
      throw new RouterConfigError('reconcile.everyMs', 'must be a positive number of milliseconds');
    const tick = () => {
      cadence = clock.setTimer(every, () => {
        if (closing !== undefined) return;
        tracked(reconcile)
          .catch(() => undefined)
          .finally(() => {
            if (closing === undefined) tick();
          });
      });
    };
    tick();
  }

  const tracked = <T>(run: () => Promise<T>): Promise<T> => {
    if (closing !== undefined) return Promise.reject(new RouterClosedError());
    inFlight++;
    let p: Promise<T>;
    try {
      p = run();
    } catch (e) {
      p = Promise.reject(e);
    }
    return p.finally(() => {
      if (--inFlight === 0 && drained !== undefined) drained();
    });
  };

  // A submission's end: out of flight (then and not before, close() may go on), its outcome as is.
  const settled = (outcome: Outcome): Outcome => {
    if (--inFlight === 0 && drained !== undefined) drained();
    return outcome;
  };

  return {
    // As `tracked`, in one `then` (a claim's promise chain is on every claim's cost).
    submit: (raw, so = {}) => {
      if (closing !== undefined) return Promise.reject(new RouterClosedError());
      inFlight++;
      let run: Promise<Outcome>;
      try {
        run = submit(raw, so);
      } catch {
        run = Promise.reject(new Error('internal'));
      }
      return run.then(settled, () => settled(internalError()));
    },
    resubmit: (letter, so = {}) => tracked(() => resubmitLetter(letter, so)),
    reconcile: () => (closing !== undefined ? Promise.reject(new RouterClosedError()) : tracked(reconcile)),
    close() {
      closing ??= (async () => {
        cadence?.cancel();
        if (inFlight > 0)
          await new Promise<void>((resolve) => {
            drained = resolve;
          });
        await o.transport.close();
        await rec.audit.close();
        // Shutdown goes on when the audit log cannot write its last records: they are counted
        // out loudly (a dropped alarm and an error line), never silently, and close resolves.
        await o.audit.close?.().catch((e: unknown) => rec.auditCloseFailed(e));
        await o.ledger.close();
      })();
      return closing;
    },
    get metrics() {
      return rec.metrics;
    },
    get inFlight() {
      return inFlight;
    },
  };
}

/** A payer's acceptance: of a B1, a payment; of a B2, the reversal. */
function closesPayment(o: Outcome): boolean {
  return o.kind === 'approved' || o.kind === 'paid' || o.kind === 'captured';
}
