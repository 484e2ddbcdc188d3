import { type Breakers, createBreakers } from '@rxgate/breaker';
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
  /** Refresh at most this long before expiry. @default 60_000 */
  readonly marginMs?: number;
  /**
   * And at most this share of the token's lifetime before it, so a short-lived token is still
   * used for most of its life: a 30 s token is refreshed 3 s before it expires. @default 0.1
   */
  readonly refreshShare?: number;
  /** The token call's own timeout (never a waiting claim's deadline). @default 5_000 */
  readonly timeoutMs?: number;
  /**
   * The token endpoint's own breakers, keyed by node name: a node whose token endpoint is down
   * is not asked again until the breaker lets a probe through.
   * @default 3 consecutive failures open it, 1 s growing to 30 s
   */
  readonly breakers?: Breakers;
  /** Random source for the default breakers' jitter. @default Math.random */
  readonly random?: () => number;
  /** Called after each token fetch (telemetry: node and status only). */
  readonly onRefresh?: (node: string, ok: boolean) => void;
}

interface Cached {
  readonly token: string;
  /** From here the token is refreshed in the background while it is still served. */
  readonly refreshAt: number;
  readonly expiresAt: number;
}

/**
 * OAuth2 client credentials from `{base}/oauth/token`. One fetch in flight per node at a time,
 * however many claims ask (single flight); a token is refreshed once per lifetime, in the
 * background, min(`marginMs`, `refreshShare` of its lifetime) before it expires, while it is
 * still served; a 401 on a token forces one refresh. The fetch has its own timeout and its own
 * breaker per node: a claim waiting for it stops at its own deadline, the fetch does not.
 */
export function clientCredentials(
  options: ClientCredentialsOptions,
): Credentials & { readonly fetches: number } {
  const margin = nonNegative('marginMs', options.marginMs ?? 60_000);
  const share = options.refreshShare ?? 0.1;
  if (!(share >= 0 && share < 1)) throw new CredentialsError('refreshShare must be a number in [0, 1)');
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!(timeoutMs > 0)) throw new CredentialsError('timeoutMs must be a positive number of milliseconds');
  const clock = options.clock;
  const breakers =
    options.breakers ??
    createBreakers({
      clock,
      ...(options.random === undefined ? {} : { random: options.random }),
      defaults: {
        policy: { kind: 'consecutive', threshold: 3 },
        openDuration: { initialMs: 1_000, maxMs: 30_000 },
      },
    });
  const cache = new Map<string, Cached>();
  const inFlight = new Map<string, Promise<Cached>>();
  let fetches = 0;

  const fetchToken = async (node: NodeAddress): Promise<Cached> => {
    const client = options.clients[node.name];
    if (client === undefined)
      throw new CredentialsError(`no client credentials configured for node "${node.name}"`);
    const permit = breakers.tryAcquire(node.name);
    if (permit.kind === 'rejected')
      throw new CredentialsError(
        `token endpoint breaker ${permit.state} (retry in ${permit.retryAfterMs} ms)`,
      );
    fetches++;
    const basic = Buffer.from(
      `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
    ).toString('base64');
    const timeout = timeoutSignal(clock, timeoutMs);
    let res: Awaited<ReturnType<Transport['send']>>;
    try {
      res = await raceAbort(
        options.transport.send(
          node,
          {
            method: 'POST',
            path: '/oauth/token',
            headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
            body: 'grant_type=client_credentials',
          },
          timeout.signal,
        ),
        timeout.signal,
        `token endpoint timed out after ${timeoutMs} ms`,
      );
    } catch (e) {
      permit.failure();
      options.onRefresh?.(node.name, false);
      throw new CredentialsError(
        `token endpoint unreachable (${isTransportError(e) ? e.transportCode : timeout.signal.aborted ? 'timeout' : 'error'})`,
        undefined,
        { cause: e },
      );
    } finally {
      timeout.cancel();
    }
    let body: { access_token?: unknown; expires_in?: unknown };
    try {
      body = JSON.parse(res.body) as typeof body;
    } catch {
      body = {};
    }
    if (res.status !== 200 || typeof body.access_token !== 'string' || body.access_token === '') {
      permit.failure();
      options.onRefresh?.(node.name, false);
      throw new CredentialsError(`token endpoint answered ${res.status}`, res.status);
    }
    permit.success();
    const expiresIn = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
    options.onRefresh?.(node.name, true);
    const now = clock.now();
    const ttlMs = expiresIn * 1000;
    return {
      token: body.access_token,
      refreshAt: now + ttlMs - Math.min(margin, share * ttlMs),
      expiresAt: now + ttlMs,
    };
  };

  // One fetch per node at a time: every caller (and the background refresh) joins it.
  const fetchOnce = (node: NodeAddress): Promise<Cached> => {
    let pending = inFlight.get(node.name);
    if (pending === undefined) {
      pending = fetchToken(node).then(
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
    return pending;
  };

  return {
    get fetches() {
      return fetches;
    },
    async token(node, signal) {
      const cached = cache.get(node.name);
      const now = clock.now();
      if (cached !== undefined && now < cached.expiresAt) {
        // Still valid: served; inside its refresh margin, one refresh goes in the background
        // (a failed one leaves the token served, and the breaker paces the next tries).
        if (now >= cached.refreshAt && !inFlight.has(node.name)) fetchOnce(node).catch(() => undefined);
        return cached.token;
      }
      // Joiners stop waiting on their own deadline, even when the fetch they joined goes on.
      return (await raceAbort(fetchOnce(node), signal, 'aborted while waiting for a token')).token;
    },
    invalidate(node, token) {
      // Only the token that failed: a claim that saw an old token must not discard the new one.
      if (cache.get(node.name)?.token === token) cache.delete(node.name);
    },
  };
}

function nonNegative(option: string, v: number): number {
  if (!(v >= 0)) throw new CredentialsError(`${option} must be a number >= 0`);
  return v;
}

/** A signal of the token call's own, aborted after `ms` on the injected clock. */
function timeoutSignal(clock: Clock, ms: number): { signal: AbortSignal; cancel(): void } {
  const controller = new AbortController();
  const timer = clock.setTimer(ms, () =>
    controller.abort(new CredentialsError(`token call timed out after ${ms} ms`)),
  );
  return { signal: controller.signal, cancel: () => timer.cancel() };
}

function raceAbort<T>(p: Promise<T>, signal: AbortSignalLike, message: string): Promise<T> {
  if (signal.aborted) return Promise.reject(new CredentialsError(message));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(new CredentialsError(message));
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
