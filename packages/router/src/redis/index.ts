export { RedisLedger, type RedisLedgerOptions, RedisNegativeCache } from './redis-stores.js';
