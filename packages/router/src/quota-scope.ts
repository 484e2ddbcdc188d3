import type { QuotaSignal } from '@rxgate/ratelimit';
import { RouterConfigError } from './errors.js';

/**
 * Which of the vendor's quotas are a payer's. A vendor that keeps a sub-quota per payer names
 * it (an IETF `RateLimit-Policy` item such as `"per-payer";q=5;w=1`), or keeps every quota per
 * payer: its signals then adapt that payer's level only, and a payer's 429 pauses that payer,
 * not every payer.
 */
export interface QuotaScopeOptions {
  /** Names of the IETF policies the vendor keeps per payer. @default none */
  readonly payerPolicies?: readonly string[];
  /** Where every other signal goes, a bare 429 included. @default 'account' */
  readonly default?: 'account' | 'payer';
}

/** The resolved scope: the payer key a signal adapts, or undefined for the account. */
export type QuotaScope = (signal: QuotaSignal, payer: string) => string | undefined;

export function resolveQuotaScope(options: QuotaScopeOptions | undefined): QuotaScope {
  if (options === undefined) return accountScope;
  if (typeof options !== 'object' || options === null)
    throw new RouterConfigError('quotaScope', 'must be an object');
  const fallback = options.default ?? 'account';
  if (fallback !== 'account' && fallback !== 'payer')
    throw new RouterConfigError('quotaScope.default', 'must be "account" or "payer"');
  const names = options.payerPolicies ?? [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || n === ''))
    throw new RouterConfigError('quotaScope.payerPolicies', 'must be a list of policy names');
  const payerPolicies = new Set<string>(names);
  return (signal, payer) => {
    if (signal.policy !== undefined && payerPolicies.size > 0)
      return payerPolicies.has(signal.policy) ? payer : undefined;
    return fallback === 'payer' ? payer : undefined;
  };
}

const accountScope: QuotaScope = () => undefined;
