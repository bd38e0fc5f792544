// What the proxy's thread and its judge's worker (judge-worker.ts) say to each other: the exchanges,
// in the order their requests arrived, one way; findings, acknowledgements and reports the other.
import type { Exchange } from '../judge/index.ts';
import type { Tolerances } from '../spec/rules/snapshot.js';
import type { Finding, KeyReport } from './findings.ts';
import type { JudgeLimits } from './judge-limits.ts';
import type { JudgeResults } from './judging.ts';

/** What the worker is started with: how to judge, and the keys known from the start. */
export interface WorkerSetup {
  specPath: string;
  dateHeader: boolean;
  tolerances?: Partial<Tolerances>;
  limits?: Partial<JudgeLimits>;
  keys: string[];
}

/** One thing for the judge to do, in turn. */
export type JudgeOp =
  | { op: 'arrived'; exchange: Exchange; key: string | undefined }
  | { op: 'observe'; exchange: Exchange; key: string | undefined; injected: boolean }
  /** `lost`: one the proxy did not queue (the worker was too far behind), only its place and its key told. */
  | { op: 'abandoned'; exchange: Exchange; key: string | undefined; reachedTarget: boolean; lost?: boolean }
  | { op: 'learnt'; secret: string }
  | { op: 'watch' }
  | { op: 'results'; id: number; unjudged: number }
  | { op: 'report'; id: number; label: string };

export type JudgedKeyReport = Pick<KeyReport, 'key' | 'requests' | 'refused' | 'server' | 'client' | 'timeline'>;

/** What the worker says back. */
export type WorkerReply =
  | { t: 'ready' }
  | { t: 'failed'; error: string }
  /** A batch was judged: how many exchanges it held, what it found, and (when watched) whose keys changed. */
  | { t: 'judged'; exchanges: number; bytes: number; findings: Finding[]; changed?: Array<[string, number]> }
  | { t: 'results'; id: number; results: JudgeResults }
  | { t: 'report'; id: number; label: string; report: JudgedKeyReport | undefined };

/** About what an exchange weighs on its way to the worker: its bodies as captured, and a little for the rest. */
export function weightOf(exchange: Exchange): number {
  return 1_024 + (exchange.request.body?.length ?? 0) + (exchange.response?.body.length ?? 0);
}
