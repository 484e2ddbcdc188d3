import { classify } from '@rxgate/classifier';
import { type QuotaSignal, signalAsAnswered } from '@rxgate/core';
import { createLimiter, isDeadlineExceededError, type Limiter, type LimiterEvent } from '@rxgate/ratelimit';
import { exponentialMs, logNormal, stream } from '../random.js';
import { VirtualClock } from '../virtual-clock.js';
import { AwsAdaptiveReference } from './aws-adaptive.js';
import { type QuotaModelName, type QuotaReport, quotaModel } from './quota-models.js';
import { answerOf, type HeaderStyle, type ThrottleStyle } from './vendor-headers.js';

/** Network and processing time of a vendor: round trips log-normal with this median and p99. */
export type LatencyProfile = 'fast' | 'slow' | 'slower';

export const LATENCY: Readonly<Record<LatencyProfile, { readonly p50: number; readonly p99: number }>> = {
  fast: { p50: 10, p99: 40 },
  slow: { p50: 120, p99: 600 },
  /** Held out of the zoo's table (bench/zoo-heldout.ts). */
  slower: { p50: 300, p99: 1500 },
};

export interface ZooVendor {
  readonly model: QuotaModelName;
  readonly headers: HeaderStyle;
  readonly throttle: ThrottleStyle;
  /**
   * A sub-quota the vendor keeps for one payer (`A`), of the same model, at this rate, named
   * `"per-payer"` in its IETF headers beside the account's `"default"` (IETF headers only).
   * One claim in three is for payer A, the rest for B (whose demand then exceeds its 15/s share).
   */
  readonly payerQuotaPerSecond?: number;
  /** The quota, requests a second. @default 20 */
  readonly ratePerSecond?: number;
  /** The window the quota is counted over (see quotaModel), ms. @default 1000 */
  readonly windowMs?: number;
}

export type ZooClient =
  | {
      readonly kind: 'rxgate';
      /** The limiter's configured rate and burst (what a user guessed). */
      readonly ratePerSecond: number;
      readonly burst: number;
      readonly maxRatePerSecond?: number;
      /** Where a signal of the vendor's `"per-payer"` policy goes: that payer's key (the router's `quotaScope`), or the account. @default 'payer' */
      readonly payerPolicy?: 'payer' | 'account';
    }
  | { readonly kind: 'aws-adaptive' };

export interface ZooRunOptions {
  readonly vendor: ZooVendor;
  readonly client: ZooClient;
  /** Offered load as a multiple of the vendor's quota. */
  readonly load: number;
  readonly latency: LatencyProfile;
  /**
   * How much of each round trip is the way to the gateway, where the vendor counts the
   * request: `short`, 1–3 ms (a gateway next door that counts on arrival; the rest is the work
   * and the way back), or `half` (a symmetric path: the vendor counts it half a round trip
   * after it left). @default 'short'
   */
  readonly wayThere?: 'short' | 'half';
  /**
   * How long after it counts a request the vendor writes its quota headers (a steady piece of
   * work before the answer, the headers written at its end): its resets read that much less,
   * and its answer leaves no sooner. @default 0 (written as it counts, as gateways do)
   */
  readonly headersAfterMs?: number;
  /** Virtual time claims arrive for. @default 70_000 */
  readonly durationMs?: number;
  /** The start of the measured part (the rest is warm-up). @default 10_000 */
  readonly warmupMs?: number;
  /** Every claim's budget. @default an hour */
  readonly budgetMs?: number;
  readonly seed?: number;
  /** The limiter's events (adapted, paused, …), for a look at one run. */
  readonly onLimiterEvent?: (event: LimiterEvent, now: number) => void;
  /** Each quota signal as the limiter is given it (the reset less half the round trip), for a look at one run. */
  readonly onSignal?: (signal: QuotaSignal, now: number) => void;
}

