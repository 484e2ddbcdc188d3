// Cases written from docs/vendor-contract.md (one per status and verdict) and
// docs/reject-codes.md (the groups), one per row and per group.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createCatalogue } from './catalogue.js';
import { type ClassifyOptions, classify, type ErrorInput, type ResponseInput } from './classify.js';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const paid = { '112-AN': 'P', '505-F5': '5.00', '506-F6': '10.34', '509-F9': '7.34', '503-F3': 'AUTH123' };
const rejected = (...codes: Array<string | number>) => ({ '112-AN': 'R', '511-FB': codes });

interface Case {
  name: string;
  input: ResponseInput | ErrorInput;
  options?: ClassifyOptions;
  // Fields of the verdict to check, plus 'codes', 'groups' and 'mapped' (shorthands).
  expect: Record<string, unknown>;
}

const cases: Case[] = [
  // The verdict table, row by row.
  {
    name: '200 paid',
    input: { status: 200, body: paid },
    expect: { kind: 'adjudicated', breaker: 'success', status112AN: 'P' },
  },
  {
    name: '200 approved',
    input: { status: 200, body: { '112-AN': 'A' } },
    expect: { kind: 'adjudicated', breaker: 'success' },
  },
  {
    name: '200 captured',
    input: { status: 200, body: { '112-AN': 'C' } },
    expect: { kind: 'adjudicated', breaker: 'success' },
  },
  {
    name: 'terminal 70',
    input: { status: 200, body: rejected('70') },
    expect: { kind: 'terminal-reject', breaker: 'success', codes: ['70'], priorAuthRequired: false },
  },
  {
    name: 'terminal 75 marks prior auth',
    input: { status: 200, body: rejected('75') },
    expect: { kind: 'terminal-reject', priorAuthRequired: true },
  },
  {
    name: 'terminal 76',
    input: { status: 200, body: rejected('76') },
    expect: { kind: 'terminal-reject', breaker: 'success' },
  },
  { name: 'terminal 79', input: { status: 200, body: rejected('79') }, expect: { kind: 'terminal-reject' } },
  { name: 'terminal 88', input: { status: 200, body: rejected('88') }, expect: { kind: 'terminal-reject' } },
  {
    name: 'repairable 21',
    input: { status: 200, body: rejected('21') },
    expect: { kind: 'repairable', breaker: 'success', repair: 'product' },
  },
  {
    name: 'duplicate D',
    input: { status: 200, body: { '112-AN': 'D', '509-F9': '7.34' } },
    expect: { kind: 'duplicate', breaker: 'success' },
  },
  { name: 'duplicate Q', input: { status: 200, body: { '112-AN': 'Q' } }, expect: { kind: 'duplicate' } },
  { name: 'duplicate S', input: { status: 200, body: { '112-AN': 'S' } }, expect: { kind: 'duplicate' } },
  {
    name: '429',
    input: { status: 429, headers: { 'retry-after': '3' } },
    expect: { kind: 'throttled', breaker: 'ignore', retryAfterMs: 3000 },
  },
  {
    name: '503 with Retry-After and remaining 0 is a throttle',
    input: {
      status: 503,
      headers: { 'retry-after': '2', 'x-ratelimit-remaining': '0', 'x-ratelimit-limit': '10' },
    },
    expect: { kind: 'throttled', breaker: 'ignore', retryAfterMs: 2000 },
  },
  {
    name: '503 maintenance',
    input: { status: 503, headers: { 'retry-after': '120' } },
    expect: { kind: 'transient', breaker: 'failure', retryAfterMs: 120_000 },
  },
  { name: '503 bare', input: { status: 503 }, expect: { kind: 'transient', breaker: 'failure' } },
  { name: '408', input: { status: 408 }, expect: { kind: 'transient', breaker: 'failure' } },
  { name: '500', input: { status: 500 }, expect: { kind: 'transient', breaker: 'failure' } },
  { name: '502', input: { status: 502 }, expect: { kind: 'transient', breaker: 'failure' } },
  { name: '504', input: { status: 504 }, expect: { kind: 'transient', breaker: 'failure' } },
  {
    name: 'connect failure',
    input: {
      error: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      phase: 'not-sent',
    },
    expect: { kind: 'transient', breaker: 'failure' },
  },
  {
    name: 'host error 92 in a 200',
    input: { status: 200, body: rejected('92') },
    expect: { kind: 'transient', breaker: 'failure' },
  },
  {
    name: 'timeout after send',
    input: { error: Object.assign(new Error('timeout'), { code: 'UND_ERR_HEADERS_TIMEOUT' }), phase: 'sent' },
    expect: { kind: 'ambiguous', breaker: 'failure' },
  },
  {
    name: 'reset after send',
    input: { error: Object.assign(new Error('socket'), { code: 'ECONNRESET' }), phase: 'sent' },
    expect: { kind: 'ambiguous', breaker: 'failure' },
  },
  { name: '401', input: { status: 401 }, expect: { kind: 'auth-expired', breaker: 'ignore' } },
  {
    name: '404 unknown route maps to 04',
    input: { status: 404, body: { error: 'unknown_route', field: '104-A4' } },
    expect: { kind: 'routing-reject', breaker: 'ignore', mapped: '04', field: '104-A4' },
  },
  {
    name: '404 unknown product maps to 70',
    input: { status: 404, body: { error: 'unknown_product', field: '407-D7' } },
    expect: { kind: 'routing-reject', breaker: 'ignore', mapped: '70', field: '407-D7' },
  },
  {
    name: '400 invalid names the field',
    input: { status: 400, body: { error: 'invalid', field: '442-E7' } },
    expect: { kind: 'client-error', breaker: 'ignore', field: '442-E7' },
  },
  { name: '403', input: { status: 403 }, expect: { kind: 'client-error', breaker: 'ignore' } },
  { name: '409', input: { status: 409 }, expect: { kind: 'client-error', breaker: 'ignore' } },

  // Rules beyond the table.
  {
    name: 'a reject code makes a 200 a rejection whatever 112-AN says',
    input: { status: 200, body: { ...paid, '511-FB': ['70'] } },
    expect: { kind: 'terminal-reject' },
  },
  {
    name: 'unknown 112-AN is unknown, never paid',
    input: { status: 200, body: { '112-AN': 'Z' } },
    expect: { kind: 'unknown', breaker: 'success' },
  },
  {
    name: 'F (PA deferred) is not paid',
    input: { status: 200, body: { '112-AN': 'F' } },
    expect: { kind: 'unknown' },
  },
  { name: 'missing 112-AN', input: { status: 200, body: {} }, expect: { kind: 'unknown' } },
  {
    name: 'R with no codes: a person looks',
    input: { status: 200, body: { '112-AN': 'R' } },
    expect: { kind: 'unknown' },
  },
  {
    name: '79 beside a host error suppresses the trip',
    input: { status: 200, body: rejected('92', '79') },
    expect: { kind: 'terminal-reject', breaker: 'success' },
  },
  {
    name: '88 beside a host error suppresses the trip',
    input: { status: 200, body: rejected('90', '88') },
    expect: { kind: 'terminal-reject', breaker: 'success' },
  },
  {
    name: 'host error on an E1 never trips',
    input: { status: 200, body: rejected('95') },
    options: { transactionCode: 'E1' },
    expect: { kind: 'transient', breaker: 'ignore' },
  },
  {
    name: 'unknown code goes to a person, never retried',
    input: { status: 200, body: rejected('*97') },
    expect: { kind: 'unknown', breaker: 'success', groups: ['unknown'] },
  },
  {
    name: '"4" and "04" are one code',
    input: { status: 200, body: rejected('4', '04', 4) },
    expect: { codes: ['04'] },
  },
  {
    name: 'malformed body never throws',
    input: { status: 200, body: '{not json' },
    expect: { kind: 'unknown', reason: 'malformed-body' },
  },
  {
    name: 'body as JSON text',
    input: { status: 200, body: JSON.stringify(paid) },
    expect: { kind: 'adjudicated' },
  },
  {
    name: 'malformed amount is not paid',
    input: { status: 200, body: { '112-AN': 'P', '509-F9': 7.34 } },
    expect: { kind: 'unknown', reason: 'malformed-amount' },
  },
  { name: 'malformed status', input: { status: 42 }, expect: { kind: 'unknown' } },
  {
    name: '404 with no recognisable body is not negative-cached',
    input: { status: 404, body: 'Not Found' },
    expect: { kind: 'client-error' },
  },
  {
    name: 'a breaker refusal is not a vendor failure',
    input: { error: { code: 'RXGATE_BREAKER_OPEN' }, phase: 'not-sent' },
    expect: { kind: 'transient', breaker: 'ignore' },
  },

  // One case per code group of ncpdp-reject-codes.md.
  {
    name: 'group 1 transient host: 98',
    input: { status: 200, body: rejected('98') },
    expect: { kind: 'transient', breaker: 'failure', groups: ['host-transient'] },
  },
  {
    name: 'group 1 planned downtime: 96',
    input: { status: 200, body: rejected('96') },
    expect: { kind: 'transient', breaker: 'failure', reason: 'host-planned-downtime' },
  },
  {
    name: 'group 1b host data: M7',
    input: { status: 200, body: rejected('M7') },
    expect: { kind: 'transient', breaker: 'ignore', retryAfterMs: 1_200_000, groups: ['host-data'] },
  },
  {
    name: 'group 1b NN is ambiguous: a person looks',
    input: { status: 200, body: rejected('NN') },
    expect: { kind: 'unknown' },
  },
  {
    name: 'group 2 product: 77',
    input: { status: 200, body: rejected('77') },
    expect: { kind: 'repairable', repair: 'product' },
  },
  {
    name: 'group 2 routing: 1T',
    input: { status: 200, body: rejected('1T') },
    expect: { kind: 'repairable', repair: 'routing' },
  },
  {
    name: 'group 2 other payer: 41',
    input: { status: 200, body: rejected('41') },
    expect: { kind: 'repairable', repair: 'other-payer' },
  },
  {
    name: 'group 3 submitter-fixable: 07',
    input: { status: 200, body: rejected('07') },
    expect: { kind: 'client-error', breaker: 'success', groups: ['submitter-fix'] },
  },
  {
    name: 'group 3 structural: R8',
    input: { status: 200, body: rejected('R8') },
    expect: { kind: 'client-error' },
  },
  {
    name: 'group 4 terminal: MR',
    input: { status: 200, body: rejected('MR') },
    expect: { kind: 'terminal-reject' },
  },
  {
    name: 'group 4 retry later at most: 3W',
    input: { status: 200, body: rejected('3W') },
    expect: { kind: 'transient', breaker: 'ignore' },
  },
  {
    name: 'group 5 duplicate: 83',
    input: { status: 200, body: rejected('83') },
    expect: { kind: 'duplicate', breaker: 'success' },
  },
  {
    name: 'group 5 reversal: 31',
    input: { status: 200, body: rejected('31') },
    expect: { kind: 'terminal-reject', groups: ['reversal'] },
  },
];

