import type { CommitEvidence, Verdict } from './verdict.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A verdict before its commit evidence is stamped on it. */
export type Draft = DistributiveOmit<Verdict, 'commit'>;

/**
 * What an answer proves about a commit on the vendor's side. Only the processor's own answer
 * is definitive; a refusal before processing proves nothing was committed; everything else —
 * above all a gateway's 408/500/502/504, which may come after the processor paid — is `maybe`.
 * When in doubt, `maybe`: it costs a failover, while the other answer costs a double payment.
 */
export function commitEvidence(v: Draft): CommitEvidence {
  const status = v.status;
  switch (v.kind) {
    case 'adjudicated':
    case 'duplicate':
    case 'terminal-reject':
    case 'repairable':
      return 'definitive';
    case 'throttled':
    case 'auth-expired':
    case 'routing-reject':
      return 'not-processed';
    case 'client-error':
      // A 200 with submitter-fixable codes is the processor's answer; a 4xx is a refusal.
      return status === 200 ? 'definitive' : 'not-processed';
    case 'ambiguous':
      return 'maybe';
    case 'transient':
      if (status === undefined)
        return v.reason === 'not-sent' || v.reason === 'refused-locally' ? 'not-processed' : 'maybe';
      // 503 is the vendor (or its gateway) declining to process: maintenance or capacity.
      if (status === 503) return 'not-processed';
      // Planned downtime (93, 96): the switch answered for a host that is down by plan.
      if (status === 200 && v.reason === 'host-planned-downtime') return 'not-processed';
      return 'maybe';
    case 'unknown':
      if (status === undefined || !Number.isInteger(status)) return 'maybe';
      if (status >= 200 && status < 300) return 'maybe';
      if (status >= 500 && status !== 503) return 'maybe';
      return 'not-processed';
  }
}
