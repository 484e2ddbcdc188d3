// The part of an OpenTelemetry `Meter` (`@opentelemetry/api` >= 1.9) that rxgate's metrics use.
// No package of rxgate imports @opentelemetry/api for it: any meter from `metrics.getMeter(name)`
// fits, and an application without OpenTelemetry loads nothing of it.

/** Attribute values as OpenTelemetry takes them. rxgate's are names, lanes and reasons: never patient data. */
export type MetricAttributes = Readonly<Record<string, string | number | boolean>>;

export interface InstrumentOptions {
  readonly description?: string;
  readonly unit?: string;
}

/** A counter, a histogram and an observable gauge: what a meter makes for rxgate. */
export interface MeterLike {
  createCounter(
    name: string,
    options?: InstrumentOptions,
  ): { add(value: number, attributes?: MetricAttributes): void };
  createHistogram(
    name: string,
    options?: InstrumentOptions & { advice?: { explicitBucketBoundaries?: number[] } },
  ): { record(value: number, attributes?: MetricAttributes): void };
  createObservableGauge(
    name: string,
    options?: InstrumentOptions,
  ): {
    addCallback(
      callback: (result: {
        observe(value: number, attributes?: MetricAttributes): void;
      }) => void | Promise<void>,
    ): void;
  };
}

/** A counter as a meter makes it. */
export type CounterLike = ReturnType<MeterLike['createCounter']>;

/**
 * One counter per entry of `specs`, named `<prefix>.<name>` (a table, so each package lists
 * its instruments as data): `counters(meter, 'rxgate.breaker', { transitions: { description, unit } })`.
 */
export function counters<K extends string>(
  meter: Pick<MeterLike, 'createCounter'>,
  prefix: string,
  specs: Readonly<Record<K, InstrumentOptions>>,
): Record<K, CounterLike> {
  const out = {} as Record<K, CounterLike>;
  for (const name of Object.keys(specs) as K[])
    out[name] = meter.createCounter(`${prefix}.${name}`, specs[name]);
  return out;
}
