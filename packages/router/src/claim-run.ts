import type { Amounts, RejectCodeInfo, Verdict } from '@rxgate/classifier';
import type { TimerHandle } from '@rxgate/ratelimit';
import { Decimal } from 'decimal.js';
import { attempt } from './attempt.js';
import type { CanonicalClaim } from './claim.js';
import { type CommitState, maySendTo } from './commit-state.js';
import type { RouterContext } from './context.js';
import { type Action, type ClaimState, decide, isDowntime, type Lane, type Step, tally } from './decide.js';
import { repairedKey } from './idempotency.js';
import { requestKeyOf } from './ledger.js';
import type { Outcome, OutcomeBase, PaidAmounts } from './outcome.js';
import { ClaimSignal } from './signal.js';
import { sleep } from './sleep.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** An outcome before the fields every outcome carries are filled in. */
export type OutcomeBody = Outcome extends infer O
  ? O extends Outcome
    ? Omit<O, keyof OutcomeBase>
    : never
  : never;

/** One submission's state on its way to an outcome. */
export class ClaimRun {
  readonly signal = new ClaimSignal();
  /** The deadline timer: armed only before the claim first waits on something. */
  timer: TimerHandle | undefined = undefined;
  path: string[] = [];
  attempts = 0;
  snapshotVersion: string | undefined = undefined;
  /** Where the claim may be committed, as the ledger has it now. */
  commit: CommitState;
  requestKey: string;
  productId: string;
  body: string | undefined = undefined;
  /** The bearer token of the last attempt (a 401 invalidates exactly it). */
  token: string | undefined = undefined;
  constructor(
    readonly ctx: RouterContext,
    readonly claim: CanonicalClaim,
    readonly claimKey: string,
    readonly correlationId: string,
    readonly lane: Lane,
    readonly segment: string,
    readonly start: number,
    readonly deadline: number,
    readonly payer: string,
    commit: CommitState,
    /** The identity's attempt generation (the ledger's): the key this run sends under. */
    readonly generation = 0,
  ) {
    this.commit = commit;
    this.requestKey = requestKeyOf(claimKey, generation);
    this.productId = claim.productId;
  }

  /** Arms the deadline before the first wait: a claim that never waits costs no timer. */
  arm(): void {
    if (this.timer !== undefined || this.signal.aborted) return;
    const signal = this.signal;
    const clock = this.ctx.o.clock;
    this.timer = clock.setTimer(Math.max(0, this.deadline - clock.now()), () => signal.abort());
  }

  /** Fills in the fields every outcome carries. */
  finish(body: OutcomeBody, now = this.ctx.o.clock.now()): Outcome {
    const o = body as Mutable<Outcome>;
    o.claimKey = this.claimKey;
    o.correlationId = this.correlationId;
    o.path = this.path;
    o.attempts = this.attempts;
    o.elapsedMs = now - this.start;
    if (this.generation !== 0) o.generation = this.generation;
    if (this.snapshotVersion !== undefined) o.snapshotVersion = this.snapshotVersion;
    return o;
  }
}

/**
 * Runs one owned claim to its outcome: each step (an attempt, or a refusal before one) goes
 * to `decide`, and its action is carried out here — the only place that acts.
 */
