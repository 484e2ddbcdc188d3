// Defined once in @rxgate/core (unref'd timers, delays past 24.8 days); re-exported here.
export { type Clock, systemClock, type TimerHandle } from '@rxgate/core';
