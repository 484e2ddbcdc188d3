// Defined once in @rxgate/core (the simulator's seeded streams use the same generator).
export { seededRandom } from '@rxgate/core';
