import { optionChecks } from '@rxgate/core';
import { InvalidOptionError } from './errors.js';

// The checks are @rxgate/core's; this package's error names the field.
export const { positive, positiveInt, inRange, optionalTime } = optionChecks(
  (option, problem) => new InvalidOptionError(option, problem),
);
