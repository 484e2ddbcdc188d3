// What the README's Redis example needs and does not show: a redis-server of its own (started
// here, stopped by the example's last line), a claim, and a vendor that answers it.
import { redisAvailable, startRedis } from '@rxgate/testkit';

// Skipped loudly where redis-server is missing (redisAvailable says so; under CI it throws).
if (!redisAvailable()) process.exit(0);
const server = await startRedis();

export const REDIS_URL = server.url;
export const claim = { bin: '610014', pcn: 'ADV' };
export const send = async (_: typeof claim): Promise<{ status: number }> => ({ status: 200 });
export const stopRedis = (): Promise<void> => server.close();
