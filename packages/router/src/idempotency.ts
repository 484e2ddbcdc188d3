import { createHash, hash } from 'node:crypto';
import type { CanonicalClaim } from './claim.js';

/**
 * The claim's identity, as payers detect duplicates (the NCPDP duplicate rule): transaction
 * code, BIN, PCN, pharmacy NPI, prescription number, fill number and date of service. Two
 * submissions with the same identity are the same claim, whatever else differs (a corrected
 * quantity, another NDC, a typo in the cardholder ID): the ledger lets at most one of them be
 * adjudicated. The identity carries no PHI at all.
 */
export function identityText(claim: CanonicalClaim): string {
  // Joined, not a template: one flat string, where twelve concatenations made a tree of pieces
  // that the MAC then flattened. `?? String(…)`: a template writes a missing value as
  // `undefined` (or `null`), where join writes nothing; the key of such a claim stays the same.
  return [
    claim.transactionCode ?? String(claim.transactionCode),
    claim.bin ?? String(claim.bin),
    claim.pcn ?? String(claim.pcn),
    claim.serviceProviderId ?? String(claim.serviceProviderId),
    claim.prescriptionNumber ?? String(claim.prescriptionNumber),
    claim.fillNumber ?? String(claim.fillNumber),
    claim.dateOfService ?? String(claim.dateOfService),
  ].join('\u001f');
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
 * {@link idempotencyKey} with the secret read once. The MAC is HMAC-SHA256 by `node:crypto`
 * (see {@link hmacSha256}).
 */
export function idempotencyKeyer(secret: string | Uint8Array): (claim: CanonicalClaim) => string {
  const mac = hmacSha256(secret, 'base64url');
  // The first 32 characters of the base64url of 32 bytes are exactly those of its first 24.
  return (claim) => `rx1_${mac(identityText(claim)).slice(0, 32)}`;
}

/** The key of a repaired claim: a new body needs its own key, derived from the original. */
export function repairedKey(key: string, generation: number): string {
  return `${key}.r${generation}`;
}

const BLOCK = 64;

/**
 * HMAC-SHA256 under `secret` (RFC 2104): H((K ^ opad) || H((K ^ ipad) || m)), in `encoding`,
 * with the two padded keys worked out once and each hash a one-shot `crypto.hash` of
 * `node:crypto` (about 5,000 instructions a key fewer than `createHmac`, which builds an object
 * and reads the key again per message). No `Buffer` is made per message: the inner hash comes
 * back as binary (latin1) text written into the outer pad, the outer one in `encoding`, and the view of
 * the inner input is kept per message length. Held equal to `createHmac` by a property
 * (fast-paths.test.ts).
 */
export function hmacSha256(
  secret: string | Uint8Array,
  encoding: 'hex' | 'base64' | 'base64url' = 'hex',
): (message: string) => string {
  let key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
  if (key.length > BLOCK) key = createHash('sha256').update(key).digest();
  const inner = Buffer.alloc(BLOCK + 256, 0x36);
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i] = 0x36 ^ key[i]!;
    outer[i] = 0x5c ^ key[i]!;
  }
  let scratch = inner;
  // Views of `scratch` from its start, by message length (at most one per length it can hold).
  const views = new Map<number, Buffer>();
  return (message) => {
    const length = Buffer.byteLength(message, 'utf8');
    if (BLOCK + length > scratch.length) {
      scratch = Buffer.alloc(BLOCK + length);
      inner.copy(scratch, 0, 0, BLOCK);
      views.clear();
    }
    scratch.write(message, BLOCK, 'utf8');
    let input = views.get(length);
    if (input === undefined) {
      input = scratch.subarray(0, BLOCK + length);
      views.set(length, input);
    }
    outer.write(hash('sha256', input, 'binary'), BLOCK, 'binary');
    return hash('sha256', outer, encoding);
  };
}
