import { InvalidOptionError } from './errors.js';

/** A finite number > 0. */
export function positive(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidOptionError(option, `must be a finite number > 0, got ${describe(value)}`);
  }
  return value;
}

/** A whole number >= 1. */
export function positiveInt(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidOptionError(option, `must be a whole number >= 1, got ${describe(value)}`);
  }
  return value;
}

/** A number in the open or closed range given. */
export function inRange(option: string, value: unknown, min: number, max: number, open = false): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (open ? value > min && value < max : value >= min && value <= max);
  if (!ok) {
    const range = open ? `(${min}, ${max})` : `[${min}, ${max}]`;
    throw new InvalidOptionError(option, `must be a number in ${range}, got ${describe(value)}`);
  }
  return value as number;
}

/** An absolute time, or undefined for none; NaN is refused. */
export function optionalTime(option: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new InvalidOptionError(option, `must be a time in milliseconds, got ${describe(value)}`);
  }
  return value;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  return String(value);
}
