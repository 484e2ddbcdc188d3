// Whole verdicts, field by field, for the answers the README's table and the vendor contract
// describe, at their edges: every status range, each reject-code group and their precedence,
// amounts that are and are not decimals, bodies as text, bytes or junk, quota headers on each
// kind of answer, transport failures before and after sending. Each expected verdict is written
// out by hand from the docs (reject codes from the catalogue's own table), not from the code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultCatalogue } from './catalogue.js';
import { type ClassifyOptions, classify, type ErrorInput, type ResponseInput } from './classify.js';
import type { Verdict } from './verdict.js';

const NOW = Date.UTC(2026, 10, 30, 12, 0, 0);
const info = (...codes: string[]) => codes.map((c) => defaultCatalogue.lookup(c)!);
const coded = (an: string, ...codes: string[]) => ({
  rejectCodes: info(...codes),
  priorAuthRequired: codes.includes('75'),
  status112AN: an,
});

type Row = [name: string, input: ResponseInput | ErrorInput, expected: Verdict, options?: ClassifyOptions];
const rows: Row[] = [
  // Transport failures.
  [
    'reset after sending',
    { error: { code: 'ECONNRESET' }, phase: 'sent' },
    {
      kind: 'ambiguous',
      breaker: 'failure',
      reason: 'no-answer-after-send',
      error: 'ECONNRESET',
      commit: 'maybe',
    },
  ],
  [
    'a timeout after sending, no code',
    { error: new Error('timeout'), phase: 'sent' },
    { kind: 'ambiguous', breaker: 'failure', reason: 'no-answer-after-send', commit: 'maybe' },
  ],
  [
    'an absurdly long error code is left out',
    { error: { code: 'E'.repeat(65) }, phase: 'sent' },
    { kind: 'ambiguous', breaker: 'failure', reason: 'no-answer-after-send', commit: 'maybe' },
  ],
  [
    'a 64-character code is kept',
    { error: { code: 'E'.repeat(64) }, phase: 'sent' },
    {
      kind: 'ambiguous',
      breaker: 'failure',
      reason: 'no-answer-after-send',
      error: 'E'.repeat(64),
      commit: 'maybe',
    },
  ],
  [
    'a numeric code is no code',
    { error: { code: 42 }, phase: 'sent' },
    { kind: 'ambiguous', breaker: 'failure', reason: 'no-answer-after-send', commit: 'maybe' },
  ],
  [
    'connection refused',
    { error: { code: 'ECONNREFUSED' }, phase: 'not-sent' },
    { kind: 'transient', breaker: 'failure', reason: 'not-sent', commit: 'not-processed' },
  ],
  [
    'a null error before sending',
    { error: null, phase: 'not-sent' },
    { kind: 'transient', breaker: 'failure', reason: 'not-sent', commit: 'not-processed' },
  ],
  [
    'our own limiter refused',
    { error: { code: 'RXGATE_LIMITER_QUEUE_FULL' }, phase: 'not-sent' },
    { kind: 'transient', breaker: 'ignore', reason: 'refused-locally', commit: 'not-processed' },
  ],
  [
    'our own abort',
    { error: new DOMException('stop', 'AbortError'), phase: 'not-sent' },
    { kind: 'transient', breaker: 'ignore', reason: 'refused-locally', commit: 'not-processed' },
  ],
  [
    'a code that only contains RXGATE_',
    { error: { code: 'X_RXGATE_Y', name: 'Abort' }, phase: 'not-sent' },
    { kind: 'transient', breaker: 'failure', reason: 'not-sent', commit: 'not-processed' },
  ],
  // Statuses out of range.
  ...[99, 600, 200.5, Number.NaN].map(
    (status): Row => [
      `status ${status}`,
      { status },
      { kind: 'unknown', breaker: 'success', reason: 'malformed-status', commit: 'maybe' },
    ],
  ),
  [
    'a status as a string',
    { status: '200' as unknown as number },
    { kind: 'unknown', breaker: 'success', reason: 'malformed-status', commit: 'maybe' },
  ],
  // Informational and redirects: unknown, nothing processed.
  [
    '100',
    { status: 100 },
    { kind: 'unknown', breaker: 'success', reason: 'http-100', status: 100, commit: 'not-processed' },
  ],
  [
    '302',
    { status: 302 },
    { kind: 'unknown', breaker: 'success', reason: 'http-302', status: 302, commit: 'not-processed' },
  ],
  [
    '204',
    { status: 204 },
    { kind: 'unknown', breaker: 'success', reason: 'http-204', status: 204, commit: 'maybe' },
  ],
  // Server errors: a gateway's may come after the processor paid.
  [
    '408',
    { status: 408 },
    { kind: 'transient', breaker: 'failure', reason: 'http-408', status: 408, commit: 'maybe' },
  ],
  [
    '500',
    { status: 500 },
    { kind: 'transient', breaker: 'failure', reason: 'http-500', status: 500, commit: 'maybe' },
  ],
  [
    '599',
    { status: 599 },
    { kind: 'transient', breaker: 'failure', reason: 'http-599', status: 599, commit: 'maybe' },
  ],
  [
    '504 with Retry-After: the wait is the verdict’s, not a quota',
    { status: 504, headers: { 'retry-after': '30' } },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'http-504',
      status: 504,
      retryAfterMs: 30_000,
      commit: 'maybe',
    },
  ],
  [
    '503 maintenance',
    { status: 503, headers: { 'retry-after': '120' } },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'http-503',
      status: 503,
      retryAfterMs: 120_000,
      commit: 'not-processed',
    },
  ],
  [
    '503 with Retry-After and nothing remaining: a throttle',
    { status: 503, headers: { 'retry-after': '2', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '0' } },
    {
      kind: 'throttled',
      breaker: 'ignore',
      reason: 'http-503-throttle',
      status: 503,
      quota: { limit: 10, remaining: 0, retryAfterMs: 2000, throttled: true },
      retryAfterMs: 2000,
      commit: 'not-processed',
    },
  ],
  [
    '503 with quota left and a Retry-After: maintenance, the quota without the wait',
    {
      status: 503,
      headers: { 'retry-after': '60', 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '4' },
    },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'http-503',
      status: 503,
      retryAfterMs: 60_000,
      quota: { limit: 10, remaining: 4 },
      commit: 'not-processed',
    },
  ],
  [
    '503 with nothing remaining but no Retry-After: not a throttle',
    { status: 503, headers: { 'x-ratelimit-remaining': '0' } },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'http-503',
      status: 503,
      quota: { remaining: 0 },
      commit: 'not-processed',
    },
  ],
  // Throttles.
  [
    'bare 429',
    { status: 429 },
    {
      kind: 'throttled',
      breaker: 'ignore',
      reason: 'http-429',
      status: 429,
      quota: { throttled: true },
      commit: 'not-processed',
    },
  ],
  [
    '429 with nothing remaining until a reset in 5 s',
    {
      status: 429,
      headers: { 'X-RateLimit-Limit': '20', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': '5' },
    },
    {
      kind: 'throttled',
      breaker: 'ignore',
      reason: 'http-429',
      status: 429,
      quota: { limit: 20, remaining: 0, resetSeconds: 5, throttled: true },
      retryAfterMs: 5000,
      commit: 'not-processed',
    },
  ],
  [
    '429 with quota left and a reset: no wait is made up',
    { status: 429, headers: { 'x-ratelimit-remaining': '3', 'x-ratelimit-reset': '5' } },
    {
      kind: 'throttled',
      breaker: 'ignore',
      reason: 'http-429',
      status: 429,
      quota: { remaining: 3, resetSeconds: 5, throttled: true },
      commit: 'not-processed',
    },
  ],
  // Refusals before processing.
  [
    '401',
    { status: 401 },
    { kind: 'auth-expired', breaker: 'ignore', reason: 'http-401', status: 401, commit: 'not-processed' },
  ],
  [
    '404 unknown product',
    { status: 404, body: { error: 'unknown_product' } },
    {
      kind: 'routing-reject',
      breaker: 'ignore',
      reason: 'unknown-product',
      status: 404,
      mappedRejectCode: '70',
      field: '407-D7',
      commit: 'not-processed',
    },
  ],
  [
    '404 naming the product field, as text',
    { status: 404, body: '{"field":"407-D7"}' },
    {
      kind: 'routing-reject',
      breaker: 'ignore',
      reason: 'unknown-product',
      status: 404,
      mappedRejectCode: '70',
      field: '407-D7',
      commit: 'not-processed',
    },
  ],
  [
    '404 unknown route',
    { status: 404, body: { error: 'unknown_route' } },
    {
      kind: 'routing-reject',
      breaker: 'ignore',
      reason: 'unknown-route',
      status: 404,
      mappedRejectCode: '04',
      field: '104-A4',
      commit: 'not-processed',
    },
  ],
  [
    '404 naming the BIN',
    { status: 404, body: { field: '101-A1' } },
    {
      kind: 'routing-reject',
      breaker: 'ignore',
      reason: 'unknown-route',
      status: 404,
      mappedRejectCode: '04',
      field: '101-A1',
      commit: 'not-processed',
    },
  ],
  [
    '404 naming the PCN',
    { status: 404, body: { field: '104-A4' } },
    {
      kind: 'routing-reject',
      breaker: 'ignore',
      reason: 'unknown-route',
      status: 404,
      mappedRejectCode: '04',
      field: '104-A4',
      commit: 'not-processed',
    },
  ],
  [
    '404 naming nothing we know: a person looks',
    { status: 404, body: { error: 'not_found', field: '999-ZZ' } },
    {
      kind: 'client-error',
      breaker: 'ignore',
      reason: 'http-404-unrecognised',
      status: 404,
      commit: 'not-processed',
    },
  ],
  [
    '404 with a field that is no string',
    { status: 404, body: { field: 407 } },
    {
      kind: 'client-error',
      breaker: 'ignore',
      reason: 'http-404-unrecognised',
      status: 404,
      commit: 'not-processed',
    },
  ],
  [
    '400 naming its field',
    { status: 400, body: { error: 'invalid', field: '407-D7' } },
    {
      kind: 'client-error',
      breaker: 'ignore',
      reason: 'http-400',
      status: 400,
      field: '407-D7',
      commit: 'not-processed',
    },
  ],
  [
    '422 naming a 16-character field',
    { status: 422, body: { field: 'x'.repeat(16) } },
    {
      kind: 'client-error',
      breaker: 'ignore',
      reason: 'http-422',
      status: 422,
      field: 'x'.repeat(16),
      commit: 'not-processed',
    },
  ],
  [
    '400 with a 17-character field: left out',
    { status: 400, body: { field: 'x'.repeat(17) } },
    { kind: 'client-error', breaker: 'ignore', reason: 'http-400', status: 400, commit: 'not-processed' },
  ],
  [
    '499 with an empty field',
    { status: 499, body: { field: '' } },
    { kind: 'client-error', breaker: 'ignore', reason: 'http-499', status: 499, commit: 'not-processed' },
  ],
  // 200 bodies that are not an answer.
  ...(
    [
      ['no body', undefined],
      ['null', null],
      ['an array', [{ '112-AN': 'P' }]],
      ['a number', 7],
      ['cut-off JSON text', '{"112-AN": "P", '],
      ['JSON text of an array', '[1]'],
      ['bytes that are not UTF-8', new Uint8Array([0xff, 0xfe, 0x7b])],
      ['UTF-8 bytes that are not JSON', new TextEncoder().encode('<html>')],
      ['text over a megabyte', `{"112-AN":"P","x":"${'a'.repeat(1_000_000)}"}`],
    ] as const
  ).map(
    ([name, body]): Row => [
      `200 with ${name}`,
      { status: 200, body },
      { kind: 'unknown', breaker: 'success', reason: 'malformed-body', status: 200, commit: 'maybe' },
    ],
  ),
  // Paid, approved, captured: amounts as the decimal strings sent.
  [
    'paid, as JSON bytes, with an authorization number',
    {
      status: 200,
      body: new TextEncoder().encode(
        '{"112-AN":"P","505-F5":"5.00","506-F6":"12.25","509-F9":"7.25","503-F3":"AUTH9"}',
      ),
    },
    {
      kind: 'adjudicated',
      breaker: 'success',
      reason: 'paid',
      status: 200,
      status112AN: 'P',
      amounts: { patientPay: '5.00', ingredientCostPaid: '12.25', totalPaid: '7.25' },
      rejectCodes: [],
      priorAuthRequired: false,
      authorizationNumber: 'AUTH9',
      commit: 'definitive',
    },
  ],
  [
    'approved, lower case and padded, a negative amount, a null one skipped',
    { status: 200, body: { '112-AN': ' a ', '509-F9': '-1.5', '505-F5': null } },
    {
      kind: 'adjudicated',
      breaker: 'success',
      reason: 'approved',
      status: 200,
      status112AN: 'A',
      amounts: { totalPaid: '-1.5' },
      rejectCodes: [],
      priorAuthRequired: false,
      commit: 'definitive',
    },
  ],
  [
    'captured, 15 digits and 6 decimals',
    { status: 200, body: { '112-AN': 'C', '509-F9': '123456789012345.123456', '503-F3': 7 } },
    {
      kind: 'adjudicated',
      breaker: 'success',
      reason: 'captured',
      status: 200,
      status112AN: 'C',
      amounts: { totalPaid: '123456789012345.123456' },
      rejectCodes: [],
      priorAuthRequired: false,
      commit: 'definitive',
    },
  ],
  ...(
    ['1234567890123456', '1.1234567', '.5', '5.', '-', '', '1e3', '1.2.3', '12a', ' 1', '--1'] as const
  ).map(
    (amount): Row => [
      `paid with amount ${JSON.stringify(amount)}: not a decimal`,
      { status: 200, body: { '112-AN': 'P', '509-F9': amount } },
      {
        kind: 'unknown',
        breaker: 'success',
        reason: 'malformed-amount',
        status: 200,
        rejectCodes: [],
        priorAuthRequired: false,
        status112AN: 'P',
        commit: 'maybe',
      },
    ],
  ),
  [
    'paid with an amount as a number',
    { status: 200, body: { '112-AN': 'P', '506-F6': 7.34 } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'malformed-amount',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'P',
      commit: 'maybe',
    },
  ],
  // Duplicates of a paid claim.
  [
    'duplicate D with its amounts and authorization',
    { status: 200, body: { '112-AN': 'D', '509-F9': '7.25', '503-F3': 'A1' } },
    {
      kind: 'duplicate',
      breaker: 'success',
      reason: 'duplicate-D',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'D',
      amounts: { totalPaid: '7.25' },
      authorizationNumber: 'A1',
      commit: 'definitive',
    },
  ],
  [
    'duplicate Q with a bad amount: amounts empty',
    { status: 200, body: { '112-AN': 'Q', '509-F9': 'x' } },
    {
      kind: 'duplicate',
      breaker: 'success',
      reason: 'duplicate-Q',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'Q',
      amounts: {},
      commit: 'definitive',
    },
  ],
  [
    'duplicate S',
    { status: 200, body: { '112-AN': 'S' } },
    {
      kind: 'duplicate',
      breaker: 'success',
      reason: 'duplicate-S',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'S',
      amounts: {},
      commit: 'definitive',
    },
  ],
  // Without codes.
  [
    'rejected with no code',
    { status: 200, body: { '112-AN': 'R' } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'rejected-without-codes',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'R',
      commit: 'maybe',
    },
  ],
  [
    'an unknown 112-AN',
    { status: 200, body: { '112-AN': 'F', '511-FB': null } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'unknown-112-AN',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      status112AN: 'F',
      commit: 'maybe',
    },
  ],
  [
    'no 112-AN (a number is none)',
    { status: 200, body: { '112-AN': 1 } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'missing-112-AN',
      status: 200,
      rejectCodes: [],
      priorAuthRequired: false,
      commit: 'maybe',
    },
  ],
  // Reject codes by group, and their precedence.
  [
    '75: prior authorization required',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['75'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'prior-auth-required',
      status: 200,
      ...coded('R', '75'),
      commit: 'definitive',
    },
  ],
  [
    '76 as a lone string, not a list',
    { status: 200, body: { '112-AN': 'R', '511-FB': '76' } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '76'),
      commit: 'definitive',
    },
  ],
  [
    'the same code twice is listed once',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['76', ' 76'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '76'),
      commit: 'definitive',
    },
  ],
  [
    'a reversal reject is terminal',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['87'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '87'),
      commit: 'definitive',
    },
  ],
  [
    'a code that cannot be one',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['76', 'TOO-LONG'] } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'malformed-reject-codes',
      status: 200,
      ...coded('R', '76'),
      commit: 'maybe',
    },
  ],
  [
    'host time out 95',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['95'] } },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'host-error',
      status: 200,
      ...coded('R', '95'),
      commit: 'maybe',
    },
  ],
  [
    'host time out on an E1 eligibility check: never trips',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['92'] } },
    {
      kind: 'transient',
      breaker: 'ignore',
      reason: 'host-error',
      status: 200,
      ...coded('R', '92'),
      commit: 'maybe',
    },
    { transactionCode: 'E1' },
  ],
  [
    'planned downtime 96',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['96'] } },
    {
      kind: 'transient',
      breaker: 'failure',
      reason: 'host-planned-downtime',
      status: 200,
      ...coded('R', '96'),
      commit: 'not-processed',
    },
  ],
  [
    'host error with a clinical 79 (refill too soon): the clinical reject stands',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['95', '79'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '95', '79'),
      commit: 'definitive',
    },
  ],
  [
    'planned downtime with a clinical 88',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['88', '93'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '88', '93'),
      commit: 'definitive',
    },
  ],
  [
    '83: a duplicate of a paid claim',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['83', '76'] } },
    {
      kind: 'duplicate',
      breaker: 'success',
      reason: 'duplicate-83',
      status: 200,
      ...coded('R', '83', '76'),
      amounts: {},
      commit: 'definitive',
    },
  ],
  [
    'submitter-fixable 02',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['02'] } },
    {
      kind: 'client-error',
      breaker: 'success',
      reason: 'submitter-fixable',
      status: 200,
      ...coded('R', '02'),
      commit: 'definitive',
    },
  ],
  [
    'a terminal code wins over a submitter fix',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['02', '76'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('R', '02', '76'),
      commit: 'definitive',
    },
  ],
  [
    'rejected at a switch (NN)',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['NN'] } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'unknown-reject-code',
      status: 200,
      ...coded('R', 'NN'),
      commit: 'maybe',
    },
  ],
  [
    'a code no catalogue knows',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['Z9'] } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'unknown-reject-code',
      status: 200,
      ...coded('R', 'Z9'),
      commit: 'maybe',
    },
  ],
  [
    'an unknown code wins over a repair',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['21', 'Z9'] } },
    {
      kind: 'unknown',
      breaker: 'success',
      reason: 'unknown-reject-code',
      status: 200,
      ...coded('R', '21', 'Z9'),
      commit: 'maybe',
    },
  ],
  [
    '21: repair the product',
    { status: 200, body: { '112-AN': 'R', '511-FB': [21] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-product',
      status: 200,
      repair: 'product',
      ...coded('R', '21'),
      commit: 'definitive',
    },
  ],
  [
    '04 (as "4"): repair the routing',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['4'] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-routing',
      status: 200,
      repair: 'routing',
      ...coded('R', '04'),
      commit: 'definitive',
    },
  ],
  [
    'a product repair goes before a routing one',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['04', '21'] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-product',
      status: 200,
      repair: 'product',
      ...coded('R', '04', '21'),
      commit: 'definitive',
    },
  ],
  [
    '41: bill another payer',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['41'] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'other-payer',
      status: 200,
      repair: 'other-payer',
      ...coded('R', '41'),
      commit: 'definitive',
    },
  ],
  [
    'a routing repair goes before another payer',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['41', '06'] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'repair-routing',
      status: 200,
      repair: 'routing',
      ...coded('R', '41', '06'),
      commit: 'definitive',
    },
  ],
  [
    'host data fault 99: come back in 20 minutes',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['99'] } },
    {
      kind: 'transient',
      breaker: 'ignore',
      reason: 'host-data-fault',
      status: 200,
      retryAfterMs: 1_200_000,
      ...coded('R', '99'),
      commit: 'maybe',
    },
  ],
  [
    '3W prior authorization in process, with a configured deferral',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['3W'] } },
    {
      kind: 'transient',
      breaker: 'ignore',
      reason: 'retry-later',
      status: 200,
      retryAfterMs: 60_000,
      ...coded('R', '3W'),
      commit: 'maybe',
    },
    { deferredRetryMs: 60_000 },
  ],
  [
    'another payer goes before a host data fault',
    { status: 200, body: { '112-AN': 'R', '511-FB': ['M7', '41'] } },
    {
      kind: 'repairable',
      breaker: 'success',
      reason: 'other-payer',
      status: 200,
      repair: 'other-payer',
      ...coded('R', 'M7', '41'),
      commit: 'definitive',
    },
  ],
  [
    'codes on a paid answer decide it',
    { status: 200, body: { '112-AN': 'P', '509-F9': '1.00', '511-FB': ['76'] } },
    {
      kind: 'terminal-reject',
      breaker: 'success',
      reason: 'rejected',
      status: 200,
      ...coded('P', '76'),
      commit: 'definitive',
    },
  ],
  [
    'a paid answer carries its quota headers',
    { status: 200, body: { '112-AN': 'P' }, headers: [['X-RateLimit-Remaining', '9']] },
    {
      kind: 'adjudicated',
      breaker: 'success',
      reason: 'paid',
      status: 200,
      status112AN: 'P',
      amounts: {},
      rejectCodes: [],
      priorAuthRequired: false,
      quota: { remaining: 9 },
      commit: 'definitive',
    },
  ],
  [
    'a paid answer with only a Retry-After: no quota',
    { status: 200, body: { '112-AN': 'P' }, headers: { 'retry-after': '3' } },
    {
      kind: 'adjudicated',
      breaker: 'success',
      reason: 'paid',
      status: 200,
      status112AN: 'P',
      amounts: {},
      rejectCodes: [],
      priorAuthRequired: false,
      commit: 'definitive',
    },
  ],
];

