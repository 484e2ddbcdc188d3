// Defined once in @rxgate/core; re-exported so this package's importers stay as they are.
export { sleep } from '@rxgate/core';
