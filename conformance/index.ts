// The conformance kit as a library: run the checks against a base URL from your own code (with waits
// you control), format the report, read the catalogue, or start the Prism mock.
export {
  runConformance,
  resolveOptions,
  UnreachableError,
  type RunOptions,
  type RunHooks,
  type Report,
  type Counts,
  type CheckResult,
  type Outcome,
  type ProgressEvent,
} from './run.ts';
export { consoleProgress, formatConsole } from './report/console.ts';
export { formatJUnit } from './report/junit.ts';
export { formatJson } from './report/json.ts';
export { formatHtml } from './report/html.ts';
export { CATALOGUE, type CheckDef, type Level, type Profile } from './catalogue.ts';
export { startMock, type MockOptions, type RunningMock } from './mock.ts';

// The judge conform reports with (its exchanges, ledger, checks and readings): adoption-store-kit/judge.
export { DEFAULT_SPEC_PATH, loadContract, type Contract } from '../judge/contract.ts';
