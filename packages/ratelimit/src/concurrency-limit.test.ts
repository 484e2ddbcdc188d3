import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { VirtualClock } from '@rxgate/testkit';
import { ConcurrencyLimit } from './concurrency-limit.js';
import { isAcquireAbortedError, isDeadlineExceededError, isInvalidOptionError } from './errors.js';

describe('ConcurrencyLimit', () => {
  it('holds at most n and hands slots over in FIFO order', async () => {
    const cap = new ConcurrencyLimit(2);
    const a = await cap.acquire();
    const b = await cap.acquire();
    assert.equal(cap.tryAcquire(), undefined);
    const order: string[] = [];
    const c = cap.acquire().then((p) => {
      order.push('c');
      return p;
    });
    const d = cap.acquire().then((p) => {
      order.push('d');
      return p;
    });
    a.release();
    await c;
    assert.equal(cap.active, 2);
    b.release();
    await d;
    assert.deepEqual(order, ['c', 'd']);
  });

  it('a double release leaves the count exact', async () => {
    const cap = new ConcurrencyLimit(1);
    const p = await cap.acquire();
    p.release();
    p.release();
    assert.equal(cap.active, 0);
    const q = cap.tryAcquire();
    assert.ok(q);
    assert.equal(cap.tryAcquire(), undefined, 'the second release did not free a phantom slot');
    q.release();
  });

  it('run releases in finally, also on a throw', async () => {
    const cap = new ConcurrencyLimit(1);
    await assert.rejects(
      cap.run(() => {
        throw new Error('boom');
      }),
      /boom/,
    );
    assert.equal(cap.active, 0);
    assert.equal(await cap.run(async () => 42), 42);
    assert.equal(cap.active, 0);
  });

  it('an abort while queued leaves no trace', async () => {
    const cap = new ConcurrencyLimit(1);
    const held = await cap.acquire();
    const ac = new AbortController();
    const queued = cap.acquire({ signal: ac.signal });
    ac.abort();
    await assert.rejects(queued, isAcquireAbortedError);
    assert.equal(cap.waiting, 0);
    held.release();
    assert.equal(cap.active, 0);
  });

  it('supports using declarations through Symbol.dispose', async () => {
    const cap = new ConcurrencyLimit(1);
    {
      const permit = await cap.acquire();
      permit[Symbol.dispose]();
    }
    assert.equal(cap.active, 0);
  });

  it('a deadline rejects at that time when no slot came free', async () => {
    const clock = new VirtualClock();
    const cap = new ConcurrencyLimit(1, { clock });
    const held = await cap.acquire();
    const rejected = assert.rejects(cap.acquire({ deadline: 300 }), isDeadlineExceededError);
    await clock.advance(299);
    assert.equal(cap.waiting, 1);
    await clock.advance(1);
    await rejected;
    held.release();
    assert.equal(cap.active, 0);
  });

  it('validates the limit', () => {
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => new ConcurrencyLimit(bad),
        (e) => isInvalidOptionError(e) && e.option === 'limit',
      );
    }
  });
});
