import type { Router } from '@rxgate/router';

/** How many claims a run left maybe-committed, and how many of them reconcile settled. */
export interface ReconciliationCounts {
  /** `needs-reconciliation` outcomes of the run. */
  readonly before: number;
  /** Pinned claims reconcile asked again on their node. */
  readonly asked: number;
  /** Of those, settled with a final outcome (the vendor replayed or gave its answer). */
  readonly settled: number;
  /** Still pinned after reconcile: the vendor could not answer them. */
  readonly after: number;
}

/** Runs `router.reconcile()` once, driving the virtual clock if there is one. */
export async function reconcileAtEnd(
  router: Router,
  outcomes: Readonly<Record<string, number>>,
  vclock: { run(): Promise<unknown> } | undefined,
): Promise<ReconciliationCounts> {
  const before = outcomes['needs-reconciliation'] ?? 0;
  const pass = router.reconcile();
  if (vclock) await vclock.run();
  const r = await pass;
  return { before, asked: r.asked, settled: r.settled, after: r.stillOpen };
}