export async function runClaim(r: ClaimRun): Promise<Outcome> {
  const ctx = r.ctx;
  const o = ctx.o;
  const nodes = o.nodes;

  // A claim that may be committed somewhere goes only there; the negative cache is for new claims.
  let node = 0;
  if (r.commit.kind === 'pinned') {
    const pinned = ctx.nodeIndex.get(r.commit.node);
    if (pinned === undefined) {
      // Pinned to a node this router does not know: only that node may answer it.
      ctx.rec.decision(r, r.path, 'pinned-to-unknown-node');
      return r.finish({
        kind: 'needs-reconciliation',
        reason: 'pinned-to-unknown-node',
        node: r.commit.node,
      });
    }
    node = pinned;
  } else {
    const atOnce = ctx.negativeAtOnce;
    for (let i = 0; i < NEGATIVE_CODES.length; i++) {
      const code = NEGATIVE_CODES[i]!;
      const key = negativeKey(code, r.payer, r.productId);
      if (atOnce !== undefined ? atOnce(key) : await o.negativeCache.has(key)) {
        ctx.rec.decision(r, r.path, `negative-cache:${NEGATIVE[code].what}`);
        return r.finish(negativeReject(code, true));
      }
    }
  }

  let counts = { transientOnNode: 0, maybeOnNode: 0 };
  let authReplayed = false;
  let repaired = false;
  let backoffs = 0;
  let triedFallback = false;

  for (;;) {
    if (node === 1) triedFallback = true;
    let step: Step;
    const now = o.clock.now();
    if (r.signal.aborted || now >= r.deadline) step = { kind: now >= r.deadline ? 'deadline' : 'aborted' };
    else {
      // The primary's breaker is open, or it said it is down: go to the fallback first, when allowed.
      const around = failoverTarget(ctx, r, node, triedFallback, repaired);
      if (around !== undefined && (ctx.breakerOf(0, r.segment).state === 'open' || ctx.downUntil[0]! > now)) {
        node = 1;
        counts = { transientOnNode: 0, maybeOnNode: 0 };
        ctx.rec.decision(r, r.path, `failover:${ctx.downUntil[0]! > now ? 'maintenance' : 'breaker-open'}`, {
          node: around,
        });
        continue;
      }
      step = await attempt(ctx, r, node);
    }
    if (step.kind === 'verdict' && isDowntime(step.verdict))
      ctx.downUntil[node] = Math.max(ctx.downUntil[node]!, o.clock.now() + step.verdict.retryAfterMs!);
    counts = tally(counts, step);
    const state: ClaimState = {
      lane: r.lane,
      node: nodes[node]!.name,
      commit: r.commit,
      failoverNode: failoverTarget(ctx, r, node, triedFallback, repaired),
      transientOnNode: counts.transientOnNode,
      maybeOnNode: counts.maybeOnNode,
      authReplayed,
      canRepair: o.crosswalk !== undefined && !repaired,
      remainingMs: r.deadline - o.clock.now(),
      backoffMs:
        o.random() *
        Math.min(
          r.lane === 'pos' ? o.retry.capMs.pos : o.retry.capMs.batch,
          o.retry.baseMs * 2 ** backoffs++,
        ),
      transientRetries: o.retry.transient,
      maybeRetries: o.retry.ambiguous,
    };
    const action: Action = decide(step, state);
    switch (action.kind) {
      case 'done': {
        if (action.remember !== undefined) {
          await o.negativeCache.add(negativeKey(action.remember, r.payer, r.productId), o.negativeTtlMs);
          ctx.rec.decision(r, r.path, `negative-cache:add-${action.remember}`);
          return r.finish(negativeReject(action.remember, false));
        }
        return r.finish(doneBody(action.verdict, nodes[node]!.name));
      }
      case 'wait': {
        ctx.rec.decision(r, r.path, `wait:${action.why}`, { waitMs: action.ms });
        r.arm();
        await sleep(o.clock, action.ms, r.signal);
        continue;
      }
      case 'retry-same-node':
        continue;
      case 'failover':
        node = ctx.nodeIndex.get(action.node)!;
        counts = { transientOnNode: 0, maybeOnNode: 0 };
        ctx.rec.decision(r, r.path, `failover:${action.reason}`, { node: action.node });
        continue;
      case 'repair': {
        const body = await repair(r, action.verdict);
        if (body !== undefined) return r.finish(body);
        repaired = true;
        continue;
      }
      case 'refresh-token':
        if (step.kind === 'verdict') o.credentials?.invalidate(nodes[node]!, r.token ?? '');
        authReplayed = true;
        ctx.rec.decision(r, r.path, 'refresh', { node: nodes[node]!.name });
        continue;
      case 'reconcile':
        ctx.rec.decision(r, r.path, 'park-for-reconciliation', { node: action.node });
        await putLetter(r, action.reason, action.node);
        return r.finish({
          kind: 'needs-reconciliation',
          reason: action.reason,
          node: action.node,
          codes: codesOf(step),
        });
      case 'dead-letter':
        await putLetter(r, action.reason, undefined);
        return r.finish({
          kind: 'dead-lettered',
          reason: action.reason,
          lane: 'batch',
          codes: codesOf(step),
        });
      case 'handed-over':
        ctx.rec.decision(r, r.path, 'handed-over');
        return r.finish({ kind: 'in-flight-elsewhere' });
    }
  }
}

