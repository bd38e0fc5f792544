// The store's history, as the judge's drivers call it: judged whole once it is finished (conform's
// model phase), or as it passes, over a bounded window (the proxy).
export { judgeStoreHistory, type HistoryFinding, type HistoryRule, type StoreHistoryOptions } from './whole.ts';
export { createStoreHistory, type StoreHistory, type StoreHistoryLimits } from './stream.ts';