export interface ZooRunResult {
  /** Requests the vendor admitted in the measured part, as a % of what its quota allows there. */
  readonly goodputPct: number;
  /** Requests the vendor refused in the measured part, as a % of the requests it received. */
  readonly throttledPct: number;
  /** Claims the limiter refused with budget left (DeadlineExceededError), over the whole run. */
  readonly deadLettered: number;
  readonly admitted: number;
  readonly refused: number;
}

const START = Date.UTC(2026, 11, 1, 8, 0, 0);
const PAID = { '112-AN': 'P', '509-F9': '12.34' };

/**
 * One vendor of the zoo against one client, in virtual time. Claims arrive as a Poisson stream
 * at `load` times the quota, each with a budget; every one goes through the client (the rxgate
 * limiter fed by the classifier's quota signals, as the router does, or the AWS reference), to
 * the vendor's gateway, which counts it on arrival (one-way network delay 1–3 ms) and answers
 * after the rest of the round trip. A throttled claim is tried again.
 */
export async function runZoo(o: ZooRunOptions): Promise<ZooRunResult> {
  const durationMs = o.durationMs ?? 70_000;
  const warmupMs = o.warmupMs ?? 10_000;
  const budgetMs = o.budgetMs ?? 3_600_000;
  const seed = o.seed ?? 1;
  const clock = new VirtualClock(START);
  const model = quotaModel(o.vendor.model, o.vendor.ratePerSecond, o.vendor.windowMs);
  const payerModel =
    o.vendor.payerQuotaPerSecond === undefined
      ? undefined
      : quotaModel(o.vendor.model, o.vendor.payerQuotaPerSecond);
  const payers = stream(seed, 'payers');
  let lastReport: QuotaReport | undefined;
  const arrivals = stream(seed, 'arrivals');
  const net = stream(seed, 'latency');
  const { p50, p99 } = LATENCY[o.latency];
  const end = START + durationMs;
  const measureFrom = START + warmupMs;
  let admitted = 0;
  let refused = 0;
  let deadLettered = 0;

  let limiter: Limiter | undefined;
  let aws: AwsAdaptiveReference | undefined;
  if (o.client.kind === 'rxgate') {
    limiter = createLimiter({
      account: { ratePerSecond: o.client.ratePerSecond, burst: o.client.burst },
      clock,
      ...(o.onLimiterEvent === undefined
        ? {}
        : { onEvent: (e: LimiterEvent) => o.onLimiterEvent?.(e, clock.now()) }),
      ...(o.client.maxRatePerSecond === undefined
        ? {}
        : { adaptive: { maxRatePerSecond: o.client.maxRatePerSecond } }),
    });
  } else aws = new AwsAdaptiveReference(clock);

  const send = (payer: string, deadline: number, release: () => void): void => {
    const rtt = logNormal(net, p50, p99);
    // Drawn either way, so both ways there see the same round trips.
    const short = Math.min(rtt, 1 + 2 * net());
    const up = o.wayThere === 'half' ? rtt / 2 : short;
    clock.setTimer(up, () => {
      const now = clock.now();
      // A payer's sub-quota is counted first; the account counts what it let through.
      const sub = payer === 'A' ? payerModel?.arrive(now) : undefined;
      const { admitted: ok, report } =
        sub === undefined || sub.admitted
          ? model.arrive(now)
          : { admitted: false, report: lastReport ?? sub.report };
      lastReport = report;
      const after = o.headersAfterMs ?? 0;
      if (now >= measureFrom && now < end) {
        if (ok) admitted++;
        else refused++;
      }
      const written = writtenLater(report, after);
      const answer =
        sub === undefined
          ? answerOf(ok, written, o.vendor.headers, o.vendor.throttle, now + after)
          : withPayerPolicy(
              answerOf(ok, written, o.vendor.headers, o.vendor.throttle, now + after),
              written,
              writtenLater(sub.report, after),
              ok,
              sub.admitted,
            );
      const back = Math.max(rtt - up, after);
      const trip = up + back;
      clock.setTimer(back, () => {
        release();
        const verdict = classify(
          { status: answer.status, headers: answer.headers, body: PAID },
          { now: clock.now() },
        );
        const throttled = verdict.kind === 'throttled';
        if (limiter !== undefined && verdict.quota !== undefined) {
          // As the router does: the reset was measured half a round trip ago.
          const q = verdict.quota;
          const scoped =
            q.policy === 'per-payer' && o.client.kind === 'rxgate' && o.client.payerPolicy !== 'account';
          const signal = signalAsAnswered(q, trip, trip);
          o.onSignal?.(signal, clock.now());
          limiter.observe(signal, scoped ? { key: payer } : undefined);
        }
        aws?.update(throttled);
        if (throttled) attempt(payer, deadline);
      });
    });
  };

  const attempt = (payer: string, deadline: number): void => {
    if (clock.now() >= end) return;
    if (limiter !== undefined) {
      limiter.acquire({ key: payer, lane: 'batch', deadline }).then(
        (lease) => send(payer, deadline, () => lease.release()),
        (e: unknown) => {
          if (isDeadlineExceededError(e)) deadLettered++;
        },
      );
    } else {
      void aws!.sendToken().then(() => {
        if (clock.now() < end) send(payer, deadline, () => {});
      });
    }
  };

  const rate = model.ratePerSecond * o.load;
  const arrive = (): void => {
    attempt(payerModel === undefined || payers() < 2 / 3 ? 'B' : 'A', clock.now() + budgetMs);
    const next = exponentialMs(arrivals, rate);
    if (clock.now() + next < end) clock.setTimer(next, arrive);
  };
  clock.setTimer(0, arrive);
  await clock.run(end);
  limiter?.close();
  return zooResult((model.ratePerSecond * (durationMs - warmupMs)) / 1000, admitted, refused, deadLettered);
}

