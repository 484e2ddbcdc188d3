import { defaultCatalogue } from '@rxgate/classifier';
import { decimalFixed } from './claim.js';
import type { Outcome } from './outcome.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const label = (code: string): string => {
  const info = defaultCatalogue.lookup(code);
  return info === undefined ? code : `${code} (${info.description ?? info.label})`;
};
const labels = (codes: readonly string[] | undefined): string =>
  codes === undefined || codes.length === 0 ? '' : codes.map(label).join(', ');

/** The plain-words reason of an outcome, for the pharmacist: what happened and what to do. */
export function explain(o: Outcome): string {
  switch (o.kind) {
    case 'paid':
    case 'captured': {
      const a = o.amounts;
      const pay =
        a.patientPay === undefined ? '' : ` Collect ${decimalFixed(a.patientPay, 2)} from the patient`;
      const plan = a.totalPaid === undefined ? '' : `; the plan pays ${decimalFixed(a.totalPaid, 2)}`;
      return `Paid by ${o.node}.${pay}${plan}${pay === '' && plan === '' ? '' : '.'}`;
    }
    case 'approved':
      return `Approved by ${o.node} (for a reversal: the payment is undone; a rebill will be sent).`;
    case 'duplicate':
      return `A duplicate of a claim already paid at ${o.node}: nothing new was paid, the original payment stands.`;
    case 'rejected':
      if (o.local)
        return `Rejected locally, not sent: ${labels(o.codes)} was answered for this payer a short while ago (rxgate's cache); nothing was spent. Resubmit later or to another payer.`;
      return `Rejected by the payer: ${labels(o.codes)}.${o.priorAuthRequired ? ' Prior authorization required: resubmit with 461-EU/462-EV.' : ''} Correct the claim and resubmit: it is sent again, under a fresh key.`;
    case 'dead-lettered':
      return `Not adjudicated (${o.reason}${o.codes ? `; ${labels(o.codes)}` : ''}); nothing was paid. Handed to the batch lane to send again.`;
    case 'needs-reconciliation':
      return `Sent to ${o.node}, and its answer was lost (${o.reason}${o.codes ? `; ${labels(o.codes)}` : ''}): it may be paid there. It goes only back to ${o.node}: router.reconcile() asks again.`;
    case 'invalid':
      return `Not sent: ${o.issues.map((i) => `${i.field} ${i.message}`).join('; ')}.`;
    case 'in-flight-elsewhere':
      return 'The same claim is still in flight in another submission; ask again for its outcome.';
  }
}

/** The outcome with its {@link explain} filled in (in place: outcomes are built fresh per claim). */
export function withExplanation<O extends Outcome>(o: O): O {
  if (o.explanation === undefined) {
    const text = explain(o);
    // Read once, the text is one flat string rather than the tree of pieces its template built:
    // a finished outcome may be kept for days (the ledger), and the tree took twice the memory.
    text.charCodeAt(0);
    (o as Mutable<Outcome>).explanation = text;
  }
  return o;
}
