// An independent claim processor for hostile tests, written from docs/vendor-contract.md and from
// how real payers and gateways behave — sharing no code with the router or its test support.
//
// Oracle: every payment is counted by the claim's CONTENT (the NCPDP duplicate rule: BIN 101-A1,
// PCN 104-A4, pharmacy NPI 201-B1, Rx number 402-D2, fill 403-D3, date of service 401-D1), in one
// book across every node, never by the Idempotency-Key.
//
// Each node has its own idempotency store (nodes never share it) and its own payments database:
// - mode 'payer': a claim whose content this node already paid gets 112-AN 'D' (duplicate of paid)
//   under a new key, as real payers answer;
// - mode 'naive': a new key pays again (a vendor with no duplicate check).
// A fault decides, per request, what happens around the commit (a gateway 5xx after the upstream
// paid, an answer held past the client's read timeout, a reset after commit, 429, 503 …).
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { containsPhi } from '../test-support/phi-scan.js';

export type Fault =
  | { readonly kind: 'ok' }
  /** The upstream adjudicates (commits), the gateway in front answers this status instead. */
  | { readonly kind: 'gateway-after-commit'; readonly status: 408 | 500 | 502 | 504 }
  /** Commits, then a 200 whose body is a gateway's HTML page (unreadable). */
  | { readonly kind: 'garbled-200-after-commit' }
  /** Commits and pays, but the amounts are JSON numbers (the contract: never taken as paid). */
  | { readonly kind: 'paid-with-number-amounts' }
  /** Pays, and the answer carries the patient segment back (310-CA, 311-CB, 304-C4, 302-C2). */
  | { readonly kind: 'paid-echoing-patient' }
  /** 400 naming the field and echoing its value (and the names), nothing committed. */
  | { readonly kind: 'invalid-echoing-value'; readonly field: string }
  /** Commits; the gateway's 502 page dumps the request it forwarded. */
  | { readonly kind: 'gateway-dump-after-commit' }
  /** Rejects 70 and echoes the patient segment. */
  | { readonly kind: 'reject-echoing-patient' }
  /** Resets the connection before the upstream saw the claim (nothing committed). */
  | { readonly kind: 'reset-before-commit' }
  /** The gateway fails before the upstream saw the claim (nothing committed). */
  | { readonly kind: 'gateway-before-commit'; readonly status: 500 | 502 | 504 }
  /** Commits, then never answers (until `releaseHeld()` or close): past any read timeout. */
  | { readonly kind: 'hold-after-commit' }
  /** Holds without committing until released; then commits and answers (a slow upstream). */
  | { readonly kind: 'hold-then-commit' }
  /** Commits, then resets the connection. */
  | { readonly kind: 'reset-after-commit' }
  /** 429 with Retry-After in seconds or as an HTTP date; nothing committed. */
  | {
      readonly kind: 'throttle';
      readonly form: 'seconds' | 'date';
      readonly seconds: number;
      /** The processor's clock against ours, in seconds (its Date header and Retry-After date). */
      readonly skewSeconds?: number;
    }
  /** 503 maintenance with Retry-After seconds; nothing committed. */
  | { readonly kind: 'maintenance'; readonly seconds: number };

export interface SeenRequest {
  readonly node: string;
  /** 1-based count of /adjudicate requests this node received. */
  readonly n: number;
  /** Order of arrival across every node sharing the book. */
  readonly seq: number;
  readonly content: string;
  readonly idempotencyKey: string | undefined;
  readonly body: Readonly<Record<string, unknown>>;
  readonly headers: IncomingMessage['headers'];
}

export interface Payment {
  readonly node: string;
  readonly idempotencyKey: string | undefined;
  readonly authorization: string;
}

