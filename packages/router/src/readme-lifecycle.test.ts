// The README's walk through one claim's life is examples/claim-life.ts, word for word; here it
// runs over real HTTP against a payer that adjudicates by content (rejects above 30 units, and
// a gateway loses the answer of Rx 000200001 once).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, it } from 'node:test';
import { claimLife } from '../examples/claim-life.js';
import { SECRET } from './test-support/fixtures.js';
import { lifecyclePayer } from './test-support/lifecycle-vendor.js';
import { serve } from './test-support/msw-server.js';

const server = await serve();
after(() => server.close());

it('the README shows examples/claim-life.ts as it is', async () => {
  const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
  const example = await readFile(new URL('../examples/claim-life.ts', import.meta.url), 'utf8');
  const block = /<!-- claim-life -->\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.equal(block, example);
});

it("one claim's life: rejected 76, corrected and paid, reversed, rebilled; an ambiguous one reconciled", async () => {
  const payer = lifecyclePayer(server.url);
  server.reset(...payer.handlers);
  let lostOnce = false;
  payer.rule = (body) => {
    if (body['402-D2'] === '000200001' && !lostOnce) {
      lostOnce = true;
      return { payThenGateway504: true };
    }
    return Number(body['442-E7']) > 30
      ? { reject: ['76'], messages: ['QTY LIMIT 30 PER 30 DAYS'] }
      : { pay: true };
  };
  const life = await claimLife(server.url, SECRET);
  assert.deepEqual(life.rejected.kind === 'rejected' && [life.rejected.codes, life.rejected.messages], [
    ['76'],
    ['QTY LIMIT 30 PER 30 DAYS'],
  ]);
  assert.match(life.rejected.explanation ?? '', /^Rejected by the payer: 76/);
  assert.deepEqual([life.paid.kind, life.paid.generation], ['paid', 1]);
  assert.equal(life.reversed.kind, 'approved');
  assert.deepEqual([life.rebilled.kind, life.rebilled.generation], ['paid', 2]);
  assert.equal(life.lost.kind, 'needs-reconciliation');
  assert.deepEqual([life.reconciled.asked, life.reconciled.settled], [1, 1]);
  assert.equal(life.reconciled.outcomes[0]!.kind, 'paid');
  // The payer's own count, by content: the claim paid, reversed, paid again; the other once.
  assert.deepEqual([...payer.payments.values()], [2, 1]);
  assert.deepEqual([...payer.paid.values()], [1, 1]);
  assert.deepEqual([...payer.reversals.values()], [1]);
  // Six sends: reject, corrected, reversal, rebill, the lost one, its reconciliation (a replay).
  assert.equal(payer.requests.length, 6);
  assert.equal(payer.requests[5]!.replayed, true);
});