describe('classify: the verdict table and the code groups', () => {
  for (const c of cases) {
    it(c.name, () => {
      const v = classify(c.input, { now: NOW, ...c.options });
      const view = v as unknown as Record<string, unknown>;
      for (const [key, want] of Object.entries(c.expect)) {
        if (key === 'codes')
          assert.deepEqual(
            (v as { rejectCodes?: Array<{ code: string }> }).rejectCodes?.map((r) => r.code),
            want,
          );
        else if (key === 'groups')
          assert.deepEqual(
            (v as { rejectCodes?: Array<{ group: string }> }).rejectCodes?.map((r) => r.group),
            want,
          );
        else if (key === 'mapped') assert.equal(view.mappedRejectCode, want);
        else assert.deepEqual(view[key], want, `${key} of ${JSON.stringify(v)}`);
      }
    });
  }
});

describe('classify: details', () => {
  it('keeps monetary fields as the decimal strings sent', () => {
    const v = classify({ status: 200, body: paid }, { now: NOW });
    assert.equal(v.kind, 'adjudicated');
    assert.deepEqual(v.kind === 'adjudicated' && v.amounts, {
      patientPay: '5.00',
      ingredientCostPaid: '10.34',
      totalPaid: '7.34',
    });
    assert.equal(v.kind === 'adjudicated' && v.authorizationNumber, 'AUTH123');
  });

  it('reads the quota on every status, and marks a 429 throttled', () => {
    const headers = { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '3', 'X-RateLimit-Reset': '2' };
    assert.deepEqual(classify({ status: 200, headers, body: paid }, { now: NOW }).quota, {
      limit: 10,
      remaining: 3,
      resetSeconds: 2,
    });
    assert.deepEqual(classify({ status: 429, headers }, { now: NOW }).quota, {
      limit: 10,
      remaining: 3,
      resetSeconds: 2,
      throttled: true,
    });
    assert.deepEqual(
      classify({ status: 404, headers, body: { error: 'unknown_route', field: '104-A4' } }, { now: NOW })
        .quota?.remaining,
      3,
    );
  });

  it('a 429 with only a reset and nothing remaining waits for the reset', () => {
    const v = classify(
      { status: 429, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '4' } },
      { now: NOW },
    );
    assert.equal(v.retryAfterMs, 4000);
  });

  it('a 429 with an HTTP-date', () => {
    const v = classify(
      { status: 429, headers: { 'retry-after': new Date(NOW + 5000).toUTCString() } },
      { now: NOW },
    );
    assert.equal(v.retryAfterMs, 5000);
  });

  it('payer overrides move a code to another group', () => {
    const catalogue = createCatalogue({ overrides: { '85': { group: 'terminal' } } });
    assert.equal(classify({ status: 200, body: rejected('85') }, { now: NOW }).kind, 'transient');
    assert.equal(
      classify({ status: 200, body: rejected('85') }, { now: NOW, catalogue }).kind,
      'terminal-reject',
    );
  });

  it('headers as a Headers object, pairs or mixed case', () => {
    const h = new Headers({ 'Retry-After': '7' });
    assert.equal(classify({ status: 429, headers: h }, { now: NOW }).retryAfterMs, 7000);
    assert.equal(classify({ status: 429, headers: [['Retry-After', '8']] }, { now: NOW }).retryAfterMs, 8000);
  });
});

