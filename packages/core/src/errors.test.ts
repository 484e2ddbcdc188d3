import assert from 'node:assert/strict';
import { it } from 'node:test';
import { brand, errorGuard, isRxgateError, RxgateError } from './errors.js';

const BRAND = Symbol.for('@rxgate/example/error');
class ExampleError extends RxgateError<'RXGATE_EXAMPLE_A' | 'RXGATE_EXAMPLE_B'> {
  constructor(code: 'RXGATE_EXAMPLE_A' | 'RXGATE_EXAMPLE_B') {
    super(code, 'example');
    brand(this, BRAND);
  }
}
const isA = errorGuard<ExampleError>(BRAND, 'RXGATE_EXAMPLE_A');
const isExample = errorGuard<ExampleError>(BRAND);

it('guards test brand and code, not the class (a copy from a duplicate install passes)', () => {
  const a = new ExampleError('RXGATE_EXAMPLE_A');
  assert.equal(isRxgateError(a), true);
  assert.equal(isA(a), true);
  assert.equal(isA(new ExampleError('RXGATE_EXAMPLE_B')), false);
  assert.equal(isExample(new ExampleError('RXGATE_EXAMPLE_B')), true);
  const copy = Object.assign(new Error('x'), { code: 'RXGATE_EXAMPLE_A' });
  Object.defineProperty(copy, BRAND, { value: true });
  assert.equal(isA(copy), true);
  assert.equal(isA(Object.assign(new Error('x'), { code: 'RXGATE_EXAMPLE_A' })), false);
  assert.equal(isRxgateError(null), false);
});
