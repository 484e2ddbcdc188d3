export { fmt, nsPerAsync, nsPerSync, retainedBytes, table } from './bench.js';
export { type RedisServer, redisAvailable, startRedis } from './redis-server.js';
export { seededRandom } from './seeded-random.js';
export { VirtualClock } from './virtual-clock.js';
