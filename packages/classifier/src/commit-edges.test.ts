// commitEvidence (exported) on verdicts classify builds and on ones it does not, by its rule:
// only the processor's own answer is definitive, a refusal before processing is not-processed,
// everything else maybe (docs/vendor-contract.md).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classify } from './classify.js';
import { commitEvidence, type Draft } from './commit.js';

const draft = (kind: string, status: number | undefined, reason = 'x'): Draft =>
  ({ kind, breaker: 'success', reason, ...(status === undefined ? {} : { status }) }) as Draft;

describe('commit evidence of an unknown answer, by status', () => {
  for (const [status, commit] of [
    [undefined, 'maybe'],
    [200.5, 'maybe'],
    [100, 'not-processed'],
    [199, 'not-processed'],
    [200, 'maybe'],
    [201, 'maybe'],
    [299, 'maybe'],
    [300, 'not-processed'],
    [499, 'not-processed'],
    [500, 'maybe'],
    [502, 'maybe'],
    [503, 'not-processed'],
    [599, 'maybe'],
  ] as const)
    it(`${status} → ${commit}`, () => assert.equal(commitEvidence(draft('unknown', status)), commit));

  it('as classify gives it for 1xx, 2xx and 3xx answers', () => {
    assert.equal(classify({ status: 100 }, { now: 0 }).commit, 'not-processed');
    assert.equal(classify({ status: 204 }, { now: 0 }).commit, 'maybe');
    assert.equal(classify({ status: 299 }, { now: 0 }).commit, 'maybe');
    assert.equal(classify({ status: 301 }, { now: 0 }).commit, 'not-processed');
    assert.equal(classify({ status: 99 }, { now: 0 }).commit, 'maybe');
  });
});

describe('commit evidence of the other kinds', () => {
  it('a transient answer: not sent or refused by us is not-processed; 503 and planned downtime too', () => {
    assert.equal(commitEvidence(draft('transient', undefined, 'not-sent')), 'not-processed');
    assert.equal(commitEvidence(draft('transient', undefined, 'refused-locally')), 'not-processed');
    assert.equal(commitEvidence(draft('transient', undefined, 'something else')), 'maybe');
    assert.equal(commitEvidence(draft('transient', 503)), 'not-processed');
    assert.equal(commitEvidence(draft('transient', 200, 'host-planned-downtime')), 'not-processed');
    assert.equal(commitEvidence(draft('transient', 200, 'host-error')), 'maybe');
    assert.equal(commitEvidence(draft('transient', 502, 'host-planned-downtime')), 'maybe');
  });

  it('a client error is definitive only when the processor said it (a 200)', () => {
    assert.equal(commitEvidence(draft('client-error', 200)), 'definitive');
    assert.equal(commitEvidence(draft('client-error', 400)), 'not-processed');
  });

  it('by kind alone', () => {
    for (const kind of ['adjudicated', 'duplicate', 'terminal-reject', 'repairable'])
      assert.equal(commitEvidence(draft(kind, 200)), 'definitive', kind);
    for (const kind of ['throttled', 'auth-expired', 'routing-reject'])
      assert.equal(commitEvidence(draft(kind, 404)), 'not-processed', kind);
    assert.equal(commitEvidence(draft('ambiguous', undefined)), 'maybe');
    assert.equal(commitEvidence(draft('ambiguous', 200)), 'maybe');
  });
});
