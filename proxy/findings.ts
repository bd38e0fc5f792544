// What the judging proxy reports: each finding as it is seen, and each key's report (its checks, its
// client's obligations, its timeline and sample, the readings that explained it). proxy/judge.ts
// makes them; proxy/report.ts, the live view and the HAR show them.
import type { CheckResult, Level } from '../judge/index.ts';
import type { ClientReport } from '../judge/client-obligations.ts';
import type { Timeline } from '../spec/rules/timeline-svg.js';
import type { SampleReport } from './sample.ts';

/** Something wrong, seen as it passed: a check the server failed, or an obligation the client broke. */
export interface Finding {
  /** The judge's clock (epoch ms). */
  atMs: number;
  /** The key as shown: its first characters. */
  key: string;
  side: 'server' | 'client';
  /** A check id of the conformance kit, or client.* for the client's obligations. */
  id: string;
  level: Level;
  message: string;
  /** The exchange that showed it. */
  seq: number;
  /** The rule of judge/rules/window-rules.js it breaks, when one does. */
  rule?: string;
}

export interface KeyReport {
  key: string;
  requests: number;
  refused: number;
  /** The checks that judged this key's traffic (passed, failed or warned). */
  server: CheckResult[];
  client?: ClientReport;
  /** The last timeline points (at most JudgeLimits.timelinePoints); `timelineDropped` earlier ones are not drawn. */
  timeline: Timeline;
  timelineDropped: number;
  /** The exchanges kept for the reports and how many were not. */
  sample: SampleReport;
  /** What the target chose where the specification is silent: the readings that explained this key's answers (judge/README.md). */
  readings?: string;
}

/** Keys summarised to stay within maxKeys: what is left of them. */
export interface SummarisedKeys {
  keys: number;
  requests: number;
  refused: number;
  /** Per check id (server) or obligation id (client), how many of these keys failed it. */
  failed: Record<string, number>;
}
