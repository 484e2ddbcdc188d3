// A payer as pharmacies meet it, as msw handlers: it adjudicates by claim *content* (the NCPDP
// duplicate rule), never by our Idempotency-Key, except that a known key replays its answer.
// - B1 of content already paid: 112-AN 'D' (duplicate of paid), the original's amounts, no new payment;
// - B1 otherwise: `rule(body)` decides (a reject with codes, or paid); a B1 after a reject is a
//   fresh transaction;
// - B2 of content paid: the payment is undone (112-AN 'A'); of content not paid: 511-FB 87.
// Its oracle: `paid` (payments standing, by content), `payments` (every payment ever made),
// `reversals`, and every request as received.
import { HttpResponse, http, type RequestHandler } from 'msw';

export const DUPLICATE_RULE = ['101-A1', '104-A4', '201-B1', '402-D2', '403-D3', '401-D1'] as const;

/** A claim's content identity, read from its wire body. */
export function contentKey(body: Record<string, unknown>): string {
  return DUPLICATE_RULE.map((f) => String(body[f])).join('|');
}

export type PayerAnswer =
  | { readonly reject: readonly string[]; readonly messages?: readonly string[] }
  | { readonly pay: true }
  /** The processor pays, and the client hears a gateway 504 (the answer is lost). */
  | { readonly payThenGateway504: true }
  /** Nothing listens for a while: a 503 before processing. */
  | { readonly down: true }
  /** A 404 before processing: this payer does not know the product (or the route). */
  | { readonly notFound: 'unknown_product' | 'unknown_route' };

export interface LifecyclePayer {
  readonly handlers: RequestHandler[];
  /** How this payer adjudicates a fresh B1 (the default: pays). */
  rule: (body: Record<string, unknown>) => PayerAnswer;
  /** Answers for the next requests, before the rule (a 504 burst, a down window). */
  readonly script: PayerAnswer[];
  /** Payments standing, by content. */
  readonly paid: Map<string, number>;
  /** Every payment made, by content (a rebill after a reversal counts again). */
  readonly payments: Map<string, number>;
  readonly reversals: Map<string, number>;
  readonly requests: Array<{ key: string; body: Record<string, unknown>; replayed: boolean }>;
  /** Answers for a known key are replayed (a vendor's idempotency store). @default true */
  replays: boolean;
}

export const PAID_AMOUNTS = {
  '505-F5': '5.00',
  '506-F6': '10.34',
  '509-F9': '7.34',
  '518-FI': '5.00',
  '572-4U': '0.00',
  '517-FH': '0.00',
};

export function lifecyclePayer(base: string): LifecyclePayer {
  const byKey = new Map<string, { status: number; body: unknown }>();
  const bump = (m: Map<string, number>, k: string, by = 1) => {
    const n = (m.get(k) ?? 0) + by;
    if (n === 0) m.delete(k);
    else m.set(k, n);
  };
  const v: LifecyclePayer = {
    handlers: [],
    rule: () => ({ pay: true }),
    script: [],
    paid: new Map(),
    payments: new Map(),
    reversals: new Map(),
    requests: [],
    replays: true,
  };
  const adjudicate = (body: Record<string, unknown>, answer: PayerAnswer): Record<string, unknown> => {
    const c = contentKey(body);
    if (body['103-A3'] === 'B2') {
      if ('reject' in answer)
        return {
          '112-AN': 'R',
          '511-FB': answer.reject,
          ...(answer.messages ? { '526-FQ': answer.messages } : {}),
        };
      if ((v.paid.get(c) ?? 0) === 0) return { '112-AN': 'R', '511-FB': ['87'], '504-F4': 'NO PAID CLAIM' };
      bump(v.paid, c, -1);
      bump(v.reversals, c);
      return { '112-AN': 'A', '503-F3': `REV-${c.length}` };
    }
    if ((v.paid.get(c) ?? 0) > 0) return { '112-AN': 'D', ...PAID_AMOUNTS };
    if ('reject' in answer)
      return {
        '112-AN': 'R',
        '511-FB': answer.reject,
        ...(answer.messages ? { '526-FQ': answer.messages } : {}),
      };
    bump(v.paid, c);
    bump(v.payments, c);
    return { '112-AN': 'P', '503-F3': 'AUTH1', ...PAID_AMOUNTS, '504-F4': 'PAID' };
  };
  v.handlers.push(
    http.post(`${base}/adjudicate`, async ({ request }) => {
      const key = request.headers.get('idempotency-key') ?? '';
      const body = (await request.json()) as Record<string, unknown>;
      const known = v.replays ? byKey.get(key) : undefined;
      v.requests.push({ key, body, replayed: known !== undefined });
      if (known !== undefined)
        return HttpResponse.json(known.body as object, {
          status: known.status,
          headers: { 'idempotent-replayed': 'true' },
        });
      const answer = v.script.shift() ?? (body['103-A3'] === 'B2' ? { pay: true as const } : v.rule(body));
      if ('down' in answer) return HttpResponse.json({}, { status: 503, headers: { 'retry-after': '0' } });
      if ('notFound' in answer)
        return HttpResponse.json(
          { error: answer.notFound, field: answer.notFound === 'unknown_product' ? '407-D7' : '104-A4' },
          { status: 404 },
        );
      const out = adjudicate(body, answer);
      byKey.set(key, { status: 200, body: out });
      if ('payThenGateway504' in answer)
        return new HttpResponse('<html>504 Gateway Time-out</html>', {
          status: 504,
          headers: { 'content-type': 'text/html' },
        });
      return HttpResponse.json(out);
    }),
  );
  return v;
}
