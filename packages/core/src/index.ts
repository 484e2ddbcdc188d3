export { type Clock, systemClock, type TimerHandle } from './clock.js';
export { brand, errorGuard, isRxgateError, RxgateError } from './errors.js';
export { LANES, type Lane } from './lane.js';
export {
  type CounterLike,
  counters,
  type InstrumentOptions,
  type MeterLike,
  type MetricAttributes,
} from './meter.js';
export { type OptionChecks, optionChecks } from './option-checks.js';
export type { CallOutcome } from './outcome.js';
export {
  type ExecuteContext,
  invoke,
  type Policy,
  type PolicyFn,
  type WrappedPolicy,
  wrap,
} from './policy.js';
export { type DeclaredQuota, type QuotaSignal, signalAsAnswered } from './quota-signal.js';
export { type Random, seededRandom } from './random.js';
export type { RetryJudgement, Settled } from './settled.js';
export type { AbortSignalLike } from './signal.js';
export { sleep } from './sleep.js';
export { VirtualClock } from './virtual-clock.js';