/** The oracle: payments by content, across every node. */
export class PaymentBook {
  readonly byContent = new Map<string, Payment[]>();
  /** content -> node -> seq of the first request it committed there (paid or not). */
  readonly commits = new Map<string, Map<string, number>>();
  #seq = 0;
  nextSeq(): number {
    return ++this.#seq;
  }
  noteCommit(content: string, node: string, seq: number): void {
    const m = this.commits.get(content) ?? new Map<string, number>();
    if (!m.has(node)) m.set(node, seq);
    this.commits.set(content, m);
  }
  record(content: string, p: Payment): void {
    const list = this.byContent.get(content) ?? [];
    list.push(p);
    this.byContent.set(content, list);
  }
  paidCount(content: string): number {
    return this.byContent.get(content)?.length ?? 0;
  }
  /** Contents paid more than once (on one node or across nodes). */
  paidTwice(): Array<{ content: string; payments: Payment[] }> {
    return [...this.byContent]
      .filter(([, ps]) => ps.length > 1)
      .map(([content, payments]) => ({ content, payments }));
  }
  get total(): number {
    let t = 0;
    for (const ps of this.byContent.values()) t += ps.length;
    return t;
  }
}

/** Written from the contract: the six fields of the payers' duplicate rule. */
export function contentOf(body: Readonly<Record<string, unknown>>): string {
  return ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1'].map((k) => String(body[k])).join('|');
}

const REQUIRED = [
  '103-A3',
  '101-A1',
  '302-C2',
  '201-B1',
  '402-D2',
  '403-D3',
  '407-D7',
  '442-E7',
  '405-D5',
  '401-D1',
  '409-D9',
];

interface Stored {
  readonly status: number;
  readonly body: string;
}

export interface VendorNodeOptions {
  readonly name: string;
  readonly mode?: 'payer' | 'naive';
  readonly book: PaymentBook;
  /** What to do with the n-th request; default: answer normally. */
  readonly fault?: (req: SeenRequest) => Fault;
  /** Patient pay and total paid, decimal strings. */
  readonly patientPay?: string;
}

/**
 * One vendor node on loopback. `down()` stops listening (connections refused) and keeps the
 * port; `up()` listens on it again. Emits 'request' (SeenRequest) and 'commit' (content).
 */
export class VendorNode extends EventEmitter {
  readonly name: string;
  readonly mode: 'payer' | 'naive';
  fault: (req: SeenRequest) => Fault;
  readonly #book: PaymentBook;
  readonly #idem = new Map<string, Stored>();
  readonly #paidHere = new Map<string, Stored>();
  readonly #sockets = new Set<Socket>();
  readonly #held: Array<() => void> = [];
  readonly #patientPay: string;
  #server: Server | undefined;
  #port = 0;
  requests = 0;
  readonly seen: SeenRequest[] = [];

  constructor(o: VendorNodeOptions) {
    super();
    this.setMaxListeners(1000);
    this.name = o.name;
    this.mode = o.mode ?? 'payer';
    this.#book = o.book;
    this.fault = o.fault ?? (() => ({ kind: 'ok' }));
    this.#patientPay = o.patientPay ?? '5.00';
  }

  get url(): string {
    return `http://127.0.0.1:${this.#port}/ncpdp`;
  }

