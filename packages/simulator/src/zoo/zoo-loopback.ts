import { Worker } from 'node:worker_threads';
import { classify } from '@rxgate/classifier';
import { signalAsAnswered } from '@rxgate/core';
import { createLimiter, isDeadlineExceededError, type LimiterEvent, systemClock } from '@rxgate/ratelimit';
import { undiciTransport } from '@rxgate/router';
import { exponentialMs, stream } from '../random.js';
import { type LoopbackVendor, type LoopbackVendorData, PAID, serveZooVendor } from './zoo-loopback-vendor.js';
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
  /**
   * Where the vendor runs. On the client's thread (the tables' way), a stall of the event loop
   * holds up the vendor with the client: the requests in flight are counted late, together with
   * the catch-up after the stall. On a thread of its own, as a real gateway runs apart, its own
   * stalls hold up when it counts a request while the client goes on, as a path's jitter does.
   * The sliding log's rows read lower that way (session 18: 1 of 12 cells at 95 %, 91.7-95.6 %,
   * against 7 of 12 on the client's thread, both with one or two throttles a run).
   * @default 'client-thread'
   */
  readonly vendorThread?: 'own-thread' | 'client-thread';
}

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
  const arrivals = stream(seed, 'arrivals');
  const { p50, p99 } = LATENCY[o.latency];
  const durationMs = (claims / (o.load * rate)) * 1000;
  const start = Date.now();
  const measureFrom = start + durationMs * (o.warmupShare ?? 0.3);
  const end = start + durationMs;
  let deadLettered = 0;
  const vendor = await (o.vendorThread === 'own-thread' ? vendorOnOwnThread : serveZooVendor)({
    model: o.vendor.model,
    headers: o.vendor.headers,
    throttle: o.vendor.throttle,
    ratePerSecond: rate,
    p50,
    p99,
    seed,
    measureFrom,
    end,
  });
  const node = { name: 'zoo', url: `http://127.0.0.1:${vendor.port}` };
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
  const { admitted, refused } = await vendor.stop();
  return zooResult((rate * (end - measureFrom)) / 1000, admitted, refused, deadLettered);
}

// The vendor on a worker thread, in the form this module was loaded in: built, or TypeScript
// under tsx (a worker's first module does not go through the hooks --import registered, so it
// registers them).
async function vendorOnOwnThread(d: LoopbackVendorData): Promise<LoopbackVendor> {
  const typescript = import.meta.url.endsWith('.ts');
  const file = new URL(`./zoo-loopback-vendor-thread${typescript ? '.ts' : '.js'}`, import.meta.url);
  const worker = typescript
    ? new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((t) => { t.register(); return import(${JSON.stringify(file.href)}); });`,
        { eval: true, workerData: d },
      )
    : new Worker(file, { workerData: d });
  // Its next message, or its error or exit (then it is stopped and the run fails).
  const next = <T>(): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const off = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const onMessage = (m: T) => {
        off();
        resolve(m);
      };
      const onError = (e: Error) => {
        off();
        void worker.terminate();
        reject(e);
      };
      const onExit = (code: number) => {
        off();
        reject(new Error(`the vendor's thread exited (${code})`));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  const { port } = await next<{ port: number }>();
  return {
    port,
    stop: async () => {
      const counts = next<{ admitted: number; refused: number }>();
      worker.postMessage('stop');
      const c = await counts;
      await worker.terminate();
      return c;
    },
  };
}