describe('classify: whole verdicts', () => {
  for (const [name, input, expected, options] of rows)
    it(name, () => assert.deepEqual(classify(input, { now: NOW, ...options }), expected));

  it('a Headers object is read case-insensitively; a throwing one is no header', () => {
    const h = new Headers({ 'Retry-After': '7' });
    assert.equal(classify({ status: 429, headers: h }, { now: NOW }).retryAfterMs, 7000);
    const broken = {
      get() {
        throw new Error('x');
      },
    };
    assert.deepEqual(classify({ status: 429, headers: broken }, { now: NOW }).quota, { throttled: true });
  });

  it('header values as arrays and numbers', () => {
    const v = classify(
      { status: 429, headers: { 'x-ratelimit-remaining': 0, 'x-ratelimit-reset': ['5'], 'retry-after': [] } },
      { now: NOW },
    );
    assert.deepEqual(v.quota, { remaining: 0, resetSeconds: 5, throttled: true });
    assert.equal(v.retryAfterMs, 5000);
  });

  it('header pairs with a malformed pair among them', () => {
    const headers = [['x-ratelimit-limit', '10'], ['broken'], ['retry-after', '1']] as unknown as [
      string,
      string,
    ][];
    const v = classify({ status: 429, headers }, { now: NOW });
    assert.deepEqual(v.quota, { limit: 10, retryAfterMs: 1000, throttled: true });
  });

  it('input that is no answer at all is unknown, never a throw', () => {
    for (const input of [null, undefined, 5, 'x', {}]) {
      const v = classify(input as unknown as ResponseInput);
      assert.equal(v.kind, 'unknown', String(input));
      assert.equal(v.commit, 'maybe');
    }
  });
});
