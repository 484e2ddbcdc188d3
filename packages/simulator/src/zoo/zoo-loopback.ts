import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classify } from '@rxgate/classifier';
import { signalAsAnswered } from '@rxgate/core';
import { createLimiter, isDeadlineExceededError, type LimiterEvent, systemClock } from '@rxgate/ratelimit';
import { undiciTransport } from '@rxgate/router';
import { exponentialMs, logNormal, stream } from '../random.js';
import { quotaModel } from './quota-models.js';
import { answerOf } from './vendor-headers.js';
import { LATENCY, type LatencyProfile, type ZooRunResult, type ZooVendor, zooResult } from './zoo-run.js';

export interface ZooLoopbackOptions {
  readonly vendor: ZooVendor;
  /** The limiter's configured rate and burst, as multiples of the quota (0.5 and 2: half, twice). */
  readonly configured: { readonly rateShare: number; readonly burstShare: number };
  /** Offered load as a multiple of the quota. */
  readonly load: number;
  readonly latency: LatencyProfile;
  /** The vendor's quota, requests per second (higher than the virtual zoo's 20 to keep runs short). @default 100 */
  readonly ratePerSecond?: number;
  /** Claims sent in all: bounds the run (about count / (load · rate) seconds). @default load · rate · 10 (10 s) */
  readonly claims?: number;
  /** The share of the run before measuring. @default 0.3 */
  readonly warmupShare?: number;
  readonly seed?: number;
  /** The limiter's events (adapted, paused, …) with the time they came, for a look at one run. */
  readonly onLimiterEvent?: (event: LimiterEvent, now: number) => void;
}

const PAID = JSON.stringify({ '112-AN': 'P', '509-F9': '12.34' });

/**
 * One zoo vendor served over real HTTP on loopback (node:http, real timers), against the rxgate
 * limiter sending through the router's undici transport and reading answers with the classifier,
 * as the router does. The gateway counts a request when it arrives and answers after the rest of
 * its latency. A bounded number of claims; a throttled claim is tried again.
 */
export async function runZooLoopback(o: ZooLoopbackOptions): Promise<ZooRunResult> {
  const rate = o.ratePerSecond ?? 100;
  const claims = o.claims ?? Math.round(o.load * rate * 10);
  const seed = o.seed ?? 1;
  const model = quotaModel(o.vendor.model, rate);
  const net = stream(seed, 'latency');
  const arrivals = stream(seed, 'arrivals');
  const { p50, p99 } = LATENCY[o.latency];
  const durationMs = (claims / (o.load * rate)) * 1000;
  const start = Date.now();
  const measureFrom = start + durationMs * (o.warmupShare ?? 0.3);
  const end = start + durationMs;
  let admitted = 0;
  let refused = 0;
  let deadLettered = 0;

  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = Date.now();
      const { admitted: ok, report } = model.arrive(now);
      if (now >= measureFrom && now < end) {
        if (ok) admitted++;
        else refused++;
      }
      const answer = answerOf(ok, report, o.vendor.headers, o.vendor.throttle, now);
      const delay = Math.max(0, logNormal(net, p50, p99) - 2);
      setTimeout(() => {
        res.writeHead(answer.status, { ...answer.headers, 'content-type': 'application/json' });
        res.end(ok ? PAID : '{}');
      }, delay);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const node = { name: 'zoo', url };
  const transport = undiciTransport();
  const limiter = createLimiter({
    account: { ratePerSecond: rate * o.configured.rateShare, burst: rate * o.configured.burstShare },
    clock: systemClock,
    ...(o.onLimiterEvent === undefined
      ? {}
      : { onEvent: (e: LimiterEvent) => o.onLimiterEvent?.(e, Date.now()) }),
  });

  const attempt = async (deadline: number): Promise<void> => {
    for (;;) {
      if (Date.now() >= end) return;
      let lease: Awaited<ReturnType<typeof limiter.acquire>>;
      try {
        lease = await limiter.acquire({ key: 'payer', lane: 'batch', deadline });
      } catch (e) {
        if (isDeadlineExceededError(e)) deadLettered++;
        return;
      }
      const sentAt = Date.now();
      let status = 0;
      let headers: Record<string, string | string[] | undefined> = {};
      try {
        const res = await transport.send(
          node,
          { method: 'POST', path: '/adjudicate', headers: {}, body: '{}' },
          { aborted: false, addEventListener() {}, removeEventListener() {} },
        );
        status = res.status;
        headers = { ...res.headers };
      } catch {
        status = 0;
      } finally {
        lease.release();
      }
      const answeredAt = Date.now();
      const verdict = classify({ status, headers, body: status === 200 ? PAID : '{}' }, { now: answeredAt });
      const q = verdict.quota;
      if (q !== undefined) {
        const rtt = answeredAt - sentAt;
        // As the router does: the reset was measured half a round trip ago.
        limiter.observe(signalAsAnswered(q, rtt, rtt));
      }
      if (verdict.kind !== 'throttled') return;
    }
  };

  const pending: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    let sent = 0;
    const arrive = (): void => {
      pending.push(attempt(Date.now() + 3_600_000));
      if (++sent >= claims) {
        resolve();
        return;
      }
      setTimeout(arrive, exponentialMs(arrivals, o.load * rate));
    };
    arrive();
  });
  // Wait out the run, then stop whatever is still queued.
  await new Promise<void>((r) => setTimeout(r, Math.max(0, end - Date.now())));
  limiter.close();
  await Promise.allSettled(pending);
  await transport.close?.();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  return zooResult((rate * (end - measureFrom)) / 1000, admitted, refused, deadLettered);
}
