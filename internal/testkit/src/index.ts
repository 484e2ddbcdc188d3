export { fmt, nsPerAsync, nsPerSync, retainedBytes, table } from './bench.js';
export { seededRandom } from './seeded-random.js';
export { VirtualClock } from './virtual-clock.js';
export { type RedisServer, redisAvailable, startRedis } from './redis-server.js';