/**
 * The node the claim may fail over to now, if any (only primary → fallback, once). A repaired
 * claim stays on the node that rejected it, unless the nodes share one idempotency store: its
 * repaired key and body exist only in this run (the ledger pins the node, a dead letter holds
 * the claim as submitted), so whoever sends it again (a dead letter resubmitted, a restart, a
 * takeover) sends the original key to the pin. Only the node that answered that key with the
 * reject replays the reject, and the repair leads to the repaired key's own stored answer
 * there; any other node would adjudicate it anew.
 */
function failoverTarget(
  ctx: RouterContext,
  r: ClaimRun,
  node: number,
  triedFallback: boolean,
  repaired: boolean,
): string | undefined {
  const o = ctx.o;
  const nodes = o.nodes;
  if (node !== 0 || nodes.length < 2 || triedFallback || !ctx.usable(1)) return undefined;
  if (repaired && !o.shared) return undefined;
  return maySendTo(r.commit, nodes[1]!.name, o.shared) ? nodes[1]!.name : undefined;
}

// A pos claim that runs out of time is handed to the batch lane, never held at the counter.
async function putLetter(r: ClaimRun, reason: string, pinnedNode: string | undefined): Promise<void> {
  try {
    await r.ctx.o.deadLetters.put({
      claimKey: r.claimKey,
      correlationId: r.correlationId,
      reason,
      lane: 'batch',
      at: r.ctx.o.clock.now(),
      claim: r.claim,
      ...(pinnedNode === undefined ? {} : { pinnedNode }),
      ...(r.generation === 0 ? {} : { generation: r.generation }),
    });
  } catch {
    r.ctx.rec.log.error(
      { correlationId: r.correlationId, deadLetters: 'put-failed' },
      'dead-letter queue unavailable',
    );
  }
}

/** A 21 on a product the crosswalk knows a successor of: resend with it, under its own key. */
async function repair(
  r: ClaimRun,
  verdict: Verdict & { kind: 'repairable' },
): Promise<OutcomeBody | undefined> {
  const cw = r.ctx.o.crosswalk!;
  r.snapshotVersion = cw.version;
  const entry = cw.lookup(r.productId);
  if (entry === undefined) {
    r.ctx.rec.decision(r, r.path, 'repair:ndc-not-in-taxonomy', { snapshotVersion: cw.version });
    return {
      kind: 'rejected',
      codes: verdict.rejectCodes.map((c) => c.code),
      group: 'ndc_not_in_taxonomy',
      priorAuthRequired: false,
      local: false,
    };
  }
  if (entry.ndc === undefined || entry.ndc === r.productId) {
    r.ctx.rec.decision(r, r.path, 'repair:no-successor', { snapshotVersion: cw.version });
    return rejected(verdict);
  }
  r.productId = entry.ndc;
  r.body = undefined;
  r.requestKey = repairedKey(requestKeyOf(r.claimKey, r.generation), 1);
  r.ctx.rec.decision(r, r.path, 'repair', { snapshotVersion: cw.version });
  return undefined;
}

/**
 * The NCPDP codes that explain a claim that could not be adjudicated: the vendor's own reject
 * codes when its last answer had some (a host error 92), else 99, host processing error (a
 * transient failure retried to the end, a lost answer, a refusal before sending).
 */
