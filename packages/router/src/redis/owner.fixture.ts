// A process that takes a claim's lease in the shared ledger and then dies without finishing.
import { Redis } from 'ioredis';
import { RedisLedger } from './redis-stores.js';

const [url, key] = process.argv.slice(2) as [string, string];
const redis = new Redis(url);
const ledger = new RedisLedger({ redis, leaseMs: 600 });
const entry = await ledger.begin(key);
process.send?.(entry.kind);
// Hang as if mid-request; the parent kills us.
setInterval(() => {}, 1000);
