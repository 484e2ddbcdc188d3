import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MemoryStore } from './store.js';

describe('MemoryStore', () => {
  it("a vendor window's reset gives back what the configured rate allows, not a whole burst", async () => {
    const store = new MemoryStore();
    const level = { id: 'k', ratePerSecond: 1, burst: 3 };
    assert.equal(await store.take([level], 1, 0), 0);
    // The vendor says none remain: hold nothing until its reset.
    await store.adjust(level, { capTokens: 0 }, 0);
    assert.equal((await store.snapshot(level, 0)).tokens, 0);
    // Its window resets half a second later: the configured bucket (1/s, burst 3) would hold
    // 2.5 tokens after the take at 0, so that is what comes back; a full burst would let
    // 1 + 3 through within a second, past burst + rate·w.
    await store.adjust(level, { fill: true }, 500);
    assert.equal((await store.snapshot(level, 500)).tokens, 2.5);
    assert.equal((await store.snapshot(level, 1000)).tokens, 3);
  });

  it('a reset long after the last take fills the level', async () => {
    const store = new MemoryStore();
    const level = { id: 'k', ratePerSecond: 10, burst: 5 };
    await store.take([level], 5, 0);
    await store.adjust(level, { capTokens: 0, pauseUntil: 2000 }, 0);
    await store.adjust(level, { fill: true }, 2000);
    assert.equal((await store.snapshot(level, 2000)).tokens, 5);
  });
});
