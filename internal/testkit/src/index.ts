export { VirtualClock } from './virtual-clock.js';
export { seededRandom } from './seeded-random.js';
