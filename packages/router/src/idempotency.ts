import { createHmac } from 'node:crypto';
import type { CanonicalClaim } from './claim.js';

/**
 * The claim's idempotency key: stable for one claim across retries, replays, failover and
 * process restarts (it depends only on the claim and the secret), and carrying no PHI in
 * clear: the cardholder ID enters only through an HMAC-SHA256 with the configured secret.
 * Identity: transaction code, BIN, PCN, pharmacy NPI, prescription number, fill number, date
 * of service, product and cardholder.
 */
export function idempotencyKey(claim: CanonicalClaim, secret: string | Uint8Array): string {
  const h = createHmac('sha256', secret);
  h.update(
    [
      claim.transactionCode,
      claim.bin,
      claim.pcn,
      claim.serviceProviderId,
      claim.prescriptionNumber,
      String(claim.fillNumber),
      claim.dateOfService,
      claim.productId,
      claim.cardholderId.reveal(),
    ].join('\u001f'),
  );
  return `rx1_${h.digest('base64url').slice(0, 32)}`;
}

/** The key of a repaired claim: a new body needs its own key, derived from the original. */
export function repairedKey(key: string, generation: number): string {
  return `${key}.r${generation}`;
}
