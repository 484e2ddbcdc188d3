// Defined once in @rxgate/core; re-exported here so this package's importers stay as they are.
export { type AbortSignalLike, type Clock, systemClock, type TimerHandle } from '@rxgate/core';
