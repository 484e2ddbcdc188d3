import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isRouterError, RouterConfigError } from './errors.js';
import { MemoryLedger } from './memory-ledger.js';
import { createRouter, type RouterOptions } from './router.js';
import { SECRET } from './test-support/fixtures.js';

const base: RouterOptions = { nodes: [{ name: 'primary', url: 'http://p.test' }], idempotencySecret: SECRET };

describe('createRouter validates its options, naming the bad one', () => {
  const cases: Array<[string, Partial<Record<keyof RouterOptions, unknown>>]> = [
    ['nodes', { nodes: [] }],
    ['nodes', { nodes: [base.nodes[0], base.nodes[0], base.nodes[0]] }],
    ['nodes.0.name', { nodes: [{ name: '', url: 'http://p.test' }] }],
    ['nodes.0.url', { nodes: [{ name: 'p', url: 'not a url' }] }],
    ['nodes.0.url', { nodes: [{ name: 'p', url: 'ftp://p.test/' }] }],
    ['nodes.0.url', { nodes: [{ name: 'p', url: 'file:///etc/passwd' }] }],
    ['nodes.1.name', { nodes: [base.nodes[0], { name: 'primary', url: 'http://q.test' }] }],
    ['idempotencySecret', { idempotencySecret: '' }],
    ['idempotencySecret', { idempotencySecret: 'abc' }],
    ['idempotencySecret', { idempotencySecret: 'x'.repeat(31) }],
    ['lanes.pos.default', { lanes: { batch: { default: 1000 } } }],
    ['lanes.batch.default', { lanes: { pos: { default: 800 }, batch: { default: -1 } } }],
  ];
  for (const [i, [option, override]] of cases.entries()) {
    it(`${option} (case ${i + 1})`, () => {
      assert.throws(
        () =>
          createRouter({
            ledger: new MemoryLedger(),
            ...base,
            ...override,
          } as RouterOptions),
        (e: unknown) => e instanceof RouterConfigError && isRouterError(e) && e.option === option,
      );
    });
  }
});
