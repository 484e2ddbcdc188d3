import { createHmac } from 'node:crypto';
import type { CanonicalClaim } from './claim.js';

/**
 * The claim's identity, as payers detect duplicates (the NCPDP duplicate rule): transaction
 * code, BIN, PCN, pharmacy NPI, prescription number, fill number and date of service. Two
 * submissions with the same identity are the same claim, whatever else differs (a corrected
 * quantity, another NDC, a typo in the cardholder ID): the ledger lets at most one of them be
 * adjudicated. The identity carries no PHI at all.
 */
export function identityText(claim: CanonicalClaim): string {
  return `${claim.transactionCode}\u001f${claim.bin}\u001f${claim.pcn}\u001f${claim.serviceProviderId}\u001f${claim.prescriptionNumber}\u001f${claim.fillNumber}\u001f${claim.dateOfService}`;
}

/**
 * The claim's idempotency key: an HMAC-SHA256 of its {@link identityText} under the router's
 * secret, stable across retries, replays, failover and process restarts, and meaningless to
 * anyone without the secret.
 */
export function idempotencyKey(claim: CanonicalClaim, secret: string | Uint8Array): string {
  return idempotencyKeyer(secret)(claim);
}

/**
 * {@link idempotencyKey} with the secret read once. The MAC is `node:crypto`'s `createHmac`:
 * measured here it costs less per key than copying precomputed pad states (`Hash.copy()`
 * builds a JS object per copy), and no hand-written hash is worth its risk.
 */
export function idempotencyKeyer(secret: string | Uint8Array): (claim: CanonicalClaim) => string {
  const mac = hmacSha256(secret);
  return (claim) => `rx1_${mac(identityText(claim)).toString('base64url', 0, 24)}`;
}

/** The key of a repaired claim: a new body needs its own key, derived from the original. */
export function repairedKey(key: string, generation: number): string {
  return `${key}.r${generation}`;
}

/** HMAC-SHA256 under `secret` (RFC 2104), by `node:crypto`. */
export function hmacSha256(secret: string | Uint8Array): (message: string) => Buffer {
  const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  return (message) => createHmac('sha256', key).update(message, 'utf8').digest();
}
