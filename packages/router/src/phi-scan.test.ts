// The tests' PHI search (test-support/phi-scan.ts) as a table: what is a leak, what is a
// coincidence of digits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containsPhi } from './test-support/phi-scan.js';

describe('the PHI search of the tests', () => {
  const cases: Array<[string, string, boolean]> = [
    // A date of birth in a virtual timestamp's fraction: the property's one-off false alarm.
    ['{"at":2617721.9200310153,"type":"decision"}', '20031015', false],
    ['{"elapsedMs":120031015}', '20031015', false],
    ['{"n":200310159}', '20031015', false],
    // A date of birth that is there, however it is written down.
    ['{"304-C4":"20031015"}', '20031015', true],
    ['{"dob":20031015}', '20031015', true],
    ['20031015', '20031015', true],
    ['born 20031015.', '20031015', true],
    ['ZQ051233634|20031015|x', '20031015', true],
    ['2617721.9200310153 and then "20031015"', '20031015', true],
    // Values with letters are found anywhere, inside other words included.
    ['{"k":"rx1_abFNGULPVMBQcd"}', 'FNGULPVMBQ', true],
    ['ZQ051233634', 'ZQ051233634', true],
    ['ZQ05123363', 'ZQ051233634', false],
  ];
  for (const [text, value, found] of cases)
    it(`${found ? 'finds' : 'does not find'} ${value} in ${text}`, () => {
      assert.equal(containsPhi(text, value), found);
    });
});
