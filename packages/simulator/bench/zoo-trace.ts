// One zoo run with the limiter's rate changes and pauses printed (virtual time):
// node --import tsx bench/zoo-trace.ts <model> <headers> <throttle> [load] [fast|slow] [rate] [burst]
// VENDOR_RATE=r VENDOR_WINDOW_MS=w: another quota (the held-out zoo's: 7 1000, 10 10000, 10 60000).
// WARMUP_MS, DURATION_MS: the measured span (the held-out 10 s window: 20000 140000).
// HEADERS_AFTER_MS=n: the vendor writes its quota headers n ms after it counts (a steady piece of work).
// ALL=1: every rate change (else one per 500 ms). ACQ=1: every admission too ("acq <seconds>"). WAY_THERE=half: the vendor counts half a round trip after the send.
// SIGNALS=1: every quota signal too ("sig <seconds> remaining … reset … (s, less half the round trip) rtt … sent …").
// LOOPBACK=1: the same over loopback HTTP (real timers, 10 s or RUN_SECONDS measured from a quarter, quota 50/s), rate and burst as
// multiples of the quota (e.g. 0.5 0.5, or 2 1). VENDOR_THREAD=own: the vendor on a worker thread of its own.
import type { QuotaSignal } from '@rxgate/core';
import type { LimiterEvent } from '@rxgate/ratelimit';
import { runZooLoopback } from '../src/zoo/zoo-loopback.js';
import { runZoo } from '../src/zoo/zoo-run.js';

const [model, headers, throttle, load, latency, rate, burst] = process.argv.slice(2);
const loopback = process.env.LOOPBACK === '1';
// The loopback quota (the loopback bench's).
const LOOPBACK_RATE = 50;
let last = 0;
const start = loopback ? Date.now() : Date.UTC(2026, 11, 1, 8);
const onLimiterEvent = (e: LimiterEvent, now: number): void => {
  if (e.type === 'adapted' && now - last < 500 && !process.env.ALL) return;
  if (e.type === 'acquired' && process.env.ACQ) {
    console.log('acq', ((now - start) / 1000).toFixed(3));
    return;
  }
  if (e.type === 'acquired' || e.type === 'rejected') return;
  if (e.type === 'adapted') last = now;
  console.log(
    ((now - start) / 1000).toFixed(3),
    e.type,
    'toPerSecond' in e ? e.toPerSecond.toFixed(2) : '',
    'until' in e ? e.until : '',
    'reason' in e ? e.reason : '',
  );
};
const vendor = {
  model: model as never,
  headers: headers as never,
  throttle: throttle as never,
  ...(process.env.VENDOR_RATE ? { ratePerSecond: Number(process.env.VENDOR_RATE) } : {}),
  ...(process.env.VENDOR_WINDOW_MS ? { windowMs: Number(process.env.VENDOR_WINDOW_MS) } : {}),
};
const r = loopback
  ? await runZooLoopback({
      vendor,
      configured: { rateShare: Number(rate ?? 0.5), burstShare: Number(burst ?? 0.5) },
      load: Number(load ?? 1.5),
      latency: (latency ?? 'fast') as never,
      ratePerSecond: LOOPBACK_RATE,
      ...(process.env.RUN_SECONDS
        ? {
            claims: Math.round(Number(load ?? 1.5) * LOOPBACK_RATE * Number(process.env.RUN_SECONDS)),
            warmupShare: 0.25,
          }
        : {}),
      onLimiterEvent,
      ...(process.env.VENDOR_THREAD === 'own' ? { vendorThread: 'own-thread' as const } : {}),
    })
  : await runZoo({
      vendor,
      ...(process.env.SIGNALS
        ? {
            onSignal: (q: QuotaSignal, now: number) =>
              console.log(
                'sig',
                ((now - start) / 1000).toFixed(3),
                'remaining',
                q.remaining,
                'reset',
                q.resetSeconds?.toFixed(3),
                'retryAfterMs',
                q.retryAfterMs,
                'throttled',
                q.throttled === true,
                'rtt',
                q.roundTripMs?.toFixed(0),
                'sent',
                ((now - (q.roundTripMs ?? 0) - start) / 1000).toFixed(3),
              ),
          }
        : {}),
      client: { kind: 'rxgate', ratePerSecond: Number(rate ?? 10), burst: Number(burst ?? 10) },
      load: Number(load ?? 1.5),
      latency: (latency ?? 'fast') as never,
      onLimiterEvent,
      seed: Number(process.env.SEED ?? 1),
      ...(process.env.WAY_THERE === 'half' ? { wayThere: 'half' as const } : {}),
      ...(process.env.HEADERS_AFTER_MS ? { headersAfterMs: Number(process.env.HEADERS_AFTER_MS) } : {}),
      ...(process.env.WARMUP_MS ? { warmupMs: Number(process.env.WARMUP_MS) } : {}),
      ...(process.env.DURATION_MS ? { durationMs: Number(process.env.DURATION_MS) } : {}),
    });
console.log(r);
