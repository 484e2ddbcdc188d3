import { InvalidBreakerOptionError } from './errors.js';

export function positiveInt(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidBreakerOptionError(option, `must be a whole number >= 1, got ${String(value)}`);
  }
  return value;
}

export function positive(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidBreakerOptionError(option, `must be a finite number > 0, got ${String(value)}`);
  }
  return value;
}

export function nonNegative(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidBreakerOptionError(option, `must be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}

/** A rate in (0, 1]. */
export function rate(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > 1) {
    throw new InvalidBreakerOptionError(option, `must be a rate in (0, 1], got ${String(value)}`);
  }
  return value;
}
