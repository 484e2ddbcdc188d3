import { optionChecks } from '@rxgate/core';
import { InvalidBreakerOptionError } from './errors.js';

// The checks are @rxgate/core's; this package's error names the field.
export const { positiveInt, positive, nonNegative, rate } = optionChecks(
  (option, problem) => new InvalidBreakerOptionError(option, problem),
);
