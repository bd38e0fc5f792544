// @ts-check
// The shared field rules as one module (the rate-limit rule engine is the judge's: adoption-store-kit/judge), for the package's "adoption-store-kit/rules" entry. k6 scripts
// import the single files by relative path instead (they load only what they use).
export * from './contract.js';
export * from './fields.js';
export * from './link.js';
export * from './redact.js';
export * from './structured-fields.js';
export { DEFAULT_TOLERANCES, readSnapshot, slackSeconds, retryAtSeconds, retryWaitMs } from './snapshot.js';
