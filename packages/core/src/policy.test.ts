import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type ExecuteContext, type Policy, wrap } from './policy.js';

// A policy that logs its entry and exit and adds its name to the context's key.
const tracer = (name: string, log: string[]): Policy => ({
  async execute(fn, context = {}) {
    log.push(`>${name}`);
    try {
      return await fn({ ...context, key: `${context.key ?? ''}${name}` });
    } finally {
      log.push(`<${name}`);
    }
  },
});

// The reference, written another way: nest by hand from the innermost out.
const byHand = <T>(
  policies: Policy[],
  fn: (c: ExecuteContext) => Promise<T>,
  ctx: ExecuteContext,
): Promise<T> =>
  policies.reduceRight<(c: ExecuteContext) => Promise<T>>((inner, p) => (c) => p.execute(inner, c), fn)(ctx);

describe('wrap', () => {
  it('runs policies outermost first and hands each the context the one outside left, for any count', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 7 }), async (n) => {
        const names = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));
        const logA: string[] = [];
        const logB: string[] = [];
        const got = await wrap(...names.map((x) => tracer(x, logA))).execute(async (c) => c.key, { key: '' });
        const want = await byHand(
          names.map((x) => tracer(x, logB)),
          async (c) => c.key,
          { key: '' },
        );
        assert.equal(got, want);
        assert.equal(got, names.join(''));
        assert.deepEqual(logA, logB);
      }),
    );
  });

  it('a synchronous throw of fn becomes a rejection, with no policy', async () => {
    await assert.rejects(
      wrap().execute(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
  });

  it('refuses something that is not a policy, naming its place', () => {
    assert.throws(() => wrap({} as Policy), /policies\[0\]/);
  });
});
