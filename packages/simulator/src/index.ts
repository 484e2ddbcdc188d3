export { type GeneratedClaim, makeClaim, rateAt } from './claims.js';
export { type Random, seeded, stream } from './random.js';
export {
  buildReport,
  formatSummary,
  type InvariantLine,
  invariantLines,
  type Report,
  replayLine,
} from './report.js';
export { parseRunReport, type RunReport, RunReportSchema } from './report-schema.js';
export {
  type ClaimTrace,
  type Invariants,
  type RunMode,
  type RunOptions,
  type RunResult,
  runScenario,
  SIM_EPOCH,
} from './runner.js';
export {
  FAULT_KINDS,
  type FaultKind,
  type FaultWindow,
  loadScenario,
  parseScenario,
  SCENARIO_NAMES,
  type Scenario,
  ScenarioError,
  type ScenarioInput,
  scenarioHash,
  scenarioSchema,
} from './scenario.js';
export { evaluateThresholds, metricsOf, type ThresholdResult } from './thresholds.js';
export { type NodeName, type VendorAction, VendorModel, type VendorRequest } from './vendor-model.js';
export { VirtualClock } from './virtual-clock.js';
