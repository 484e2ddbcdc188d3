// readBody against the definition it stands for: Response.text() over the same bytes, for any
// bytes (invalid UTF-8, a byte-order mark, a character split across chunks) in any chunks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { readBody } from './read-body.js';

async function* chunks(parts: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

// Bytes around UTF-8's edges: ASCII, lead and continuation bytes, a BOM's bytes, 0xff.
const byte = fc.constantFrom(
  0x22,
  0x61,
  0x7b,
  0xc3,
  0xa9,
  0xe2,
  0x82,
  0xac,
  0xf0,
  0x9f,
  0x98,
  0x80,
  0xef,
  0xbb,
  0xbf,
  0xff,
);
const parts = fc.array(
  fc.array(byte, { maxLength: 12 }).map((b) => Uint8Array.from(b)),
  { maxLength: 8 },
);

describe('readBody', () => {
  it('under its bound, reads what Response.text() reads, however the bytes are cut', async () => {
    await fc.assert(
      fc.asyncProperty(parts, async (ps) => {
        const whole = Uint8Array.from(ps.flatMap((p) => [...p]));
        assert.equal(await readBody(chunks(ps), whole.length), await new Response(whole).text());
      }),
      { numRuns: 500 },
    );
  });

  it('past its bound, stops after the chunk that crossed it, and leaves the rest unread', async () => {
    let read = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        read++;
        yield new Uint8Array(10).fill(0x61);
      }
    }
    assert.equal(await readBody(endless(), 25), 'a'.repeat(30));
    assert.equal(read, 3);
    assert.equal(await readBody(chunks([new Uint8Array(25).fill(0x61)]), 25), 'a'.repeat(25));
  });
});
