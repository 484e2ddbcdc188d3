import { randomUUID } from 'node:crypto';
import { type Clock, systemClock, type TimerHandle } from '@rxgate/ratelimit';
import type { Cluster, Redis } from 'ioredis';
import type { CommitState } from '../commit-state.js';
import {
  type Admission,
  advancesGeneration,
  closes,
  isFinal,
  type Ledger,
  type LedgerView,
  LostOwnershipError,
} from '../ledger.js';
import type { NegativeCache } from '../negative-cache.js';
import { deserializeOutcome, type Outcome, serializeOutcome } from '../outcome.js';

export interface RedisLedgerOptions {
  /** Commands (an ioredis client or Cluster). */
  readonly redis: Redis | Cluster;
  /** A second connection for subscriptions (pub/sub needs its own). @default redis.duplicate() */
  readonly subscriber?: Redis | Cluster;
  /** Prefix of every key. @default 'rxgate:ledger' */
  readonly prefix?: string;
  /** How long an owner holds a claim without renewing (renewed every third of it while it runs). @default 10_000 */
  readonly leaseMs?: number;
  /** How long a finished outcome is kept. @default 7 days */
  readonly outcomeTtlMs?: number;
  readonly clock?: Clock;
}

// begin: the stored outcome; or the lease for us, with where the claim may be committed; or
// how long the current lease still runs.
const BEGIN = `
local out = redis.call('GET', KEYS[1])
if out then return {'done', out} end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  local pin = redis.call('GET', KEYS[3])
  local gen = redis.call('GET', KEYS[4]) or '0'
  if pin then return {'owner', pin, gen} end
  return {'owner', '', gen}
end
return {'in-flight', tostring(redis.call('PTTL', KEYS[2]))}
`;
// renew: only our own lease.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
// pin (write-ahead) and unpin: only while the lease is ours, so a process that lost the claim
// to a takeover can neither send nor move the pin.
const PIN = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[2]) else redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3]) end
return 1
`;
// finish: store a closing outcome ('1'), or move a rejected identity to its next generation
// ('g': unsent, no stored outcome); drop our lease; tell every waiter the outcome when final
// (ARGV[5] '1'), else an empty message (begin again).
const FINISH = `
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[4]) end
if ARGV[3] == 'g' then
  redis.call('INCR', KEYS[4])
  redis.call('PEXPIRE', KEYS[4], ARGV[4])
  redis.call('DEL', KEYS[5])