function codesOf(step: Step): readonly string[] {
  if (step.kind === 'verdict' && 'rejectCodes' in step.verdict) {
    const codes = step.verdict.rejectCodes;
    if (codes !== undefined && codes.length > 0) return codes.map((c) => c.code);
  }
  return HOST_ERROR;
}
const HOST_ERROR: readonly string[] = Object.freeze(['99']);

function doneBody(v: Verdict, node: string): OutcomeBody {
  switch (v.kind) {
    case 'adjudicated': {
      const o: Mutable<OutcomeBody> = {
        kind: v.status112AN === 'P' ? 'paid' : v.status112AN === 'A' ? 'approved' : 'captured',
        amounts: amounts(v.amounts),
        node,
      };
      if (v.authorizationNumber !== undefined) o.authorizationNumber = v.authorizationNumber;
      if (v.messages !== undefined) o.messages = v.messages;
      return o;
    }
    case 'duplicate': {
      const o: Mutable<OutcomeBody> = { kind: 'duplicate', amounts: amounts(v.amounts), node };
      if (v.status112AN !== undefined) o.status112AN = v.status112AN;
      return o;
    }
    case 'terminal-reject':
    case 'repairable':
      return rejected(v);
    case 'client-error':
      // A submitter-fixable reject (07, 09, 52, 62…): the payer answered; the pharmacist fixes it.
      if (v.rejectCodes !== undefined && v.rejectCodes.length > 0)
        return rejected({
          ...v,
          rejectCodes: v.rejectCodes,
          priorAuthRequired: v.priorAuthRequired ?? false,
        });
      throw new Error(`not a final verdict: ${v.kind}`);
    default:
      throw new Error(`not a final verdict: ${v.kind}`);
  }
}

/** What a 404 teaches, by the reject code it maps to: 04 an unknown route, 70 an unknown product. */
const NEGATIVE = {
  '04': { what: 'route', group: 'repair-routing' },
  '70': { what: 'product', group: 'terminal' },
} as const;
const NEGATIVE_CODES = ['04', '70'] as const;

/**
 * The negative cache's key for what a 04 or a 70 names, scoped to the payer that said it: an
 * unknown product per BIN/PCN and NDC (another payer's formulary may well list it), an unknown
 * route per BIN/PCN.
 */
export function negativeKey(code: '04' | '70', payer: string, productId: string): string {
  return code === '70' ? `ndc:${payer}:${productId}` : `route:${payer}`;
}

function negativeReject(code: '04' | '70', local: boolean): OutcomeBody {
  return { kind: 'rejected', codes: [code], group: NEGATIVE[code].group, priorAuthRequired: false, local };
}

function amounts(a: Amounts): PaidAmounts {
  const out: Mutable<PaidAmounts> = {};
  if (a.patientPay !== undefined) out.patientPay = new Decimal(a.patientPay);
  if (a.ingredientCostPaid !== undefined) out.ingredientCostPaid = new Decimal(a.ingredientCostPaid);
  if (a.totalPaid !== undefined) out.totalPaid = new Decimal(a.totalPaid);
  if (a.copay !== undefined) out.copay = new Decimal(a.copay);
  if (a.coinsurance !== undefined) out.coinsurance = new Decimal(a.coinsurance);
  if (a.deductible !== undefined) out.deductible = new Decimal(a.deductible);
  return out;
}

function rejected(verdict: {
  readonly rejectCodes: readonly RejectCodeInfo[];
  readonly priorAuthRequired: boolean;
  readonly messages?: readonly string[];
}): OutcomeBody {
  const codes = verdict.rejectCodes.map((c) => c.code);
  const group =
    verdict.rejectCodes.find((c) => c.group === 'terminal')?.group ??
    verdict.rejectCodes[0]?.group ??
    'unknown';
  const o: Mutable<OutcomeBody> = {
    kind: 'rejected',
    codes,
    group,
    priorAuthRequired: verdict.priorAuthRequired,
    local: false,
  };
  if (verdict.messages !== undefined) o.messages = verdict.messages;
  return o;
}
