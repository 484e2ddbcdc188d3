import { createRouter, MemoryDeadLetterQueue, MemoryLedger } from '@rxgate/router';

/** One claim's life — reject, correct, pay, reverse, rebill — and an ambiguous one reconciled. */
export async function claimLife(switchUrl: string, idempotencySecret: string) {
  const router = createRouter({
    nodes: [{ name: 'primary', url: switchUrl }],
    idempotencySecret, // 32+ random bytes, the same in every process
    ledger: new MemoryLedger(), // the default is the durable file ledger
    deadLetters: new MemoryDeadLetterQueue(),
    retry: { ambiguousRetries: 0 },
  });
  const claim = {
    '103-A3': 'B1',
    '101-A1': '610014',
    '104-A4': 'ADV',
    '302-C2': 'ZX9900112',
    '201-B1': '1234567890',
    '402-D2': '000123456',
    '403-D3': 0,
    '407-D7': '00002143380',
    '442-E7': '60.000',
    '405-D5': 30,
    '401-D1': '20261130',
    '409-D9': '12.34',
  };
  // 1. Rejected 76 (plan limits exceeded): the codes, the payer's message, what to do.
  const rejected = await router.submit(claim);
  // 2. The pharmacist reduces the quantity and resubmits: sent again, under a fresh key.
  const paid = await router.submit({ ...claim, '442-E7': '30.000' });
  // 3. The patient never picks it up: reverse it (B2: the identity and product, nothing else).
  const reversal = {
    '103-A3': 'B2',
    '101-A1': claim['101-A1'],
    '104-A4': claim['104-A4'],
    '201-B1': claim['201-B1'],
    '402-D2': claim['402-D2'],
    '403-D3': claim['403-D3'],
    '401-D1': claim['401-D1'],
    '407-D7': claim['407-D7'],
  };
  const reversed = await router.submit(reversal);
  // 4. Rebill: the reversal reopened the claim, so this B1 is sent (not the stale payment).
  const rebilled = await router.submit({ ...claim, '442-E7': '30.000', '405-D5': 15 });
  // 5. Another claim whose answer a gateway lost: it may be paid, so it waits, pinned...
  const lost = await router.submit({ ...claim, '402-D2': '000200001', '442-E7': '30.000' });
  // ...until reconcile asks the same node again, under the same key: the replay settles it.
  const reconciled = await router.reconcile();
  await router.close();
  return { rejected, paid, reversed, rebilled, lost, reconciled };
}
