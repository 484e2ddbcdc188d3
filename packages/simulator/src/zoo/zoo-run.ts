import { classify } from '@rxgate/classifier';
import { createLimiter, isDeadlineExceededError, type Limiter, type LimiterEvent } from '@rxgate/ratelimit';
import { exponentialMs, logNormal, stream } from '../random.js';
import { VirtualClock } from '../virtual-clock.js';
import { AwsAdaptiveReference } from './aws-adaptive.js';
import { type QuotaModelName, quotaModel } from './quota-models.js';
import { answerOf, type HeaderStyle, type ThrottleStyle } from './vendor-headers.js';

/** Network and processing time of a vendor: round trips log-normal with this median and p99. */
export type LatencyProfile = 'fast' | 'slow';

export const LATENCY: Readonly<Record<LatencyProfile, { readonly p50: number; readonly p99: number }>> = {
  fast: { p50: 10, p99: 40 },
  slow: { p50: 120, p99: 600 },
};

export interface ZooVendor {
  readonly model: QuotaModelName;
  readonly headers: HeaderStyle;
  readonly throttle: ThrottleStyle;
}

export type ZooClient =
  | {
      readonly kind: 'rxgate';
      /** The limiter's configured rate and burst (what a user guessed). */
      readonly ratePerSecond: number;
      readonly burst: number;
      readonly maxRatePerSecond?: number;
    }
  | { readonly kind: 'aws-adaptive' };

export interface ZooRunOptions {
  readonly vendor: ZooVendor;
  readonly client: ZooClient;
  /** Offered load as a multiple of the vendor's quota. */
  readonly load: number;
  readonly latency: LatencyProfile;
  /** Virtual time claims arrive for. @default 70_000 */
  readonly durationMs?: number;
  /** The start of the measured part (the rest is warm-up). @default 10_000 */
  readonly warmupMs?: number;
  /** Every claim's budget. @default an hour */
  readonly budgetMs?: number;
  readonly seed?: number;
  /** The limiter's events (adapted, paused, …), for a look at one run. */
  readonly onLimiterEvent?: (event: LimiterEvent, now: number) => void;
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
  const model = quotaModel(o.vendor.model);
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

  const send = (deadline: number, release: () => void): void => {
    const rtt = logNormal(net, p50, p99);
    const up = Math.min(rtt, 1 + 2 * net());
    clock.setTimer(up, () => {
      const now = clock.now();
      const { admitted: ok, report } = model.arrive(now);
      if (now >= measureFrom && now < end) {
        if (ok) admitted++;
        else refused++;
      }
      const answer = answerOf(ok, report, o.vendor.headers, o.vendor.throttle, now);
      clock.setTimer(rtt - up, () => {
        release();
        const verdict = classify(
          { status: answer.status, headers: answer.headers, body: PAID },
          { now: clock.now() },
        );
        const throttled = verdict.kind === 'throttled';
        if (limiter !== undefined && verdict.quota !== undefined) {
          // As the router does: the reset was measured half a round trip ago.
          const q = verdict.quota;
          limiter.observe(
            q.resetSeconds === undefined
              ? q
              : { ...q, resetSeconds: Math.max(0, q.resetSeconds - rtt / 2000) },
          );
        }
        aws?.update(throttled);
        if (throttled) attempt(deadline);
      });
    });
  };

  const attempt = (deadline: number): void => {
    if (clock.now() >= end) return;
    if (limiter !== undefined) {
      limiter.acquire({ key: 'payer', lane: 'batch', deadline }).then(
        (lease) => send(deadline, () => lease.release()),
        (e: unknown) => {
          if (isDeadlineExceededError(e)) deadLettered++;
        },
      );
    } else {
      void aws!.sendToken().then(() => {
        if (clock.now() < end) send(deadline, () => {});
      });
    }
  };

  const rate = model.ratePerSecond * o.load;
  const arrive = (): void => {
    attempt(clock.now() + budgetMs);
    const next = exponentialMs(arrivals, rate);
    if (clock.now() + next < end) clock.setTimer(next, arrive);
  };
  clock.setTimer(0, arrive);
  await clock.run(end);
  limiter?.close();
  const allowed = (model.ratePerSecond * (durationMs - warmupMs)) / 1000;
  return {
    goodputPct: (100 * admitted) / allowed,
    throttledPct: admitted + refused === 0 ? 0 : (100 * refused) / (admitted + refused),
    deadLettered,
    admitted,
    refused,
  };
}
