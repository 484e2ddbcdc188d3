import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type AuditRecord, MemoryAuditLog } from './audit.js';
import { RouterConfigError } from './errors.js';

const record = (i: number): AuditRecord => ({
  at: i,
  correlationId: `c${i}`,
  claimKey: `k${i}`,
  type: 'attempt',
});

describe('MemoryAuditLog is bounded (the default audit of a long-running router)', () => {
  it('keeps the latest `capacity` records, oldest first, and counts those let go', async () => {
    const log = new MemoryAuditLog({ capacity: 3 });
    for (let i = 0; i < 5; i++) await log.append(record(i));
    assert.deepEqual(
      log.records.map((r) => r.at),
      [2, 3, 4],
    );
    assert.equal(log.evicted, 2);
  });

  it('holds 10,000 by default, however many it is given', async () => {
    const log = new MemoryAuditLog();
    for (let i = 0; i < 25_000; i++) await log.append(record(i));
    assert.equal(log.records.length, 10_000);
    assert.equal(log.records[0]?.at, 15_000);
    assert.equal(log.evicted, 15_000);
  });

  it('keeps everything with capacity Infinity', async () => {
    const log = new MemoryAuditLog({ capacity: Infinity });
    for (let i = 0; i < 30_000; i++) await log.append(record(i));
    assert.equal(log.records.length, 30_000);
    assert.equal(log.evicted, 0);
  });

  it('refuses a capacity that is not a whole number >= 1, naming it', () => {
    for (const capacity of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => new MemoryAuditLog({ capacity }),
        (e: unknown) => e instanceof RouterConfigError && e.option === 'capacity',
      );
    }
  });

  it('property: after any appends and reads, records are the last min(n, capacity) appended, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.boolean(), { maxLength: 60 }),
        async (capacity, ops) => {
          const log = new MemoryAuditLog({ capacity });
          const all: number[] = [];
          for (const read of ops) {
            if (read) {
              assert.deepEqual(
                log.records.map((r) => r.at),
                all.slice(-capacity),
              );
              assert.equal(log.evicted, Math.max(0, all.length - capacity));
            } else {
              all.push(all.length);
              await log.append(record(all.length - 1));
            }
          }
          assert.deepEqual(
            log.records.map((r) => r.at),
            all.slice(-capacity),
          );
        },
      ),
    );
  });
});
