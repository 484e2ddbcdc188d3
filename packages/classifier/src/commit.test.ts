// What each answer proves about a commit on the vendor's side, written from the vendor
// contract: only the processor's own answer is definitive; a gateway's 408/500/502/504 may
// come after the processor paid, and a timeout after the request left says nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify, type ErrorInput, type ResponseInput } from './classify.js';

const rejected = (...codes: string[]) => ({ '112-AN': 'R', '511-FB': codes });
const rows: Array<[name: string, input: ResponseInput | ErrorInput, commit: string]> = [
  ['200 paid', { status: 200, body: { '112-AN': 'P', '509-F9': '1.00' } }, 'definitive'],
  ['200 duplicate of paid', { status: 200, body: { '112-AN': 'D' } }, 'definitive'],
  ['200 rejected 76', { status: 200, body: rejected('76') }, 'definitive'],
  ['200 rejected 21 (repairable)', { status: 200, body: rejected('21') }, 'definitive'],
  ['200 rejected 07 (submitter fix)', { status: 200, body: rejected('07') }, 'definitive'],
  ['200 host error 95', { status: 200, body: rejected('95') }, 'maybe'],
  ['200 host error 90', { status: 200, body: rejected('90') }, 'maybe'],
  ['200 host processing error 99', { status: 200, body: rejected('99') }, 'maybe'],
  ['200 planned downtime 93', { status: 200, body: rejected('93') }, 'not-processed'],
  ['200 unreadable body', { status: 200, body: '{"112-AN": "P", "509-F9": 12' }, 'maybe'],
  ['200 unknown 112-AN', { status: 200, body: { '112-AN': 'Z' } }, 'maybe'],
  ['408', { status: 408, body: '' }, 'maybe'],
  ['500', { status: 500, body: '' }, 'maybe'],
  ['502 from a gateway', { status: 502, body: '<html>Bad Gateway</html>' }, 'maybe'],
  ['504 from a gateway', { status: 504, body: '<html>Gateway Timeout</html>' }, 'maybe'],
  ['503 maintenance', { status: 503, headers: { 'retry-after': '120' }, body: '' }, 'not-processed'],
  ['429', { status: 429, headers: { 'retry-after': '1' }, body: '' }, 'not-processed'],
  ['401', { status: 401, body: '' }, 'not-processed'],
  ['404 unknown route', { status: 404, body: { error: 'unknown_route', field: '104-A4' } }, 'not-processed'],
  ['400 invalid', { status: 400, body: { error: 'invalid', field: '407-D7' } }, 'not-processed'],
  ['418', { status: 418, body: '' }, 'not-processed'],
  ['connect refused', { error: { code: 'ECONNREFUSED' }, phase: 'not-sent' }, 'not-processed'],
  ['reset after send', { error: { code: 'ECONNRESET' }, phase: 'sent' }, 'maybe'],
  ['timeout after send', { error: { code: 'UND_ERR_HEADERS_TIMEOUT' }, phase: 'sent' }, 'maybe'],
  ['our own limiter refused', { error: { code: 'RXGATE_DEADLINE' }, phase: 'not-sent' }, 'not-processed'],
  ['garbage input', null as unknown as ResponseInput, 'maybe'],
];

describe('commit evidence', () => {
  for (const [name, input, commit] of rows)
    it(`${name} → ${commit}`, () => assert.equal(classify(input, { now: 0 }).commit, commit));
});
