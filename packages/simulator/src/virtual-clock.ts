// The one virtual clock, defined in @rxgate/core (the simulator's rule: a nextTick drain between instants).
export { VirtualClock } from '@rxgate/core';
