// npm run bench -w @rxgate/undici — the cost of composing rxgate policies, side by side in one
// process: wrap() against the same policies nested by hand, and limiter + breaker + retry
// against cockatiel's wrap(retry, breaker, bulkhead), all over an async no-op.
import { breakerPolicy, CircuitBreaker } from '@rxgate/breaker';
import { type ExecuteContext, type Policy, wrap } from '@rxgate/core';
import { createLimiter, limiterPolicy } from '@rxgate/ratelimit';
import { retryPolicy } from '@rxgate/retry';
import { fmt, nsPerAsync, table } from '@rxgate/testkit';
import { bulkhead, ConsecutiveBreaker, circuitBreaker, wrap as ckWrap, handleAll, retry } from 'cockatiel';

// BENCH_ITERATIONS=2000 checks that the bench runs (its numbers then mean nothing).
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 200_000);
const task = async (): Promise<number> => 1;
const ctx: ExecuteContext = { key: '610014/ADV' };
console.log(`# rxgate composition benchmark (node ${process.version})\n`);

// 1. wrap() itself: pass-through policies, so only the composition is measured.
const pass: Policy = { execute: (fn, c = {}) => fn(c) as Promise<never> };
const [p1, p2, p3] = [pass, { ...pass }, { ...pass }];
const wrapped3 = wrap(p1, p2, p3);
const wrapped5 = wrap(p1, p2, p3, { ...pass }, { ...pass });
const p4 = { ...pass };
const p5 = { ...pass };
const byHand3 = () => p1.execute((a) => p2.execute((b) => p3.execute(task, b), a), ctx);
const byHand5 = () =>
  p1.execute(
    (a) => p2.execute((b) => p3.execute((c) => p4.execute((d) => p5.execute(task, d), c), b), a),
    ctx,
  );

// 2. The real policies: a limiter that never makes anyone wait (its concurrency cap as the
// bulkhead's), a closed breaker, a retry that never needs to retry.
const limiter = createLimiter({ account: { ratePerSecond: 1e12, burst: 1e12, concurrency: 32 } });
const lim = limiterPolicy(limiter);
const brk = breakerPolicy(new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 5 } }));
const rty = retryPolicy({ maxRetries: 3 });
const rx = wrap(lim, rty, brk);
const rxByHand = () => lim.execute((a) => rty.execute((b) => brk.execute(task, b), a), ctx);
const ck = ckWrap(
  retry(handleAll, { maxAttempts: 3 }),
  circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
  bulkhead(32, 1_000_000),
);

// Every subject measured in turn, then the whole round again: the median of each.
const subjects: Array<[string, () => Promise<unknown>]> = [
  ['bare awaited no-op', task],
  ['3 pass-through policies by hand', byHand3],
  ['wrap(3 pass-through)', () => wrapped3.execute(task, ctx)],
  ['5 pass-through policies by hand', byHand5],
  ['wrap(5 pass-through)', () => wrapped5.execute(task, ctx)],
  ['limiter+retry+breaker by hand', rxByHand],
  ['wrap(limiterPolicy, retryPolicy, breakerPolicy)', () => rx.execute(task, ctx)],
  ['cockatiel wrap(retry, circuitBreaker, bulkhead)', () => ck.execute(task)],
];
const runs = new Map<string, number[]>();
for (let round = 0; round < 3; round++)
  for (const [name, fn] of subjects) {
    const ns = await nsPerAsync(fn, { callers: 16, iterations: ITERATIONS, rounds: 5 });
    runs.set(name, [...(runs.get(name) ?? []), ns]);
  }
const ns = (name: string): number => {
  const xs = [...runs.get(name)!].sort((a, b) => a - b);
  return xs[Math.floor(xs.length / 2)]!;
};
const bare = ns('bare awaited no-op');
console.log('## ns per awaited call, 16 concurrent callers (median of 3 rounds)\n');
console.log(
  table(
    ['subject', 'ns/op', 'over bare no-op'],
    subjects.map(([n]) => [n, fmt(ns(n)), fmt(ns(n) - bare)]),
  ),
);
const per3 = (ns('wrap(3 pass-through)') - ns('3 pass-through policies by hand')) / 3;
const per5 = (ns('wrap(5 pass-through)') - ns('5 pass-through policies by hand')) / 5;
const perReal =
  (ns('wrap(limiterPolicy, retryPolicy, breakerPolicy)') - ns('limiter+retry+breaker by hand')) / 3;
const ratio =
  (ns('wrap(limiterPolicy, retryPolicy, breakerPolicy)') - bare) /
  (ns('cockatiel wrap(retry, circuitBreaker, bulkhead)') - bare);
console.log(`
wrap over by hand, per policy: ${fmt(per3)} ns (3 pass-through), ${fmt(per5)} ns (5 pass-through), ${fmt(perReal)} ns (limiter+retry+breaker) — budget 50 ns
rxgate limiter+retry+breaker / cockatiel retry+breaker+bulkhead, overhead over the bare no-op: ${fmt(ratio, 2)}x — budget 0.5x`);
limiter.close();