  /** Listens (on the same port as before when it was up once). */
  async up(): Promise<void> {
    if (this.#server) return;
    const server = createServer((req, res) => {
      this.#handle(req, res).catch(() => res.destroy());
    });
    server.keepAliveTimeout = 60_000;
    server.on('connection', (s) => {
      this.#sockets.add(s);
      s.on('close', () => this.#sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.#port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const a = server.address();
    if (typeof a === 'object' && a) this.#port = a.port;
    this.#server = server;
  }

  /** Stops listening and destroys every connection: the node refuses connections. */
  async down(): Promise<void> {
    const s = this.#server;
    if (!s) return;
    this.#server = undefined;
    this.#held.length = 0;
    const closed = new Promise<void>((r) => s.close(() => r()));
    for (const sock of this.#sockets) sock.destroy();
    await closed;
  }

  /** Answers every held request (a late answer; the client may have gone). */
  releaseHeld(): number {
    const held = this.#held.splice(0);
    for (const h of held) h();
    return held.length;
  }

  get heldCount(): number {
    return this.#held.length;
  }

  /** Resolves when `pred` holds for a request this node received (checked at each request). */
  waitForRequest(pred: (r: SeenRequest) => boolean): Promise<SeenRequest> {
    const found = this.seen.find(pred);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const on = (r: SeenRequest) => {
        if (pred(r)) {
          this.off('request', on);
          resolve(r);
        }
      };
      this.on('request', on);
    });
  }

  /** Resolves once this node has committed `count` claims in total. */
  waitForCommits(count: number): Promise<void> {
    if (this.#commits >= count) return Promise.resolve();
    return new Promise((resolve) => {
      const on = () => {
        if (this.#commits >= count) {
          this.off('commit', on);
          resolve();
        }
      };
      this.on('commit', on);
    });
  }

  #commits = 0;
  get commits(): number {
    return this.#commits;
  }

  /** Adjudicates (the upstream's commit): the stored answer for this key, or a new one. */
  #commit(content: string, key: string | undefined, seq: number): Stored {
    this.#book.noteCommit(content, this.name, seq);
    if (key !== undefined) {
      const replay = this.#idem.get(key);
      if (replay) return replay;
    }
    let answer: Stored;
    const prior = this.#paidHere.get(content);
    if (prior && this.mode === 'payer') {
      const p = JSON.parse(prior.body) as Record<string, unknown>;
      answer = {
        status: 200,
        body: JSON.stringify({
          '112-AN': 'D',
          '505-F5': p['505-F5'],
          '506-F6': p['506-F6'],
          '509-F9': p['509-F9'],
          '503-F3': p['503-F3'],
        }),
      };
    } else {
      const auth = randomBytes(4).toString('hex').toUpperCase();
      answer = {
        status: 200,
        body: JSON.stringify({
          '112-AN': 'P',
          '505-F5': this.#patientPay,
          '506-F6': '12.34',
          '509-F9': '7.34',
          '503-F3': auth,
        }),
      };
      this.#paidHere.set(content, answer);
      this.#book.record(content, { node: this.name, idempotencyKey: key, authorization: auth });
    }
    if (key !== undefined) this.#idem.set(key, answer);
    this.#commits++;
    this.emit('commit', content);
    return answer;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = req.url ?? '';
    if (req.method === 'POST' && url.endsWith('/oauth/token')) {
      return send(res, 200, { access_token: `tok-${this.name}`, token_type: 'Bearer', expires_in: 300 });
    }
    if (req.method !== 'POST' || !url.endsWith('/adjudicate')) {
      return send(res, 404, { error: 'not_found' });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return send(res, 400, { error: 'invalid', field: '(body)' });
    }
    for (const k of REQUIRED) {
      if (body[k] === undefined) return send(res, 400, { error: 'invalid', field: k });
    }
    for (const k of ['442-E7', '409-D9']) {
      if (typeof body[k] !== 'string') return send(res, 400, { error: 'invalid', field: k });
    }
    const keyHeader = req.headers['idempotency-key'];
    const key = typeof keyHeader === 'string' ? keyHeader : undefined;
    const content = contentOf(body);
    this.requests++;
    const seen: SeenRequest = {
      node: this.name,
      n: this.requests,
      seq: this.#book.nextSeq(),
      content,
      idempotencyKey: key,
      body,
      headers: req.headers,
    };
    this.seen.push(seen);
    const fault = this.fault(seen);
    // Emitted after the fault is chosen, before any answer: a listener sees the request arrive.
    this.emit('request', seen);
    const replayed = key !== undefined && this.#idem.has(key);
    const answer = (s: Stored) =>
      send(res, s.status, s.body, replayed ? { 'Idempotent-Replayed': 'true' } : {});
    switch (fault.kind) {
      case 'ok':
        return answer(this.#commit(content, key, seen.seq));
      case 'gateway-after-commit':
        this.#commit(content, key, seen.seq);
        return send(res, fault.status, '<html>gateway timeout</html>', { 'Content-Type': 'text/html' });
      case 'garbled-200-after-commit':
        this.#commit(content, key, seen.seq);
        return send(res, 200, '<html><body>Service temporarily unavailable</body></html>', {
          'Content-Type': 'text/html',
        });
      case 'paid-with-number-amounts': {
        const s = this.#commit(content, key, seen.seq);
        const p = JSON.parse(s.body) as Record<string, unknown>;
        const numeric = { ...p };
        for (const k of ['505-F5', '506-F6', '509-F9'])
          if (typeof p[k] === 'string') numeric[k] = Number(p[k]);
        return send(res, 200, numeric);
      }
      case 'paid-echoing-patient': {
        const s = this.#commit(content, key, seen.seq);
        const p = JSON.parse(s.body) as Record<string, unknown>;
        return send(res, 200, { ...p, ...patientSegment(body) });
      }
      case 'invalid-echoing-value':
        return send(res, 400, {
          error: 'invalid',
          field: fault.field,
          value: body[fault.field],
          message: `bad ${fault.field} ${String(body[fault.field])} for ${String(body['310-CA'])} ${String(body['311-CB'])}`,
        });
      case 'gateway-dump-after-commit':
        this.#commit(content, key, seen.seq);
        return send(res, 502, `<html><pre>upstream error; request was: ${text}</pre></html>`, {
          'Content-Type': 'text/html',
        });
      case 'reject-echoing-patient':
        return send(res, 200, { '112-AN': 'R', '511-FB': ['70'], ...patientSegment(body) });
      case 'reset-before-commit':
        req.socket.destroy();
        return;
      case 'gateway-before-commit':
        return send(res, fault.status, '<html>bad gateway</html>', { 'Content-Type': 'text/html' });
      case 'hold-after-commit': {
        const s = this.#commit(content, key, seen.seq);
        this.#held.push(() => {
          if (!res.destroyed) answer(s);
        });
        return;
      }
      case 'hold-then-commit':
        this.#held.push(() => {
          const s = this.#commit(content, key, seen.seq);
          if (!res.destroyed) answer(s);
        });
        return;
      case 'reset-after-commit':
        this.#commit(content, key, seen.seq);
        req.socket.destroy();
        return;
      case 'throttle': {
        const retryAfter =
          fault.form === 'seconds'
            ? String(fault.seconds)
            : new Date(Date.now() + fault.seconds * 1000).toUTCString();
        return send(
          res,
          429,
          {},
          {
            'Retry-After': retryAfter,
            'X-RateLimit-Limit': '100',
            'X-RateLimit-Remaining': '0',
            'X-RateLimit-Reset': String(fault.seconds),
          },
        );
      }
      case 'maintenance':
        return send(res, 503, { error: 'maintenance' }, { 'Retry-After': String(fault.seconds) });
    }
  }
}

