// A burst of pharmacy claims paced through the limiter in real time: 60 claims arrive at once
// for three payers; the vendor allows 10/s with a burst of 20, and one payer 3/s. Point-of-sale
// claims go before batch work, and a point-of-sale claim that cannot be admitted within its
// 800 ms budget fails fast instead of holding the patient at the counter.
import { createLimiter, isDeadlineExceededError, type Lane } from '../src/index.js';

const payers = ['610014/ADV', '004336/MEDDADV', '015581/SLOW'];
const limiter = createLimiter({
  account: { ratePerSecond: 10, burst: 20 },
  perKey: {
    default: { ratePerSecond: 10, burst: 20 },
    overrides: { '015581/SLOW': { ratePerSecond: 3, burst: 3 } },
  },
});

interface Result {
  lane: Lane;
  payer: string;
  waitedMs: number;
  outcome: 'admitted' | 'failed-fast';
}

const total = 60;
const start = Date.now();
const results: Result[] = [];
const tty = process.stdout.isTTY === true;
let lastLine = 0;

function progress(final = false): void {
  const admitted = results.filter((r) => r.outcome === 'admitted').length;
  const failed = results.length - admitted;
  const width = 30;
  const filled = Math.round((results.length / total) * width);
  const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${results.length}/${total}  admitted ${admitted}  failed fast ${failed}  t=${((Date.now() - start) / 1000).toFixed(1)}s`;
  if (tty) process.stdout.write(`\r${line}${final ? '\n' : ''}`);
  else if (final || Date.now() - lastLine >= 1000) {
    process.stdout.write(`${line}\n`);
    lastLine = Date.now();
  }
}

const ticker = setInterval(progress, 100);
await Promise.all(
  Array.from({ length: total }, async (_, i) => {
    const lane: Lane = i % 3 === 0 ? 'batch' : 'pos';
    const payer = payers[Math.floor(i / 3) % payers.length]!;
    const queuedAt = Date.now();
    const deadline = lane === 'pos' ? queuedAt + 800 : queuedAt + 60_000;
    try {
      await limiter.run(payer, async () => undefined, { lane, deadline });
      results.push({ lane, payer, waitedMs: Date.now() - queuedAt, outcome: 'admitted' });
    } catch (e) {
      if (!isDeadlineExceededError(e)) throw e;
      results.push({ lane, payer, waitedMs: Date.now() - queuedAt, outcome: 'failed-fast' });
    }
  }),
);
clearInterval(ticker);
progress(true);

const pct = (xs: number[], p: number): number => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
console.log('\nlane   payer            admitted  failed-fast  wait p50  wait p95  wait max');
for (const lane of ['pos', 'batch'] as const) {
  for (const payer of payers) {
    const rs = results.filter((r) => r.lane === lane && r.payer === payer);
    const waits = rs.filter((r) => r.outcome === 'admitted').map((r) => r.waitedMs);
    console.log(
      `${lane.padEnd(6)} ${payer.padEnd(16)} ${String(waits.length).padStart(8)}  ${String(rs.length - waits.length).padStart(11)}  ${`${pct(waits, 50)} ms`.padStart(8)}  ${`${pct(waits, 95)} ms`.padStart(8)}  ${`${pct(waits, 100)} ms`.padStart(8)}`,
    );
  }
}
console.log(
  `\nall ${total} claims settled in ${((Date.now() - start) / 1000).toFixed(2)} s; the account allows 10/s after a burst of 20.`,
);
console.log(
  'Point-of-sale claims that could not be admitted within 800 ms failed at once (they would go to the batch lane).',
);
