// npm run bench -w @rxgate/breaker — rxgate's breaker side by side with cockatiel and opossum, one process.
import { fmt, nsPerAsync, nsPerSync, retainedBytes, table } from '@rxgate/testkit';
import { ConsecutiveBreaker, circuitBreaker, handleAll } from 'cockatiel';
import CircuitBreakerOpossum from 'opossum';
import { CircuitBreaker, createBreakers, type Permit } from '../src/index.js';

const task = async (): Promise<void> => {};
console.log(`# @rxgate/breaker benchmark (node ${process.version})\n`);

const rx = new CircuitBreaker({ policy: { kind: 'consecutive', threshold: 5 } });
const rxRate = new CircuitBreaker({ policy: { kind: 'count-window', size: 100, failureRate: 0.5 } });
const ck = circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) });
const opNoStats = new CircuitBreakerOpossum(task, { enableSnapshots: false, rollingCountTimeout: 10_000 });
// opossum's statistics cannot be switched off entirely; the closest to "off" is no snapshots.
const opDefault = new CircuitBreakerOpossum(task);

const bare = await nsPerAsync(task);
const rows: Array<[string, number]> = [
  ['rxgate execute (consecutive)', await nsPerAsync(() => rx.execute(task))],
  ['rxgate execute (count window 100)', await nsPerAsync(() => rxRate.execute(task))],
  ['cockatiel circuitBreaker(ConsecutiveBreaker).execute', await nsPerAsync(() => ck.execute(task))],
  ['opossum fire (snapshots off)', await nsPerAsync(() => opNoStats.fire())],
  ['opossum fire (defaults)', await nsPerAsync(() => opDefault.fire())],
];
const ckOverhead = rows[2]![1] - bare;
console.log(`## execute, closed, async no-op, 16 concurrent callers (bare awaited call ${fmt(bare)} ns)\n`);
console.log(
  table(
    ['subject', 'ns/op', 'overhead ns', 'vs cockatiel'],
    rows.map(([n, ns]) => [n, fmt(ns), fmt(ns - bare), `${fmt((ns - bare) / ckOverhead, 2)}x`]),
  ),
);

const permitNs = nsPerSync(() => {
  const p = rx.tryAcquire();
  if (p.kind === 'permit') p.success();
  return true;
});
const syncBare = nsPerSync(() => true);
console.log(`\n## permit API (sync): tryAcquire() + success()\n`);
console.log(
  table(
    ['subject', 'ns/op', 'overhead ns'],
    [['rxgate tryAcquire + success (consecutive)', fmt(permitNs), fmt(permitNs - syncBare)]],
  ),
);

const KEYS = 10_000;
const keep: unknown[] = [];
const kb = (b: number) => `${fmt(b / 1024, 0)} KiB (${fmt(b / KEYS, 0)} B/key)`;
const mem: Array<[string, string]> = [
  [
    'rxgate createBreakers, consecutive',
    kb(
      await retainedBytes(() => {
        const bs = createBreakers({ defaults: { policy: { kind: 'consecutive', threshold: 5 } } });
        for (let i = 0; i < KEYS; i++) (bs.tryAcquire(`vendor-${i}:retail`) as Permit).success();
        keep.push(bs);
        return bs;
      }),
    ),
  ],
  [
    'rxgate createBreakers, count window 100',
    kb(
      await retainedBytes(() => {
        const bs = createBreakers({
          defaults: { policy: { kind: 'count-window', size: 100, failureRate: 0.5 } },
        });
        for (let i = 0; i < KEYS; i++) (bs.tryAcquire(`vendor-${i}:retail`) as Permit).success();
        keep.push(bs);
        return bs;
      }),
    ),
  ],
  [
    'cockatiel circuitBreaker per key in a Map',
    kb(
      await retainedBytes(() => {
        const m = new Map<string, unknown>();
        for (let i = 0; i < KEYS; i++)
          m.set(
            `vendor-${i}:retail`,
            circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
          );
        keep.push(m);
        return m;
      }),
    ),
  ],
];
console.log(`\n## heap retained by ${KEYS.toLocaleString('en')} idle keyed breakers\n`);
console.log(table(['subject', 'retained'], mem));
opNoStats.shutdown();
opDefault.shutdown();
process.exit(0);
