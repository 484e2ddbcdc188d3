// Where a run's claims go, per mode: `virtual`, the vendor model in process on the virtual
// clock; `loopback`, real HTTP to the vendor model's handlers on 127.0.0.1; `target`, real HTTP
// to a vendor's sandbox (no model: nothing is injected, nothing is known of its quota).
import { type AbortSignalLike, type Clock, systemClock } from '@rxgate/ratelimit';
import {
  functionTransport,
  type Transport,
  TransportError,
  undiciTransport,
  type WireResponse,
} from '@rxgate/router';
import { withPeer } from './optional-peer.js';
import type { RunMode, RunOptions } from './run-types.js';
import type { Scenario } from './scenario.js';
import { type NodeName, VendorModel } from './vendor-model.js';
import { VirtualClock } from './virtual-clock.js';

export const SIM_EPOCH = Date.UTC(2026, 10, 30, 0, 0, 0);

export interface Environment {
  readonly clock: Clock;
  /** The virtual clock, in `virtual` mode. */
  readonly vclock: VirtualClock | undefined;
  /** The clock's time at the start of the run. */
  readonly start: number;
  /** The vendor model, except against a target. */
  readonly model: VendorModel | undefined;
  readonly transport: Transport;
  readonly urls: Readonly<Record<NodeName, string>>;
  readonly hasFallback: boolean;
  /** Stops the loopback servers. */
  close(): Promise<void>;
}

export async function openEnvironment(
  s: Scenario,
  mode: RunMode,
  options: Pick<RunOptions, 'target' | 'fallbackTarget'>,
): Promise<Environment> {
  const virtual = mode === 'virtual';
  const vclock = virtual ? new VirtualClock(SIM_EPOCH) : undefined;
  const clock: Clock = vclock ?? systemClock;
  const start = clock.now();
  const model = mode === 'target' ? undefined : new VendorModel(s, clock, start);
  const servers: Array<{ close(): Promise<void> }> = [];
  const urls: Record<NodeName, string> = { primary: 'http://primary.sim', fallback: 'http://fallback.sim' };
  let transport: Transport;
  if (virtual) transport = functionTransport(virtualHandler(model!, clock, s.client.readTimeoutMs));
  else {
    transport = undiciTransport({ readTimeoutMs: s.client.readTimeoutMs, connectTimeoutMs: 1000 });
    if (mode === 'loopback') {
      for (const node of ['primary', 'fallback'] as const) {
        if (node === 'fallback' && !s.nodes.fallback) continue;
        // msw is an optional peer: loaded only by the runs that serve the vendor over HTTP.
        const { serveHandlers, vendorHandlers } = await withPeer(
          () => import('./handlers.js'),
          'msw',
          'loopback mode',
        );
        const server = await serveHandlers((base) => vendorHandlers(model!, node, base));
        servers.push(server);
        urls[node] = server.url;
      }
    } else {
      if (options.target === undefined) throw new Error('target mode needs a target URL');
      urls.primary = options.target;
      if (options.fallbackTarget !== undefined) urls.fallback = options.fallbackTarget;
    }
  }
  return {
    clock,
    vclock,
    start,
    model,
    transport,
    urls,
    hasFallback: mode === 'target' ? options.fallbackTarget !== undefined : s.nodes.fallback,
    close: async () => {
      await Promise.all(servers.map((x) => x.close()));
    },
  };
}

/** The vendor model as a transport on the virtual clock: its delays are timers, its read timeout the client's. */
function virtualHandler(model: VendorModel, clock: Clock, readTimeoutMs: number) {
  return (
    node: { name: string },
    req: { path: string; headers: Readonly<Record<string, string>>; body: string },
    signal: AbortSignalLike,
  ) => {
    const action = model.handle(node.name as NodeName, req);
    const ms = action.kind === 'hang' ? Number.POSITIVE_INFINITY : action.delayMs;
    // One promise a request, settled by its timer with what the action says (an answer, a
    // refusal, a reset), by the read timeout, or by an abort.
    return new Promise<WireResponse>((resolve, reject) => {
      if (signal.aborted) {
        reject(new TransportError('sent', 'ABORTED'));
        return;
      }
      const timedOut = ms > readTimeoutMs;
      const onAbort = () => {
        timer.cancel();
        reject(new TransportError('sent', 'ABORTED'));
      };
      const timer = clock.setTimer(Math.min(ms, readTimeoutMs), () => {
        signal.removeEventListener('abort', onAbort);
        if (timedOut) reject(new TransportError('sent', 'UND_ERR_HEADERS_TIMEOUT'));
        else if (action.kind === 'respond')
          resolve({ status: action.status, headers: action.headers, body: action.body });
        else reject(actionError(action.kind));
      });
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };
}

/** What a request that met no answer meets: refused before it left, reset or hung after. */
function actionError(kind: 'refuse' | 'reset' | 'hang'): TransportError {
  if (kind === 'refuse') return new TransportError('not-sent', 'ECONNREFUSED');
  if (kind === 'reset') return new TransportError('sent', 'ECONNRESET');
  return new TransportError('sent', 'UND_ERR_HEADERS_TIMEOUT');
}
