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

// Judging traffic the kit did not send (the proxy uses nothing else of conformance/): the contract,
// the exchange model, the live areas, the ledger and the rate-limit verdict.
export { DEFAULT_SPEC_PATH, loadContract, type Contract, type OperationId } from '../judge/contract.ts';
export { bodyText, formatExchange, jsonBody, type Clock, type Exchange } from '../judge/exchange.ts';
export { tlsExplanation, type TlsSettings } from '../lib/tls.ts';
export { curlLine } from '../judge/curl.ts';
export { redactResults } from '../judge/redact-results.ts';
export { LIVE_CHECKS as LIVE_AREAS } from '../judge/checks/index.ts';
export { rateLimitArea } from './checks/rate-limit.ts';
export { rateLimitVerdict, type RateLimitVerdict } from './checks/rate-limit-verdict.ts';
export { Ledger, type CheckLedger } from '../judge/ledger.ts';
export { OPTIONS as CONFORM_OPTIONS } from './options.ts';
