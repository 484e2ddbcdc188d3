// One zoo run with the limiter's rate changes and pauses printed (virtual time):
// node --import tsx bench/zoo-trace.ts <model> <headers> <throttle> [load] [fast|slow] [rate] [burst]
import { runZoo } from '../src/zoo/zoo-run.js';

const [model, headers, throttle, load, latency, rate, burst] = process.argv.slice(2);
let last = 0;
const r = await runZoo({
  vendor: { model: model as never, headers: headers as never, throttle: throttle as never },
  client: { kind: 'rxgate', ratePerSecond: Number(rate ?? 10), burst: Number(burst ?? 10) },
  load: Number(load ?? 1.5),
  latency: (latency ?? 'fast') as never,
  onLimiterEvent: (e, now) => {
    if (e.type === 'adapted' && now - last < 500) return;
    if (e.type === 'acquired' || e.type === 'rejected') return;
    if (e.type === 'adapted') last = now;
    console.log(
      ((now - Date.UTC(2026, 11, 1, 8)) / 1000).toFixed(3),
      e.type,
      'toPerSecond' in e ? e.toPerSecond.toFixed(2) : '',
      'until' in e ? e.until : '',
      'reason' in e ? e.reason : '',
    );
  },
});
console.log(r);
