// The judging core's public API: what conform, the proxy and the k6 scripts share to reach a verdict.
// A driver makes exchanges (it sent them, or saw them pass); the judge's checks read them into a
// ledger of verdicts at the levels of check-def.ts; reports show them with keys redacted.

// The exchange, and the contract it is judged against.
export { bodyText, formatExchange, jsonBody, type Clock, type Exchange } from './exchange.ts';
export { DEFAULT_SPEC_PATH, loadContract, type Contract, type OperationId } from './contract.ts';

// What a check is, and where its verdicts go.
export type { CheckDef, Level, Profile } from './check-def.ts';
export { Ledger, type CheckLedger, type CheckResult, type Outcome } from './ledger.ts';

// Every check the judge defines; those that judge one exchange on its own (live traffic too); one
// key's whole history under every allowed reading (the window, refusal and ban rules of spec/rules).
export { JUDGE_CHECKS, LIVE_CHECKS, rateLimitChecks, type InspectContext, type LiveChecks } from './checks/index.ts';
export { rateLimitVerdict, type RateLimitVerdict } from './rate-limit-verdict.ts';
export { READINGS, readingById } from './rules/readings.js';

// Showing a finding: the request as curl, results with every known key replaced by its label.
export { curlLine } from './curl.ts';
export { redactResults } from './redact-results.ts';

// The store's history judged whole (linearizability): some order of the operations consistent with
// real time explains every answer; and the proxy's bounded form, judged as exchanges pass.
export { HISTORY_CHECK_ID } from './checks/history.ts';
export {
  createStoreHistory,
  judgeStoreHistory,
  type HistoryFinding,
  type HistoryRule,
  type StoreHistory,
  type StoreHistoryLimits,
  type StoreHistoryOptions,
} from './history/store-history.ts';
