/** The checks every policy runs on its options; each throws the package's own typed error. */
export interface OptionChecks {
  /** A whole number >= 1. */
  positiveInt(option: string, value: unknown): number;
  /** A finite number > 0. */
  positive(option: string, value: unknown): number;
  /** A finite number >= 0. */
  nonNegative(option: string, value: unknown): number;
  /** A rate in (0, 1]. */
  rate(option: string, value: unknown): number;
  /** A number in the open or closed range given. */
  inRange(option: string, value: unknown, min: number, max: number, open?: boolean): number;
  /** An absolute time, or undefined for none; NaN is refused. */
  optionalTime(option: string, value: unknown): number | undefined;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}

/**
 * The option checks of one package: `fail(option, problem)` makes its error
 * (`(o, p) => new InvalidBreakerOptionError(o, p)`), which names the field.
 */
export function optionChecks(fail: (option: string, problem: string) => Error): OptionChecks {
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
  return {
    positiveInt(option, value) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
        throw fail(option, `must be a whole number >= 1, got ${describe(value)}`);
      return value;
    },
    positive(option, value) {
      if (!finite(value) || value <= 0)
        throw fail(option, `must be a finite number > 0, got ${describe(value)}`);
      return value;
    },
    nonNegative(option, value) {
      if (!finite(value) || value < 0)
        throw fail(option, `must be a finite number >= 0, got ${describe(value)}`);
      return value;
    },
    rate(option, value) {
      if (!finite(value) || value <= 0 || value > 1)
        throw fail(option, `must be a rate in (0, 1], got ${describe(value)}`);
      return value;
    },
    inRange(option, value, min, max, open = false) {
      if (!finite(value) || !(open ? value > min && value < max : value >= min && value <= max)) {
        const range = open ? `(${min}, ${max})` : `[${min}, ${max}]`;
        throw fail(option, `must be a number in ${range}, got ${describe(value)}`);
      }
      return value;
    },
    optionalTime(option, value) {
      if (value === undefined) return undefined;
      if (typeof value !== 'number' || Number.isNaN(value))
        throw fail(option, `must be a time in milliseconds, got ${describe(value)}`);
      return value;
    },
  };
}
