import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A fresh run id: eight hex digits, the namespace of one run's keys in a shared store. */
export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

// Where runs (this one's namespaces, and the unnamespaced keys of versions before it) keep keys.
const PATTERNS = [
  'rxgate:sim:*',
  'rxgate:{rxgate:sim:*',
  'rxgate:ledger:*',
  'rxgate:neg:sim-*',
  'rxgate:{sim-*',
];

/** Up to `max` keys of other runs: keys where runs keep theirs, outside `prefix`. */
export async function foreignKeys(redis: Redis, prefix: string, max = 5): Promise<string[]> {
  const found: string[] = [];
  for (const match of PATTERNS) {
    let cursor = '0';
    // A bounded scan: a warning needs a few keys, not all of them.
    for (let rounds = 0; rounds < 50; rounds++) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
      for (const k of keys)
        if (!k.startsWith(prefix) && !k.startsWith(`rxgate:{${prefix}`) && found.length < max) found.push(k);
      cursor = next;
      if (cursor === '0' || found.length >= max) break;
    }
    if (found.length >= max) break;
  }
  return found;
}

export function foreignKeysWarning(keys: readonly string[], prefix: string): string {
  return `the store holds another run's keys (${keys.slice(0, 2).join(', ')}${keys.length > 2 ? ', …' : ''}); this run keeps its own under ${prefix}:* and ignores them (remove them with redis-cli --scan --pattern 'rxgate:*' | xargs redis-cli del)`;
}