function patientSegment(body: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['302-C2', '310-CA', '311-CB', '304-C4']) if (body[k] !== undefined) out[k] = body[k];
  return out;
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'X-RateLimit-Limit': '1000',
    'X-RateLimit-Remaining': '999',
    'X-RateLimit-Reset': '1',
    ...headers,
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** A primary and a fallback that do not share idempotency, one payments book. */
export async function twoNodes(
  options: {
    mode?: 'payer' | 'naive';
    primary?: (r: SeenRequest) => Fault;
    fallback?: (r: SeenRequest) => Fault;
  } = {},
): Promise<{ book: PaymentBook; primary: VendorNode; fallback: VendorNode; close(): Promise<void> }> {
  const book = new PaymentBook();
  const primary = new VendorNode({
    name: 'primary',
    book,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.primary ? { fault: options.primary } : {}),
  });
  const fallback = new VendorNode({
    name: 'secondary',
    book,
    ...(options.mode ? { mode: options.mode } : {}),
    ...(options.fallback ? { fault: options.fallback } : {}),
  });
  await primary.up();
  await fallback.up();
  return {
    book,
    primary,
    fallback,
    async close() {
      await primary.down();
      await fallback.down();
    },
  };
}

// ---- claims with generated PHI, and a plain-substring PHI scan ----

