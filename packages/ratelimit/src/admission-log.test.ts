import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ADMISSIONS_KEPT, AdmissionLog } from './admission-log.js';

describe('AdmissionLog', () => {
  it('counts the admissions at or after a time, the one at that very time included', () => {
    const log = new AdmissionLog(0);
    for (const t of [10, 20, 20, 30]) log.record(t);
    assert.equal(log.since(0), 4);
    assert.equal(log.since(20), 3);
    assert.equal(log.since(21), 1);
    assert.equal(log.since(31), 0);
  });

  it('says nothing of a time before it began, or before the oldest it kept', () => {
    const log = new AdmissionLog(100);
    log.record(100);
    assert.equal(log.since(99), undefined);
    for (let i = 1; i <= ADMISSIONS_KEPT; i++) log.record(100 + i);
    assert.equal(log.since(100), undefined);
    assert.equal(log.since(100.5), ADMISSIONS_KEPT);
  });

  it('property: the same count as a plain filter over every admission since it began', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { maxLength: 1200 }),
        fc.array(fc.integer({ min: -10, max: 4000 }), { minLength: 1, maxLength: 20 }),
        (gaps, queries) => {
          const log = new AdmissionLog(0);
          const all: number[] = [];
          let t = 0;
          for (const g of gaps) {
            t += g;
            all.push(t);
            log.record(t);
          }
          // What the log keeps: the last ADMISSIONS_KEPT; once it dropped some, it reaches back
          // to just after the last one dropped, else to its start.
          const dropped = all.length > ADMISSIONS_KEPT ? all[all.length - ADMISSIONS_KEPT - 1]! : undefined;
          for (const q of queries) {
            const reaches = dropped === undefined ? q >= 0 : q > dropped;
            const want = reaches ? all.filter((a) => a >= q).length : undefined;
            assert.equal(log.since(q), want, `since ${q}`);
          }
        },
      ),
    );
  });
});
