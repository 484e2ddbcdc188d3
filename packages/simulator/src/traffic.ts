// The traffic of a run: claims generated (or read from a file) at the scenario's rate and
// bursts, submitted through the living client generation, each outcome recorded once; the
// client-side faults (a restart of the router's process, the batch lane resubmitting dead
// letters); the sampling of the vendor's quota and the limiter's rate once a bucket. Every timer
// it sets is its own and cancelled when everything settled.
import type { Clock, TimerHandle } from '@rxgate/ratelimit';
import type { RedisLimiter } from '@rxgate/ratelimit/redis';
import type { Outcome } from '@rxgate/router';
import { type GeneratedClaim, makeClaim, rateAt } from './claims.js';
import type { Generation } from './client.js';
import type { RunObservers } from './observers.js';
import { exponentialMs, stream } from './random.js';
import {
  claimLimit,
  deadlineMs,
  fileClaimLane,
  nextArrival,
  phiOf,
  sendsClaim,
  trafficOver,
} from './run-plan.js';
import type { RunOptions } from './run-types.js';
import type { Scenario } from './scenario.js';
import type { VendorModel } from './vendor-model.js';

// How many recent claims a resubmission may pick from.
const RESUBMIT_POOL = 10_000;

type Lane = 'pos' | 'batch';

export interface TrafficSetup {
  readonly s: Scenario;
  readonly options: Pick<RunOptions, 'claims' | 'claimLines' | 'share' | 'asFastAsAdmitted' | 'onProgress'>;
  readonly clock: Clock;
  readonly start: number;
  readonly model: VendorModel | undefined;
  readonly observers: RunObservers;
  readonly sharedLimiter: RedisLimiter | undefined;
  readonly toleranceMs: number;
  /** Outcomes to hear after a restart: the claims a dead generation left unanswered are sent again. */
  readonly restarts: boolean;
  /** The first generation of the client. */
  readonly first: Generation;
  /** Builds a new generation after a restart. */
  build(): Promise<Generation>;
}

export class Traffic {
  // Per submitted index only what the invariants need.
  readonly lanes: Lane[] = [];
  readonly segments: string[] = [];
  readonly settleCount: number[] = [];
  readonly elapsed: number[] = [];
  readonly correlation: string[] = [];
  readonly kinds: string[] = [];
  readonly deadLettered: Array<{ correlationId: string; reason: string }> = [];
  readonly invalidClaims: Array<{ line: number; fields: string[] }> = [];
  submitted = 0;
  settled = 0;
  /** The client generation claims go through now. */
  gen: Generation;
  lastSettledAt: number;
  readonly done: Promise<void>;

  readonly #t: TrafficSetup;
  readonly #random;
  // Recent claims, for resubmissions to pick from (bounded: a day holds half a million claims).
  readonly #pool: GeneratedClaim[] = [];
  readonly #limit: number;
  readonly #ownTimers = new Set<TimerHandle>();
  readonly #unanswered = new Map<
    number,
    { lane: Lane; segment: string; at: number; send: () => Promise<Outcome> }
  >();
  #generated = 0;
  // When the arrival being made was due, and when the traffic began (its arrivals count from there).
  #dueAt = 0;
  #began = 0;
  #trafficDone = false;
  #resolveAll!: () => void;

  constructor(t: TrafficSetup) {
    this.#t = t;
    this.#random = stream(t.s.seed, 'traffic');
    this.#limit = claimLimit(t.s, t.options.claims);
    this.lastSettledAt = t.start;
    this.gen = t.first;
    this.done = new Promise<void>((r) => {
      this.#resolveAll = r;
    });
  }

