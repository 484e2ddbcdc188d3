import type { Clock } from '@rxgate/ratelimit';
import { CredentialsError, isTransportError } from './errors.js';
import type { AbortSignalLike } from './signal.js';
import type { NodeAddress, Transport } from './transport.js';

/** Bearer tokens per node. */
export interface Credentials {
  /** A valid token for `node` (cached; refreshed before it expires). */
  token(node: NodeAddress, signal: AbortSignalLike): Promise<string>;
  /** The vendor said 401 to `token`: the next `token()` fetches a new one (once, however many saw it). */
  invalidate(node: NodeAddress, token: string): void;
}

export interface ClientCredentialsOptions {
  /** Client id and secret per node name (HTTP Basic on `/oauth/token`). */
  readonly clients: Readonly<Record<string, { readonly clientId: string; readonly clientSecret: string }>>;
  readonly transport: Transport;
  readonly clock: Clock;
  /** Refresh this long before expiry. @default 60_000 */
  readonly marginMs?: number;
  /** Called after each token fetch (telemetry: node and status only). */
  readonly onRefresh?: (node: string, ok: boolean) => void;
}

interface Cached {
  token: string;
  expiresAt: number;
}

/**
 * OAuth2 client credentials from `{base}/oauth/token`. One fetch in flight per node at a time,
 * however many claims ask (single flight); a 401 on a token forces one refresh.
 */
export function clientCredentials(
  options: ClientCredentialsOptions,
): Credentials & { readonly fetches: number } {
  const margin = options.marginMs ?? 60_000;
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<Cached>>();
  let fetches = 0;

  const fetchToken = async (node: NodeAddress, signal: AbortSignalLike): Promise<Cached> => {
    const client = options.clients[node.name];
    if (client === undefined)
      throw new CredentialsError(`no client credentials configured for node "${node.name}"`);
    fetches++;
    const basic = Buffer.from(
      `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
    ).toString('base64');
    let res: Awaited<ReturnType<Transport['send']>>;
    try {
      res = await options.transport.send(
        node,
        {
          method: 'POST',
          path: '/oauth/token',
          headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials',
        },
        signal,
      );
    } catch (e) {
      options.onRefresh?.(node.name, false);
      throw new CredentialsError(
        `token endpoint unreachable (${isTransportError(e) ? e.transportCode : 'error'})`,
        undefined,
        { cause: e },
      );
    }
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(res.body) as typeof body;
    } catch {
      body = {};
    }
    if (res.status !== 200 || typeof body.access_token !== 'string' || body.access_token === '') {
      options.onRefresh?.(node.name, false);
      throw new CredentialsError(`token endpoint answered ${res.status}`, res.status);
    }
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
    options.onRefresh?.(node.name, true);
    return { token: body.access_token, expiresAt: options.clock.now() + expiresIn * 1000 };
  };

  return {
    get fetches() {
      return fetches;
    },
    async token(node, signal) {
      const cached = cache.get(node.name);
      if (cached !== undefined && options.clock.now() < cached.expiresAt - margin) return cached.token;
      let pending = inFlight.get(node.name);
      if (pending === undefined) {
        pending = fetchToken(node, signal).then(
          (c) => {
            cache.set(node.name, c);
            inFlight.delete(node.name);
            return c;
          },
          (e: unknown) => {
            inFlight.delete(node.name);
            throw e;
          },
        );
        inFlight.set(node.name, pending);
      }
      // Joiners stop waiting on their own deadline, even when the fetch they joined goes on.
      return (await raceAbort(pending, signal)).token;
    },
    invalidate(node, token) {
      // Only the token that failed: a claim that saw an old token must not discard the new one.
      if (cache.get(node.name)?.token === token) cache.delete(node.name);
    },
  };
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignalLike): Promise<T> {
  if (signal.aborted) return Promise.reject(new CredentialsError('aborted while waiting for a token'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CredentialsError('aborted while waiting for a token'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
