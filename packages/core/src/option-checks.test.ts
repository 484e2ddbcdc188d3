import assert from 'node:assert/strict';
import { it } from 'node:test';
import { optionChecks } from './option-checks.js';

class Bad extends Error {
  constructor(
    readonly option: string,
    problem: string,
  ) {
    super(`${option}: ${problem}`);
  }
}
const c = optionChecks((o, p) => new Bad(o, p));
const rejects = (f: () => unknown, option: string) =>
  assert.throws(f, (e: unknown) => e instanceof Bad && e.option === option);

it('each check passes what it names and throws the package error naming the field otherwise', () => {
  assert.equal(c.positiveInt('n', 3), 3);
  for (const v of [0, 1.5, -1, '3', Number.NaN]) rejects(() => c.positiveInt('n', v), 'n');
  assert.equal(c.positive('p', 0.1), 0.1);
  for (const v of [0, -1, Number.POSITIVE_INFINITY, null]) rejects(() => c.positive('p', v), 'p');
  assert.equal(c.nonNegative('z', 0), 0);
  rejects(() => c.nonNegative('z', -0.1), 'z');
  assert.equal(c.rate('r', 1), 1);
  for (const v of [0, 1.1]) rejects(() => c.rate('r', v), 'r');
  assert.equal(c.inRange('s', 0, 0, 1), 0);
  rejects(() => c.inRange('s', 0, 0, 1, true), 's');
  assert.equal(c.optionalTime('t', undefined), undefined);
  assert.equal(c.optionalTime('t', -5), -5);
  rejects(() => c.optionalTime('t', Number.NaN), 't');
  assert.throws(() => c.positive('p', 'x'), /got "x"/);
});