end
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
if ARGV[5] == '1' then redis.call('PUBLISH', KEYS[3], ARGV[2]) else redis.call('PUBLISH', KEYS[3], '') end
return 1
`;
// reopen (an accepted reversal): the stored payment goes, the pin too, the generation moves on;
// never under a live lease (a rebill already under way after an earlier reopen keeps its pin).
const REOPEN = `
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[3])
redis.call('INCR', KEYS[2])
redis.call('PEXPIRE', KEYS[2], ARGV[1])
return 1
`;

/**
 * The ledger shared by every process: ownership of a claim is a lease (`SET NX PX`, renewed
 * while the claim runs), the finished outcome is stored (with a TTL) and published to the
 * processes waiting on it. Where the claim may be committed (the pin) is written ahead of every
 * send, fenced by the lease: when an owner dies its lease expires, and the process that takes
 * the claim over reads the pin and sends only to that node, under the same key — so the
 * vendor's idempotency store answers the takeover, whichever node the dead owner had reached.
 */
export class RedisLedger implements Ledger {
  readonly #redis: Redis | Cluster;
  readonly #sub: Redis | Cluster;
  readonly #prefix: string;
  readonly #leaseMs: number;
  readonly #outcomeTtlMs: number;
  readonly #clock: Clock;
  readonly #owner = randomUUID();
  readonly #renewals = new Map<string, TimerHandle>();
  readonly #waiters = new Map<string, Set<(o: Outcome | undefined) => void>>();
  #subscribed: Promise<void> | undefined;
  // Whether the subscription was made once: a reconnect makes it again.
  #psubscribed = false;
  #closed = false;

  constructor(o: RedisLedgerOptions) {
    this.#redis = o.redis;
    this.#sub = o.subscriber ?? (o.redis as Redis).duplicate();
    this.#sub.on('error', () => {});
    // ioredis resubscribes a reconnected client by itself and leaves that command's promise
    // unhandled: a resubscription that fails (the connection drops again, the server refuses
    // it) is an unhandled rejection, which ends a Node process by default. The ledger
    // resubscribes itself and handles a failure (a joiner still wakes at the lease's end). A
    // Cluster's node connections keep ioredis's own resubscription.
    if (!this.#sub.isCluster) {
      const sub = this.#sub as Redis;
      sub.options.autoResubscribe = false;
      sub.on('ready', () => {
        if (this.#psubscribed && !this.#closed) sub.psubscribe(this.#pattern()).catch(() => undefined);
      });
    }
    this.#prefix = o.prefix ?? 'rxgate:ledger';
    this.#leaseMs = o.leaseMs ?? 10_000;
    this.#outcomeTtlMs = o.outcomeTtlMs ?? 7 * 24 * 3600 * 1000;
    this.#clock = o.clock ?? systemClock;
    this.#sub.on('pmessage', (_p: string, channel: string, message: string) => {
      const key = channel.slice(`${this.#prefix}:done:`.length).replace(/^\{|\}$/g, '');
      const waiters = this.#waiters.get(key);
      if (waiters === undefined) return;
      this.#waiters.delete(key);
      const outcome = message === '' ? undefined : deserializeOutcome(message);
      for (const w of waiters) w(outcome);
    });
  }

  #keys(key: string): [out: string, lease: string, channel: string, pin: string, gen: string] {
    // One hash tag per claim: its keys share a slot on Redis Cluster.
    const tag = `{${key}}`;
    return [
      `${this.#prefix}:out:${tag}`,
      `${this.#prefix}:lease:${tag}`,
      `${this.#prefix}:done:${tag}`,
      `${this.#prefix}:pin:${tag}`,
      `${this.#prefix}:gen:${tag}`,
    ];
  }

  async begin(key: string): Promise<Admission> {
    const [out, lease, , pin, gen] = this.#keys(key);
    const [state, value, generation] = (await this.#redis.eval(
      BEGIN,
      4,
      out,
      lease,
      pin,
      gen,
      this.#owner,
      this.#leaseMs,
    )) as [string, string, string?];
    if (state === 'done') return { kind: 'done', outcome: deserializeOutcome(value) };
    if (state === 'owner') {
      this.#renew(key);
      const commit: CommitState = value === '' ? { kind: 'unsent' } : { kind: 'pinned', node: value };
      return { kind: 'owner', commit, generation: Number(generation ?? 0) };
    }
    return { kind: 'in-flight', wait: this.#wait(key, Math.max(1, Number(value))) };
  }

  async pin(key: string, node: string): Promise<void> {
    const [, lease, , pin] = this.#keys(key);
    const ok = await this.#redis.eval(PIN, 2, lease, pin, this.#owner, node, this.#outcomeTtlMs);
    if (ok !== 1) throw new LostOwnershipError();
  }

  async unpin(key: string): Promise<void> {
    const [, lease, , pin] = this.#keys(key);
    await this.#redis.eval(PIN, 2, lease, pin, this.#owner, '', this.#outcomeTtlMs);
  }

  async finish(key: string, outcome: Outcome): Promise<void> {
    this.#renewals.get(key)?.cancel();
    this.#renewals.delete(key);
    const [out, lease, channel, pin, gen] = this.#keys(key);
    await this.#redis.eval(
      FINISH,
      5,
      out,
      lease,
      channel,
      gen,
      pin,
      this.#owner,
      serializeOutcome(outcome),
      closes(outcome) ? '1' : advancesGeneration(outcome) ? 'g' : '0',
      this.#outcomeTtlMs,
      isFinal(outcome) ? '1' : '0',
    );
  }

  async reopen(key: string): Promise<void> {
    const [out, lease, , pin, gen] = this.#keys(key);
    await this.#redis.eval(REOPEN, 4, out, gen, pin, lease, this.#outcomeTtlMs);
  }

  async lookup(key: string): Promise<LedgerView> {
    const [out, , , pin, gen] = this.#keys(key);
    const [text, g, node] = await Promise.all([
      this.#redis.get(out),
      this.#redis.get(gen),
      this.#redis.get(pin),
    ]);
    return {
      outcome: text ? deserializeOutcome(text) : undefined,
      generation: Number(g ?? 0),
      commit: node ? { kind: 'pinned', node } : { kind: 'unsent' },
    };
  }

  /** Stops renewals and the subscription (leases then expire on their own). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#renewals.values()) t.cancel();
    this.#renewals.clear();
    (this.#sub as Redis).disconnect();
  }

  async #subscribe(): Promise<void> {
    const sub = this.#sub as Redis;
    if (sub.status === 'wait') await sub.connect().catch(() => undefined);
    if (sub.status !== 'ready') await new Promise((resolve) => sub.once('ready', resolve));
    await sub.psubscribe(this.#pattern());
  }

  #pattern(): string {
    return `${this.#prefix}:done:*`;
  }

  #renew(key: string): void {
    // A closed ledger renews nothing: its leases run out, and another process takes over.
    if (this.#closed) return;
    const [, lease] = this.#keys(key);
    const tick = () => {
      this.#renewals.set(
        key,
        this.#clock.setTimer(this.#leaseMs / 3, () => {
          this.#redis.eval(RENEW, 1, lease, this.#owner, this.#leaseMs).then(
            () => this.#renewals.has(key) && tick(),
            () => this.#renewals.has(key) && tick(),
          );
        }),
      );
    };
    tick();
  }

  // Waits for the owner's outcome (published), or for its lease to run out (then undefined).
  async #wait(key: string, leaseLeftMs: number): Promise<Outcome | undefined> {
    // Without the subscription the lease's end still wakes us: we begin again then, and the
    // next wait tries to subscribe again.
    this.#subscribed ??= this.#subscribe().then(
      () => {
        this.#psubscribed = true;
      },
      () => {
        this.#subscribed = undefined;
      },
    );
    await this.#subscribed;
    return new Promise<Outcome | undefined>((resolve) => {
      let set = this.#waiters.get(key);
      if (set === undefined) {
        set = new Set();
        this.#waiters.set(key, set);
      }
      const done = (o: Outcome | undefined) => {
        timer.cancel();
        set.delete(done);
        resolve(o);
      };
      set.add(done);
      // The lease may have ended between our check and the subscription: look once more then.
      const timer = this.#clock.setTimer(leaseLeftMs + 5, () => done(undefined));
      const [out] = this.#keys(key);
      this.#redis.get(out).then(
        (text) => {
          if (text) done(deserializeOutcome(text));
        },
        () => undefined,
      );
    });
  }
}

/** Keys the vendor answered 404 for, shared by every process, each with its TTL. */
export class RedisNegativeCache implements NegativeCache {
  readonly #redis: Redis | Cluster;
  readonly #prefix: string;
  constructor(redis: Redis | Cluster, prefix = 'rxgate:neg') {
    this.#redis = redis;
    this.#prefix = prefix;
  }
  async has(key: string): Promise<boolean> {
    return (await this.#redis.exists(`${this.#prefix}:${key}`)) === 1;
  }
  async add(key: string, ttlMs: number): Promise<void> {
    await this.#redis.set(`${this.#prefix}:${key}`, '1', 'PX', Math.max(1, Math.round(ttlMs)));
  }
}