/** A run's result from what the vendor admitted and refused while measured, and what its quota allowed then. */
export function zooResult(
  allowed: number,
  admitted: number,
  refused: number,
  deadLettered: number,
): ZooRunResult {
  return {
    goodputPct: (100 * admitted) / allowed,
    throttledPct: admitted + refused === 0 ? 0 : (100 * refused) / (admitted + refused),
    deadLettered,
    admitted,
    refused,
  };
}

// The IETF headers of an answer to payer A: the account's "default" policy and the payer's
// own. A refusal by the payer's quota leaves the account's remaining as it was.
function withPayerPolicy(
  answer: { status: number; headers: Record<string, string> },
  account: QuotaReport,
  sub: QuotaReport,
  admitted: boolean,
  subAdmitted: boolean,
): { status: number; headers: Record<string, string> } {
  const h = answer.headers;
  if (h.ratelimit === undefined) return answer;
  const accountLeft = admitted || !subAdmitted ? account.remaining : 0;
  const subLeft = subAdmitted ? sub.remaining : 0;
  const w = (x: QuotaReport) => Math.max(1, Math.round(x.policy.windowSeconds));
  const t = (x: QuotaReport) => Math.ceil(x.resetMs / 1000 - 1e-9);
  h['ratelimit-policy'] =
    `"default";q=${account.policy.quota};w=${w(account)}, "per-payer";q=${sub.policy.quota};w=${w(sub)}`;
  h.ratelimit = `"default";r=${accountLeft};t=${t(account)}, "per-payer";r=${subLeft};t=${t(sub)}`;
  return answer;
}

// A report as written `afterMs` after the count (0: as counted): what it calls the reset and
// the retry time are that much nearer.
function writtenLater(report: QuotaReport, afterMs: number): QuotaReport {
  return {
    ...report,
    resetMs: Math.max(0, report.resetMs - afterMs),
    retryAfterMs: Math.max(0, report.retryAfterMs - afterMs),
    ...(report.tiers === undefined
      ? {}
      : { tiers: report.tiers.map((t) => ({ ...t, resetMs: Math.max(0, t.resetMs - afterMs) })) }),
  };
}
