// The test vendor of vendor.ts, answering in process on a virtual clock: the same script,
// fallback and ledgers, so the verdict tests run in virtual time with no socket and no real
// wait. A read timeout is a timer on the same clock; a refused node is a URL.
import type { AbortSignalLike } from '@rxgate/ratelimit';
import type { VirtualClock } from '@rxgate/testkit';
import { TransportError } from '../errors.js';
import { functionTransport, type Transport, type WireRequest, type WireResponse } from '../transport.js';
import { contentOf, PAID, type VendorAnswer } from './vendor.js';

/** A URL no vendor listens on: every send to it is refused before a byte leaves. */
export const REFUSED_URL = 'http://refused.test';

export interface VirtualVendor {
  readonly url: string;
  /** Answers to give, in order (then `fallback`). */
  readonly script: VendorAnswer[];
  fallback: VendorAnswer;
  paidByContent: Map<string, number>;
  readonly requests: Array<{ key: string; auth: string | null; body: Record<string, unknown> }>;
  tokensIssued: number;
  tokenTtlSeconds: number;
  gatewayTimeouts: boolean;
  /** Answers a request before the vendor does (a revoked token, say); undefined passes it on. */
  intercept?: (request: WireRequest) => WireResponse | undefined;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): WireResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const GATEWAY_504: WireResponse = {
  status: 504,
  headers: { 'content-type': 'text/html' },
  body: '<html><body><h1>504 Gateway Time-out</h1></body></html>',
};
const HANG = Symbol('hang');

export interface VirtualVendors {
  readonly transport: Transport;
  /** A vendor at a new URL. */
  vendor(): VirtualVendor;
}

/** Vendors on `clock`, and a transport to them whose read timeout is `readTimeoutMs` of that clock. */
export function virtualVendors(
  clock: VirtualClock,
  options: { readTimeoutMs?: number } = {},
): VirtualVendors {
  const byUrl = new Map<
    string,
    { v: VirtualVendor; handle: (r: WireRequest) => Promise<WireResponse | typeof HANG> }
  >();
  const sleep = (ms: number) => new Promise<void>((r) => clock.setTimer(ms, r));
  const readTimeoutMs = options.readTimeoutMs ?? 2000;

  const transport = functionTransport(async (node, request, signal?: AbortSignalLike) => {
    const target = byUrl.get(node.url);
    if (target === undefined) throw new TransportError('not-sent', 'ECONNREFUSED');
    // The request has left: from here a timeout or an abort may follow a commit.
    return new Promise<WireResponse>((resolve, reject) => {
      let done = false;
      const finish = (f: () => void) => {
        if (done) return;
        done = true;
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        f();
      };
      const onAbort = () => finish(() => reject(new TransportError('sent', 'ABORTED')));
      const timer = clock.setTimer(readTimeoutMs, () =>
        finish(() => reject(new TransportError('sent', 'UND_ERR_HEADERS_TIMEOUT'))),
      );
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      target.handle(request).then(
        (answer) => {
          if (answer !== HANG) finish(() => resolve(answer));
        },
        (e: unknown) => finish(() => reject(e)),
      );
    });
  });

  let n = 0;
  const vendor = (): VirtualVendor => {
    const v: VirtualVendor = {
      url: `http://vendor-${++n}.test`,
      script: [],
      fallback: { status: 200, body: PAID },
      paidByContent: new Map(),
      requests: [],
      tokensIssued: 0,
      tokenTtlSeconds: 300,
      gatewayTimeouts: false,
    };
    const stored = new Map<string, { status: number; body: unknown }>();
    const handle = async (request: WireRequest): Promise<WireResponse | typeof HANG> => {
      const header = (name: string) => request.headers[name] ?? request.headers[name.toLowerCase()] ?? null;
      if (request.path === '/oauth/token') {
        if (
          !request.body.includes('grant_type=client_credentials') ||
          !header('authorization')?.startsWith('Basic ')
        )
          return json(401, { error: 'invalid_client' });
        v.tokensIssued++;
        await sleep(20);
        return json(200, {
          access_token: `tok-${v.tokensIssued}`,
          token_type: 'Bearer',
          expires_in: v.tokenTtlSeconds,
        });
      }
      const intercepted = v.intercept?.(request);
      if (intercepted !== undefined) return intercepted;
      const key = header('idempotency-key') ?? '';
      const body = JSON.parse(request.body) as Record<string, unknown>;
      v.requests.push({ key, auth: header('authorization'), body });
      const replay = stored.get(key);
      if (replay !== undefined && v.gatewayTimeouts) return GATEWAY_504;
      if (replay !== undefined) return json(replay.status, replay.body, { 'idempotent-replayed': 'true' });
      const answer = v.script.shift() ?? v.fallback;
      if (answer.delayMs) await sleep(answer.delayMs);
      if (answer.status === 200 && answer.body !== undefined) {
        const b = answer.body as Record<string, unknown>;
        if (['P', 'A', 'C'].includes(String(b['112-AN'])) && !b['511-FB']) {
          const c = contentOf(body);
          v.paidByContent.set(c, (v.paidByContent.get(c) ?? 0) + 1);
        }
        stored.set(key, { status: 200, body: answer.body });
      }
      if (v.gatewayTimeouts) return GATEWAY_504;
      if (answer.gatewayAfterCommit !== undefined)
        return {
          status: answer.gatewayAfterCommit.status,
          headers: { 'content-type': 'text/html' },
          body: answer.gatewayAfterCommit.body ?? '<html>504 Gateway Time-out</html>',
        };
      if (answer.commitThen === 'hang') return HANG;
      if (typeof answer.commitThen === 'number') await sleep(answer.commitThen);
      return json(answer.status, answer.body ?? {}, answer.headers);
    };
    byUrl.set(v.url, { v, handle });
    return v;
  };
  return { transport, vendor };
}

/**
 * Runs `clock` until `p` settles: every timer fires at its own instant, 10 ms of virtual
 * time at most between two turns. Throws when `p` is still pending after `limitMs`.
 */
export async function settle<T>(clock: VirtualClock, p: Promise<T>, limitMs = 600_000): Promise<T> {
  let done = false;
  p.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  const until = clock.now() + limitMs;
  while (!done && clock.now() < until) await clock.advance(10);
  if (!done) throw new Error(`still pending after ${limitMs} ms of virtual time`);
  return p;
}
