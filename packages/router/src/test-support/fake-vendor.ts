// An in-process vendor on a virtual clock for property tests: the JSON contract's answers and
// faults, drawn from a seeded random source, with a ledger that counts payments per claim.
import type { AbortSignalLike, Clock } from '@rxgate/ratelimit';
import { TransportError } from '../errors.js';
import type { NodeAddress, WireRequest, WireResponse } from '../transport.js';

export type Fault =
  | 'ok'
  | '429'
  | '429-date'
  | '503-throttle'
  | '503-maintenance'
  | '500'
  | '502'
  | '504'
  | '408'
  | 'host-92'
  | 'reject-70'
  | 'reject-75'
  | 'reject-21'
  | 'not-found-route'
  | 'not-found-product'
  | '401'
  | 'reset-before'
  | 'commit-then-reset'
  | 'commit-then-hang'
  | 'commit-then-504'
  | 'commit-then-502'
  | 'hang';

export interface FakeVendorOptions {
  readonly clock: Clock;
  readonly random: () => number;
  /** Faults to draw from for each request, by weight. */
  readonly faults: ReadonlyArray<readonly [Fault, number]>;
  /** Whether the nodes share one idempotency store. */
  readonly sharedIdempotency: boolean;
  readonly latencyMs?: readonly [number, number];
}

export interface FakeVendor {
  handle(node: NodeAddress, request: WireRequest, signal: AbortSignalLike): Promise<WireResponse>;
  /**
   * Payments by claim *content* — the NCPDP duplicate rule (BIN, PCN, pharmacy NPI, Rx number,
   * fill, date of service), read from the request body — across every node. Never by our key:
   * an oracle that counted by the router's key would miss a claim sent under two keys.
   */
  readonly payments: Map<string, number>;
  readonly firedFaults: Set<Fault>;
  requests: number;
}

const PAID_BODY = { '112-AN': 'P', '505-F5': '5.00', '506-F6': '10.34', '509-F9': '7.34', '503-F3': 'AUTH' };

export function fakeVendor(o: FakeVendorOptions): FakeVendor {
  const stores = new Map<string, Map<string, WireResponse>>();
  const storeOf = (node: string) => {
    const name = o.sharedIdempotency ? '*' : node;
    let s = stores.get(name);
    if (s === undefined) {
      s = new Map();
      stores.set(name, s);
    }
    return s;
  };
  const total = o.faults.reduce((a, [, w]) => a + w, 0);
  const draw = (): Fault => {
    let x = o.random() * total;
    for (const [f, w] of o.faults) {
      x -= w;
      if (x < 0) return f;
    }
    return 'ok';
  };
  const [minLatency, maxLatency] = o.latencyMs ?? [5, 60];
  // Payments counted by the claim's content, read from the body the processor received.
  const count = (request: WireRequest) => {
    const c = JSON.parse(request.body) as Record<string, unknown>;
    const identity = ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1']
      .map((f) => String(c[f]))
      .join('|');
    vendor.payments.set(identity, (vendor.payments.get(identity) ?? 0) + 1);
  };
  const commitPaid = (store: Map<string, WireResponse>, key: string, request: WireRequest) => {
    store.set(key, {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(PAID_BODY),
    });
    count(request);
  };
  const vendor: FakeVendor = {
    payments: new Map(),
    firedFaults: new Set(),
    requests: 0,
    async handle(node, request, signal) {
      vendor.requests++;
      const wait = (ms: number) =>
        new Promise<void>((resolve, reject) => {
          if (signal.aborted) {
            reject(new TransportError('sent', 'ABORTED'));
            return;
          }
          const t = o.clock.setTimer(ms, () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          });
          const onAbort = () => {
            t.cancel();
            reject(new TransportError('sent', 'ABORTED'));
          };
          signal.addEventListener('abort', onAbort, { once: true });
        });
      const latency = minLatency + o.random() * (maxLatency - minLatency);
      const key = request.headers['idempotency-key'] ?? '';
      const store = storeOf(node.name);
      const fault = draw();
      if (fault === 'reset-before') {
        vendor.firedFaults.add(fault);
        await wait(latency / 4);
        throw new TransportError('not-sent', 'ECONNREFUSED');
      }
      await wait(latency);
      if (fault === 'commit-then-504' || fault === 'commit-then-502') {
        // A gateway gives up on a slow upstream that goes on to pay the claim (or replay its
        // answer): whatever the processor did, the client hears a 5xx.
        vendor.firedFaults.add(fault);
        if (!store.has(key)) commitPaid(store, key, request);
        return {
          status: fault === 'commit-then-504' ? 504 : 502,
          headers: { 'content-type': 'text/html' },
          body: '<html>Gateway Timeout</html>',
        };
      }
      const replay = store.get(key);
      if (replay !== undefined)
        return { ...replay, headers: { ...replay.headers, 'idempotent-replayed': 'true' } };
      vendor.firedFaults.add(fault);
      const json = (status: number, body: unknown, headers: Record<string, string> = {}): WireResponse => ({
        status,
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      const commit = (answer: WireResponse) => {
        store.set(key, answer);
        const body = JSON.parse(answer.body) as Record<string, unknown>;
        if (body['112-AN'] === 'P' && !body['511-FB']) count(request);
        return answer;
      };
      switch (fault) {
        case 'ok':
          return commit(
            json(200, PAID_BODY, {
              'x-ratelimit-limit': '100',
              'x-ratelimit-remaining': '50',
              'x-ratelimit-reset': '1',
            }),
          );
        case '429':
          return json(429, {}, { 'retry-after': String(Math.floor(o.random() * 2)) });
        case '429-date':
          return json(
            429,
            {},
            {
              'retry-after': new Date(Date.parse('2026-11-30T12:00:00Z') + 1000).toUTCString(),
              date: 'Mon, 30 Nov 2026 12:00:00 GMT',
            },
          );
        case '503-throttle':
          return json(
            503,
            {},
            { 'retry-after': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '100' },
          );
        case '503-maintenance':
          return json(503, {}, { 'retry-after': '0' });
        case '500':
        case '502':
        case '504':
        case '408':
          return json(Number(fault), {});
        case 'host-92':
          return commit(json(200, { '112-AN': 'R', '511-FB': ['92'] }));
        case 'reject-70':
          return commit(json(200, { '112-AN': 'R', '511-FB': ['70'] }));
        case 'reject-75':
          return commit(json(200, { '112-AN': 'R', '511-FB': ['75'] }));
        case 'reject-21':
          return commit(json(200, { '112-AN': 'R', '511-FB': ['21'] }));
        case 'not-found-route':
          return json(404, { error: 'unknown_route', field: '104-A4' });
        case 'not-found-product':
          return json(404, { error: 'unknown_product', field: '407-D7' });
        case '401':
          return json(401, {});
        case 'commit-then-reset':
          commit(json(200, PAID_BODY));
          throw new TransportError('sent', 'ECONNRESET');
        case 'commit-then-hang':
          commit(json(200, PAID_BODY));
          await wait(Number.MAX_SAFE_INTEGER);
          throw new TransportError('sent', 'ABORTED');
        case 'hang':
          await wait(Number.MAX_SAFE_INTEGER);
          throw new TransportError('sent', 'ABORTED');
      }
    },
  };
  return vendor;
}