describe('classify: the quota signal a limiter takes', () => {
  it('carries Retry-After on a throttle, and not on a maintenance 503 (that wait is the node’s)', () => {
    const throttle = classify(
      { status: 429, headers: { 'retry-after': '3', 'x-ratelimit-remaining': '0' } },
      { now: NOW },
    );
    assert.equal(throttle.quota?.retryAfterMs, 3000);
    const maintenance = classify(
      { status: 503, headers: { 'retry-after': '120', 'x-ratelimit-remaining': '7' } },
      { now: NOW },
    );
    assert.equal(maintenance.retryAfterMs, 120_000);
    assert.deepEqual(maintenance.quota, { remaining: 7 });
    assert.equal(classify({ status: 503, headers: { 'retry-after': '120' } }, { now: NOW }).quota, undefined);
  });
});

describe('the money and messages of a response', () => {
  it('reads copay 518-FI, coinsurance 572-4U, deductible 517-FH as decimal strings, and messages 504-F4 then 526-FQ', () => {
    const v = classify(
      {
        status: 200,
        body: {
          ...paid,
          '518-FI': '3.00',
          '572-4U': '2.00',
          '517-FH': '0.00',
          '504-F4': 'PAID',
          '526-FQ': ['GENERIC AVAILABLE', '  '],
        },
      },
      { now: NOW },
    );
    assert.equal(v.kind, 'adjudicated');
    if (v.kind !== 'adjudicated') return;
    assert.deepEqual(v.amounts, {
      patientPay: '5.00',
      ingredientCostPaid: '10.34',
      totalPaid: '7.34',
      copay: '3.00',
      coinsurance: '2.00',
      deductible: '0.00',
    });
    assert.deepEqual(v.messages, ['PAID', 'GENERIC AVAILABLE']);
  });

  it('a reject keeps its messages; a copay sent as a number is a malformed amount, never paid', () => {
    const r = classify({ status: 200, body: { ...rejected('76'), '526-FQ': 'QTY LIMIT 30' } }, { now: NOW });
    assert.deepEqual(r.kind === 'terminal-reject' && r.messages, ['QTY LIMIT 30']);
    const bad = classify({ status: 200, body: { ...paid, '518-FI': 3 } }, { now: NOW });
    assert.deepEqual([bad.kind, bad.reason], ['unknown', 'malformed-amount']);
  });
});
