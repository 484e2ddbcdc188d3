import { type CanonicalClaim, safeParseClaim } from './claim.js';
import { ClaimRun, runClaim } from './claim-run.js';
import type { CommitState } from './commit-state.js';
import { RouterContext } from './context.js';
import type { DeadLetter } from './dead-letters.js';
import type { Lane } from './decide.js';
import { RouterClosedError } from './errors.js';
import { idempotencyKeyer } from './idempotency.js';
import type { Admission } from './ledger.js';
import { type RouterOptions, resolveOptions, type SubmitOptions } from './options.js';
import type { Outcome } from './outcome.js';
import { Recorder } from './record.js';
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
  /** Runs one claim to exactly one outcome. Never rejects (bad input is an `invalid` outcome). */
  submit(raw: unknown, options?: SubmitOptions): Promise<Outcome>;
  /**
   * Submits a dead letter again: to its pinned node only, when it has one (it may be paid
   * there), whatever this router's ledger remembers.
   */
  resubmit(letter: DeadLetter, options?: Omit<SubmitOptions, 'pinnedNode'>): Promise<Outcome>;
  /** Waits for the claims in flight, then closes pools, the ledger and the audit log. Idempotent. */
  close(): Promise<void>;
  readonly metrics: Metrics;
  /** Claims in flight. */
  readonly inFlight: number;
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
  ): Promise<Outcome> {
    const segment = so.segment ?? 'retail';
    const budgets = o.lanes[lane];
    const deadline = so.deadline ?? start + (budgets[segment] ?? budgets.default);
    const claimKey = keyOf(claim);
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
        a = await o.ledger.begin(claimKey);
      } catch {
        // Without the ledger, exactly-once cannot be promised: nothing is sent.
        return recorded(
          outcomeOf(claimKey, correlationId, start, { kind: 'dead-lettered', reason: 'ledger-unavailable' }),
          lane,
        );
      }
      if (a.kind === 'done') return a.outcome;
      if (a.kind === 'in-flight') {
        // A joiner settles by its own deadline (or abort), whatever the owner does.
        const joined = await joinUntil(a.wait, deadline, so.signal);
        if (joined === 'deadline')
          return recorded(outcomeOf(claimKey, correlationId, start, { kind: 'in-flight-elsewhere' }), lane);
        if (joined !== undefined) return joined;
        continue; // The owner is gone or left the claim open: begin again, and maybe own it.
      }
      let commit: CommitState = a.commit;
      if (so.pinnedNode !== undefined && !(commit.kind === 'pinned' && commit.node === so.pinnedNode)) {
        try {
          await o.ledger.pin(claimKey, so.pinnedNode);
          commit = { kind: 'pinned', node: so.pinnedNode };
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
      );
      return own(r, so.signal);
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
      await o.ledger.finish(r.claimKey, outcome);
    } catch {
      rec.log.warn(
        { correlationId: r.correlationId, ledger: 'finish-failed' },
        'ledger unavailable at finish',
      );
    }
    return recorded(outcome, r.lane);
  }

  function recorded(outcome: Outcome, lane: Lane): Promise<Outcome> {
    return rec.outcome(outcome, lane);
  }

  async function submit(raw: unknown, so: SubmitOptions): Promise<Outcome> {
    const start = clock.now();
    const lane: Lane = so.lane === 'batch' ? 'batch' : 'pos';
    const correlationId = correlationPrefix + (++sequence).toString(36);
    const parsed = safeParseClaim(raw);
    if (!parsed.ok)
      return recorded(
        {
          kind: 'invalid',
          issues: parsed.issues,
          claimKey: '',
          correlationId,
          path: [],
          attempts: 0,
          elapsedMs: 0,
        },
        lane,
      );
    return submitParsed(parsed.claim, correlationId, lane, start, so);
  }

  const tracked = (run: () => Promise<Outcome>): Promise<Outcome> => {
    if (closing !== undefined) return Promise.reject(new RouterClosedError());
    inFlight++;
    let p: Promise<Outcome>;
    try {
      p = run();
    } catch (e) {
      p = Promise.reject(e);
    }
    return p.finally(() => {
      if (--inFlight === 0 && drained !== undefined) drained();
    });
  };

  return {
    submit: (raw, so = {}) => tracked(() => submit(raw, so)),
    resubmit: (letter, so = {}) =>
      tracked(() => {
        const start = clock.now();
        const lane: Lane = so.lane === 'batch' ? 'batch' : (so.lane ?? letter.lane);
        const correlationId = correlationPrefix + (++sequence).toString(36);
        return submitParsed(letter.claim, correlationId, lane, start, {
          ...so,
          ...(letter.pinnedNode === undefined ? {} : { pinnedNode: letter.pinnedNode }),
        });
      }),
    close() {
      closing ??= (async () => {
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
