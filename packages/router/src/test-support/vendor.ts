// A test vendor speaking the JSON contract as msw handlers, with its own ledger: every
// Idempotency-Key is adjudicated at most once and replayed after that.
import { delay, HttpResponse, http, type RequestHandler } from 'msw';

export interface VendorAnswer {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Commit the claim (pay it), then answer after this delay or never. */
  readonly commitThen?: 'hang' | number;
  /**
   * Commit the claim, then a gateway in front of the processor answers this instead (a 504
   * when the upstream was slow): the payment stands, the client hears a 5xx.
   */
  readonly gatewayAfterCommit?: { readonly status: number; readonly body?: string };
  /** Delay before answering. */
  readonly delayMs?: number;
  /** Held until this settles before answering (the test releases it: ordering, not time). */
  readonly hold?: Promise<unknown>;
}

export interface TestVendor {
  readonly handlers: RequestHandler[];
  /** Answers to give, in order (then `fallback`). */
  readonly script: VendorAnswer[];
  fallback: VendorAnswer;
  /**
   * Payments by claim content, the NCPDP duplicate rule (BIN, PCN, NPI, Rx, fill, date of
   * service), read from the body: the oracle of every exactly-once test. Share one map between
   * two vendors to count across nodes.
   */
  paidByContent: Map<string, number>;
  readonly requests: Array<{ key: string; auth: string | null; body: Record<string, unknown> }>;
  tokensIssued: number;
  tokenTtlSeconds: number;
  /**
   * A gateway in front of a slow processor: every request still reaches the processor (which
   * pays new claims and replays known keys), but the client hears 504 Gateway Timeout.
   */
  gatewayTimeouts: boolean;
  /** Called after each adjudication request is recorded (tests wait on it instead of polling). */
  onRequest?: () => void;
}

export const PAID = {
  '112-AN': 'P',
  '505-F5': '5.00',
  '506-F6': '10.34',
  '509-F9': '7.34',
  '503-F3': 'AUTH1',
};

export function testVendor(base: string): TestVendor {
  const v: TestVendor = {
    handlers: [],
    script: [],
    fallback: { status: 200, body: PAID },
    paidByContent: new Map(),
    requests: [],
    tokensIssued: 0,
    tokenTtlSeconds: 300,
    gatewayTimeouts: false,
  };
  const gateway504 = () =>
    new HttpResponse('<html><body><h1>504 Gateway Time-out</h1></body></html>', {
      status: 504,
      headers: { 'content-type': 'text/html' },
    });
  const stored = new Map<string, { status: number; body: unknown }>();
  v.handlers.push(
    http.post(`${base}/oauth/token`, async ({ request }) => {
      const form = await request.text();
      if (
        !form.includes('grant_type=client_credentials') ||
        !request.headers.get('authorization')?.startsWith('Basic ')
      ) {
        return HttpResponse.json({ error: 'invalid_client' }, { status: 401 });
      }
      v.tokensIssued++;
      await delay(20);
      return HttpResponse.json({
        access_token: `tok-${v.tokensIssued}`,
        token_type: 'Bearer',
        expires_in: v.tokenTtlSeconds,
      });
    }),
    http.post(`${base}/adjudicate`, async ({ request }) => {
      const key = request.headers.get('idempotency-key') ?? '';
      const body = (await request.json()) as Record<string, unknown>;
      v.requests.push({ key, auth: request.headers.get('authorization'), body });
      v.onRequest?.();
      const replay = stored.get(key);
      if (replay !== undefined && v.gatewayTimeouts) return gateway504();
      if (replay !== undefined)
        return HttpResponse.json(replay.body as object, {
          status: replay.status,
          headers: { 'idempotent-replayed': 'true' },
        });
      const answer = v.script.shift() ?? v.fallback;
      if (answer.delayMs) await delay(answer.delayMs);
      if (answer.hold) await answer.hold;
      if (answer.status === 200 && answer.body !== undefined) {
        const b = answer.body as Record<string, unknown>;
        if (['P', 'A', 'C'].includes(String(b['112-AN'])) && !b['511-FB']) {
          const c = contentOf(body);
          v.paidByContent.set(c, (v.paidByContent.get(c) ?? 0) + 1);
        }
        stored.set(key, { status: 200, body: answer.body });
      }
      if (v.gatewayTimeouts) return gateway504();
      if (answer.gatewayAfterCommit !== undefined)
        return new HttpResponse(answer.gatewayAfterCommit.body ?? '<html>504 Gateway Time-out</html>', {
          status: answer.gatewayAfterCommit.status,
          headers: { 'content-type': 'text/html' },
        });
      if (answer.commitThen === 'hang') await delay('infinite');
      if (typeof answer.commitThen === 'number') await delay(answer.commitThen);
      return HttpResponse.json((answer.body ?? {}) as object, {
        status: answer.status,
        ...(answer.headers ? { headers: answer.headers } : {}),
      });
    }),
  );
  return v;
}

/** A claim's content identity by the NCPDP duplicate rule, read from its wire body. */
export function contentOf(body: Record<string, unknown>): string {
  return ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1'].map((f) => String(body[f])).join('|');
}
