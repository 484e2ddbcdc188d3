import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { logNormal, stream } from '../random.js';
import { type QuotaModelName, quotaModel } from './quota-models.js';
import { answerOf, type HeaderStyle, type ThrottleStyle } from './vendor-headers.js';

/** A zoo vendor served over loopback HTTP (see runZooLoopback). */
export interface LoopbackVendorData {
  readonly model: QuotaModelName;
  readonly headers: HeaderStyle;
  readonly throttle: ThrottleStyle;
  readonly ratePerSecond: number;
  /** Its latency after counting, log-normal (ms). */
  readonly p50: number;
  readonly p99: number;
  readonly seed: number;
  /** Epoch ms: the requests counted from here to `end` are measured. */
  readonly measureFrom: number;
  readonly end: number;
}

export interface LoopbackVendor {
  readonly port: number;
  /** Closes it: the requests it admitted and refused in the measured span. */
  stop(): Promise<{ admitted: number; refused: number }>;
}

export const PAID = JSON.stringify({ '112-AN': 'P', '509-F9': '12.34' });

/**
 * Serves one zoo vendor on loopback (node:http, real timers): it counts a request when the
 * request has arrived whole, and answers after the rest of its latency.
 */
export async function serveZooVendor(d: LoopbackVendorData): Promise<LoopbackVendor> {
  const model = quotaModel(d.model, d.ratePerSecond);
  const net = stream(d.seed, 'latency');
  let admitted = 0;
  let refused = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = Date.now();
      const { admitted: ok, report } = model.arrive(now);
      if (now >= d.measureFrom && now < d.end) {
        if (ok) admitted++;
        else refused++;
      }
      const answer = answerOf(ok, report, d.headers, d.throttle, now);
      const delay = Math.max(0, logNormal(net, d.p50, d.p99) - 2);
      setTimeout(() => {
        res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json' });
        res.end(ok ? PAID : '{}');
      }, delay);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      return { admitted, refused };
    },
  };
}
