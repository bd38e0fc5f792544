// @ts-check
// Everything the scripts import that does not need k6, in one place: scripts/generate.ts bundles
// it into bundle.cjs, which the scripts import instead. k6 v0.47 runs every ES module through Babel
// inside its own JavaScript runtime, at about 80 ms per kilobyte of code (7 to 10 s for the 28 to
// 35 modules a script pulled in); a file without `import` or `export` is compiled directly, in
// milliseconds. requests.js is here too: it takes k6's http module from the target it is given. Only
// the scripts stay ES modules (Babel: about 0.25 s of CPU per run for requests.js alone).
export { HEADERS, PET_STATUSES } from '../../spec/rules/contract.js';
export { headerValue } from '../../spec/rules/fields.js';
export { DEFAULT_TOLERANCES, REFUSAL_STATUSES, isRefusalStatus, rateLimitHeaderProblems, readSnapshot } from '../../spec/rules/snapshot.js';
export { EVENTS } from '../../judge/rules/rules.js';
export { keyLabel } from '../../spec/rules/redact.js';
export { capacitySvg } from '../../spec/rules/capacity-svg.js';
export { timelineSvg } from '../../spec/rules/timeline-svg.js';
export { MAX_CLIENTS, baseUrl, boolEnv, clientsEnv, durationEnv, expectedLimit, numberEnv, stringEnv, summaryPath } from './config.js';
export { behindPlan, boundLine, judgeSteps, missedRate, nextPass, overwhelmed, plannedBefore, stepLine, stepStats } from './knee.js';
export { bucketSeconds, isTimelineMetric, metricRecorder, TIMELINE_METRICS, timelinePoints, timelineSamples } from './timeline.js';
export { capacityThresholds, rateLimitThresholds, smokeThresholds, WARNING_ONLY } from './thresholds.js';
export { doublingRates, isStepMetric, parseBetween, parseRates, refineRates, stepPlan, stepScenarios, withBaseline } from './phases.js';
export { isErrorBody, isPet, isPetList, jsonBody } from './shapes.js';
export { isWhole, segmentOf } from './segments.js';
export {
  keyLimit,
  keyLimitFromGauges,
  keyLimitLine,
  keyLimitSamples,
  KEY_LIMIT_METRICS,
  limitShortfalls,
  runPlanLines,
  shortfallLine,
  unreachableReason,
} from './key-limit.js';
export { metricValue, summaryOutputs } from './summary.js';
export { nextLine, scriptPathFrom } from './next-run.js';
export { k6Override, overrideFlags, overrideReport, rateLimitOverrideRefusal, runLength } from './overrides.js';
export { onOrigin } from './origin.js';
export { checkedUrl, createPet, getPet, listPets, listPetsBatchRequest, listPetsUrl, noteRedirect, params, probe } from './requests.js';
export { refusal, setupStop } from './outcome.js';
export { answerOf, answersOf, banProbePlan, banProbeTimes, createPacer } from './pacing.js';
export { VIOLATIONS_METRIC, createJudge, eventMetric, reportLines, zeroSamples } from './verdict.js';
