// How much the traffic judge keeps, whatever the traffic: its memory bound.

/** How much the judge keeps, whatever the traffic. */
export interface JudgeLimits {
  /** Keys judged with their full state; past it the oldest idle key is summarised. */
  maxKeys: number;
  /** Exchanges kept per key for the reports (the last ones, and as many around refusals). */
  keep: number;
  /** Timeline points drawn per key (the last ones). */
  timelinePoints: number;
  /** Distinct causes told per key and check; further ones are counted in the report, not printed. */
  causesPerCheck: number;
  /** Findings kept in `findings` (all of them are counted and told). */
  findings: number;
  /** The store's history: operations kept per resource (a pet id, a name, a list filter). */
  historyOpsPerResource: number;
  /** The store's history: resources kept in all, the least recently touched dropped first. */
  historyResources: number;
}

export const DEFAULT_LIMITS: JudgeLimits = {
  maxKeys: 1000,
  keep: 20,
  timelinePoints: 1000,
  causesPerCheck: 3,
  findings: 2000,
  historyOpsPerResource: 64,
  historyResources: 10_000,
};