export interface GeneratedClaim {
  readonly raw: Record<string, unknown>;
  readonly content: string;
  /** The PHI values put in the claim, to search for. */
  readonly phi: readonly string[];
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** A deterministic claim number i of a run `run` (distinct content per i), with distinctive PHI. */
export function makeClaim(run: number, i: number, rand: () => number): GeneratedClaim {
  const word = (n: number) => {
    let s = '';
    for (let k = 0; k < n; k++) s += LETTERS[Math.floor(rand() * 26)];
    return s;
  };
  const cardholder = `QZ${word(4)}${String(Math.floor(rand() * 1e8)).padStart(8, '0')}`;
  const first = `FN${word(9)}`;
  const last = `LN${word(10)}`;
  const year = 1930 + Math.floor(rand() * 60);
  const month = 1 + Math.floor(rand() * 12);
  const day = 1 + Math.floor(rand() * 28);
  const dob = `${year}${String(month).padStart(2, '0')}${String(day).padStart(2, '0')}`;
  const rx = String(100000000 + run * 10000 + i);
  const raw: Record<string, unknown> = {
    '103-A3': 'B1',
    '101-A1': '610014',
    '104-A4': 'HOSTILE',
    '301-C1': 'GRP7',
    '302-C2': cardholder,
    '310-CA': first,
    '311-CB': last,
    '304-C4': dob,
    '201-B1': '1234567893',
    '402-D2': rx,
    '403-D3': 0,
    '407-D7': '00002143380',
    '442-E7': '30.000',
    '405-D5': 30,
    '401-D1': '20261130',
    '409-D9': '12.34',
  };
  return { raw, content: contentOf(raw), phi: [cardholder, first, last, dob] };
}

/** A seedable source, written here (mulberry32), so nothing is shared with the router's tests. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Every text the router gave us, and the PHI values found in it by plain substring search. */
export class Capture {
  readonly texts: string[] = [];
  readonly events: unknown[] = [];
  readonly logs: Array<{ level: string; obj: object; msg?: string }> = [];
  readonly logger = {
    debug: (obj: object, msg?: string) => this.#log('debug', obj, msg),
    info: (obj: object, msg?: string) => this.#log('info', obj, msg),
    warn: (obj: object, msg?: string) => this.#log('warn', obj, msg),
    error: (obj: object, msg?: string) => this.#log('error', obj, msg),
  };
  readonly #waiters: Array<{ pred: (e: unknown) => boolean; resolve: () => void }> = [];
  readonly onEvent = (e: unknown) => {
    this.events.push(e);
    this.add(e);
    for (const w of [...this.#waiters])
      if (w.pred(e)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve();
      }
  };
  /** Resolves at the first event (past or future) for which `pred` holds. */
  waitForEvent(pred: (e: unknown) => boolean): Promise<void> {
    if (this.events.some(pred)) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ pred, resolve }));
  }
  #log(level: string, obj: object, msg?: string) {
    this.logs.push({ level, obj, ...(msg !== undefined ? { msg } : {}) });
    this.add(obj);
    if (msg !== undefined) this.texts.push(msg);
  }
  add(value: unknown): void {
    this.texts.push(textOf(value));
  }
  findPhi(values: Iterable<string>): string[] {
    const hits: string[] = [];
    for (const v of values)
      for (const t of this.texts) if (containsPhi(t, v)) hits.push(`${v} in ${t.slice(0, 300)}`);
    return hits;
  }
}

/** JSON where it can, plus every Error's message and stack, plus String(). */
export function textOf(value: unknown): string {
  const parts: string[] = [];
  const seen = new Set<unknown>();
  const walk = (v: unknown) => {
    if (v === null || typeof v !== 'object') return;
    if (seen.has(v)) return;
    seen.add(v);
    if (v instanceof Error) parts.push(`${v.name}: ${v.message}\n${v.stack ?? ''}`);
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
  };
  walk(value);
  try {
    parts.push(JSON.stringify(value) ?? '');
  } catch {
    /* cyclic */
  }
  parts.push(String(value));
  return parts.join('\n');
}