  /** Arms the run's timers: client faults, bursts, the arrivals, the sampling. */
  begin(): void {
    const { s, model } = this.#t;
    for (const [i, f] of s.faults.entries()) {
      if (f.kind === 'client-restart')
        this.#own(f.startMs, () => {
          model?.fired(i);
          this.gen.dead = true;
          void this.#t.build().then((next) => {
            this.gen = next;
            for (const [index, u] of [...this.#unanswered])
              this.#track(index, u.lane, u.segment, this.#t.clock.now(), u.send);
          });
        });
      else if (f.kind === 'dead-letter-resubmit')
        this.#own(f.startMs, () => {
          model?.fired(i);
          for (const letter of this.gen.deadLetters.take()) {
            const index = this.submitted++;
            this.lanes[index] = 'batch';
            this.segments[index] = 'retail';
            this.settleCount[index] = 0;
            const at = this.#t.clock.now();
            this.#t.observers.series.at(at - this.#t.start).submitted++;
            this.#track(index, 'batch', 'retail', at, () =>
              this.gen.router.resubmit(letter, { lane: 'batch' }),
            );
          }
        });
    }
    for (const burst of s.traffic.bursts) {
      this.#own(burst.atMs, () => {
        for (let i = 0; i < burst.count && this.#generated < this.#limit; i++) this.#submitOne();
      });
    }
    this.#began = this.#dueAt = this.#t.clock.now();
    this.#own(0, this.#scheduleNext);
    this.#own(this.#t.observers.series.bucketMs, this.#sample);
  }

  /** Cancels what is left of the run's own timers (on real timers nothing of the run keeps the process alive). */
  cancelTimers(): void {
    for (const h of this.#ownTimers) h.cancel();
    this.#ownTimers.clear();
  }

  #own(ms: number, fn: () => void): TimerHandle {
    const h = this.#t.clock.setTimer(ms, () => {
      this.#ownTimers.delete(h);
      fn();
    });
    this.#ownTimers.add(h);
    return h;
  }

  #remember(c: GeneratedClaim): void {
    if (this.#pool.length < RESUBMIT_POOL) this.#pool.push(c);
    else this.#pool[c.index % RESUBMIT_POOL] = c;
  }

  #submitOne(): void {
    const { s, options, observers } = this.#t;
    const at0 = this.#generated++;
    if (!sendsClaim(at0, options.share)) {
      if (!options.claims) this.#remember(makeClaim(s, at0, this.#random, this.#pool));
      return;
    }
    const index = this.submitted++;
    let claim: GeneratedClaim;
    if (options.claims) {
      const raw = options.claims[at0]!;
      claim = { index, lane: fileClaimLane(s), segment: 'retail', raw, phi: phiOf(raw) };
    } else claim = makeClaim(s, at0, this.#random, this.#pool);
    this.#remember(claim);
    this.lanes[index] = claim.lane;
    this.segments[index] = claim.segment;
    observers.phi.add(claim.phi);
    observers.oracle.add(claim.phi);
    this.settleCount[index] = 0;
    const at = this.#t.clock.now();
    observers.series.at(at - this.#t.start).submitted++;
    this.#track(index, claim.lane, claim.segment, at, () =>
      this.gen.router.submit(claim.raw, { lane: claim.lane, segment: claim.segment }),
    );
  }

  // Submits through the living generation; an outcome a dead one still produces is not heard
  // (the process is gone), and a restart sends the claim again.
  #track(index: number, lane: Lane, segment: string, at: number, send: () => Promise<Outcome>): void {
    const g = this.gen;
    if (this.#t.restarts) this.#unanswered.set(index, { lane, segment, at, send });
    send().then(
      (o: Outcome) => {
        if (g.dead) return;
        this.#settle(index, lane, segment, at, o);
      },
      () => {
        if (g.dead) return;
        this.#unanswered.delete(index);
        this.settleCount[index]!++;
        if (++this.settled === this.submitted && this.#trafficDone) this.#resolveAll();
      },
    );
  }

  #settle(index: number, lane: Lane, segment: string, at: number, o: Outcome): void {
    const { clock, observers, start, options } = this.#t;
    observers.oracle.offer('outcome', o);
    this.#unanswered.delete(index);
    this.settleCount[index]!++;
    const took = clock.now() - at;
    this.elapsed[index] = took;
    this.correlation[index] = o.correlationId;
    this.kinds[index] = o.kind;
    observers.outcomes[o.kind] = (observers.outcomes[o.kind] ?? 0) + 1;
    if (o.kind === 'rejected')
      for (const c of o.codes) observers.rejectCodes[c] = (observers.rejectCodes[c] ?? 0) + 1;
    if (o.kind === 'invalid' && this.invalidClaims.length < 1000)
      this.invalidClaims.push({
        line: options.claimLines?.[index] ?? index + 1,
        fields: o.issues.map((x) => x.field),
      });
    if (o.kind === 'dead-lettered' && this.deadLettered.length < 1000)
      this.deadLettered.push({ correlationId: o.correlationId, reason: o.reason });
    observers.latency.all.record(took);
    observers.latency[lane].record(took);
    const bucket = observers.series.at(clock.now() - start);
    bucket.latency[lane].record(took);
    bucket.outcomes[o.kind] = (bucket.outcomes[o.kind] ?? 0) + 1;
    this.lastSettledAt = clock.now();
    // A claim that ended once and in time needs no audit trail in the report.
    if (
      this.settleCount[index] === 1 &&
      took <= deadlineMs(this.#t.s, lane, segment) + this.#t.toleranceMs &&
      !observers.traced.has(o.correlationId)
    ) {
      observers.auditByCorrelation.delete(o.correlationId);
    }
    if (++this.settled === this.submitted && this.#trafficDone) this.#resolveAll();
  }

  #finishTraffic(): void {
    this.#trafficDone = true;
    if (this.settled === this.submitted) this.#resolveAll();
  }

  readonly #scheduleNext = (): void => {
    const { s, options, clock } = this.#t;
    // The time this arrival was due, not when its timer fired (the same in virtual time); as
    // fast as admitted, an arrival is due when its timer fires.
    if (options.asFastAsAdmitted === true) this.#dueAt = clock.now();
    const t = this.#dueAt - this.#began;
    if (trafficOver(this.#generated, this.#limit, t, s.traffic.durationMs)) {
      this.#finishTraffic();
      return;
    }
    this.#submitOne();
    const r = rateAt(s, t);
    const gap =
      options.asFastAsAdmitted === true
        ? 0
        : s.traffic.profile === 'constant'
          ? 1000 / r
          : exponentialMs(this.#random, r);
    const next = nextArrival(this.#dueAt, gap, clock.now());
    this.#dueAt = next.dueAt;
    this.#own(next.delayMs, this.#scheduleNext);
  };

  // Samples the vendor's quota and the limiter's rate once a bucket, until everything settled.
  readonly #sample = (): void => {
    const { model, observers, sharedLimiter, options } = this.#t;
    const bucket = observers.series.at(observers.rel() - 1);
    if (model) bucket.remaining = model.remaining('primary');
    // One promise either way: settled at once on the memory store, a round trip on Redis.
    (sharedLimiter ?? this.gen.limiter).snapshot().then(
      (x) => {
        bucket.limiterRate = x.ratePerSecond;
      },
      () => undefined,
    );
    options.onProgress?.({
      submitted: this.submitted,
      settled: this.settled,
      total: Number.isFinite(this.#limit) ? this.#limit : undefined,
      elapsedMs: observers.rel(),
    });
    if (!(this.#trafficDone && this.settled === this.submitted))
      this.#own(observers.series.bucketMs, this.#sample);
  };
}
