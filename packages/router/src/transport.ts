import { Pool } from 'undici';
import { TransportError } from './errors.js';
import { readBody } from './read-body.js';
import type { AbortSignalLike } from './signal.js';

/** One vendor endpoint (a node). */
export interface NodeAddress {
  readonly name: string;
  /** Base URL; `/adjudicate` and `/oauth/token` are resolved under it. */
  readonly url: string;
}

export interface WireRequest {
  readonly method: 'POST';
  /** Path under the node's base URL, e.g. `/adjudicate`. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface WireResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body text. */
  readonly body: string;
}

/**
 * How requests reach a node. Rejects (or throws) with {@link TransportError} when there is no
 * answer, saying whether the request may have been processed. An in-process transport may
 * `signal` aborts the request at the
 * claim's deadline; pass it to undici as is, or through `toAbortSignal` to an API that wants a
 * real `AbortSignal`.
 */
export interface Transport {
  send(node: NodeAddress, request: WireRequest, signal: AbortSignalLike): Promise<WireResponse>;
  close(): Promise<void>;
}

export interface UndiciTransportOptions {
  /** Connections per node (keep-alive). @default 32 (a switch's usual concurrency cap) */
  readonly connections?: number;
  /** @default 1000 */
  readonly connectTimeoutMs?: number;
  /** Headers and body read timeout. @default 5000 */
  readonly readTimeoutMs?: number;
  /** @default 30_000 */
  readonly keepAliveTimeoutMs?: number;
}

/**
 * The most of an answer's body the transport reads: past it, the rest is not read and the
 * connection is let go. The classifier reads a body of at most 1,000,000 characters, and a
 * character is at most 4 bytes of UTF-8, so a body stopped past this bound is always longer
 * than what the classifier reads (a malformed body), and one it would read is never cut.
 */
export const BODY_MAX_BYTES = 4_000_004;

// Errors that mean the request never left: safe to send elsewhere.
const NOT_SENT = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CLOSED',
  'UND_ERR_DESTROYED',
]);

/**
 * A TLS handshake that failed (an https: URL to a plain-HTTP port, a certificate the client
 * refuses): no request byte is written before the handshake completes, so nothing was sent.
 */
function isHandshakeFailure(code: string | undefined): boolean {
  return (
    code !== undefined &&
    (code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || TLS_CERT_CODES.has(code))
  );
}
const TLS_CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'HOSTNAME_MISMATCH',
]);

/** The default transport: an undici `Pool` per node, keep-alive, split connect and read timeouts. */
export function undiciTransport(options: UndiciTransportOptions = {}): Transport {
  const pools = new Map<string, Pool>();
  // By node URL: parsing a URL per request costs more than the rest of this function.
  const targets = new Map<string, { pool: Pool; base: string }>();
  const poolFor = (node: NodeAddress): { pool: Pool; base: string } => {
    let target = targets.get(node.url);
    if (target !== undefined) return target;
    const url = new URL(node.url);
    let pool = pools.get(url.origin);
    if (pool === undefined) {
      pool = new Pool(url.origin, {
        connections: options.connections ?? 32,
        connectTimeout: options.connectTimeoutMs ?? 1000,
        headersTimeout: options.readTimeoutMs ?? 5000,
        bodyTimeout: options.readTimeoutMs ?? 5000,
        keepAliveTimeout: options.keepAliveTimeoutMs ?? 30_000,
      });
      pools.set(url.origin, pool);
    }
    target = { pool, base: url.pathname.replace(/\/$/, '') };
    targets.set(node.url, target);
    return target;
  };
  return {
    async send(node, request, signal) {
      const { pool, base } = poolFor(node);
      let sent = false;
      try {
        const res = await pool.request({
          method: request.method,
          path: base + request.path,
          headers: request.headers,
          body: request.body,
          signal,
        });
        sent = true;
        const body = await readBody(res.body, BODY_MAX_BYTES);
        return { status: res.statusCode, headers: res.headers as WireResponse['headers'], body };
      } catch (e) {
        const code = errorCode(e);
        // An abort or a socket error may come after the bytes left: only connect failures are safe.
        const phase = !sent && (NOT_SENT.has(code) || isHandshakeFailure(code)) ? 'not-sent' : 'sent';
        throw new TransportError(phase, code, { cause: e });
      }
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.close()));
      pools.clear();
      targets.clear();
    },
  };
}

/**
 * A transport that calls a function in the same process: for the simulator's virtual time and
 * for benchmarks. The function may throw a {@link TransportError} to act out a lost answer.
 */
export function functionTransport(
  handler: (
    node: NodeAddress,
    request: WireRequest,
    signal: AbortSignalLike,
  ) => Promise<WireResponse> | WireResponse,
): Transport {
  return {
    // The handler's own promise when it returns one (an async wrapper added a promise and
    // three microtasks to every request); a throw is a rejection, as from an async function.
    send: (node, request, signal) => {
      try {
        return Promise.resolve(handler(node, request, signal));
      } catch (e) {
        return Promise.reject(e);
      }
    },
    close: async () => {},
  };
}

function errorCode(e: unknown): string {
  if (typeof e === 'object' && e !== null) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (e as { name?: unknown }).name;
    if (name === 'AbortError') return 'ABORTED';
    const cause = (e as { cause?: unknown }).cause;
    if (cause !== undefined && cause !== e) return errorCode(cause);
  }
  return 'UNKNOWN';
}
