// The tests run on the simulator's clock: one VirtualClock, defined in @rxgate/core.
export { VirtualClock } from '@rxgate/core';
