// Where the proxy's judge runs, behind one small contract: in the proxy's own thread (inline: a
// TrafficJudge read directly, what tests on a manual clock and code that reads `proxy.judge` use), or in
// a worker thread (judge-worker.ts), so that forwarding costs what forwarding costs and judging runs
// beside it. The proxy hands either one each exchange in the order its request arrived; what reads the
// judge (the faults' last window, the live view, the reports at exit) reads it through this contract.
import type { LastWindow } from './faults.ts';
import type { Finding, KeyReport, SummarisedKeys } from './findings.ts';
import type { Observed, TrafficJudge } from './judge.ts';
import type { LiveJudge } from './live.ts';

export type JudgingMode = 'inline' | 'worker';

/** What the judge says at the end (or now): the reports the CLI writes at exit. */
export interface JudgeResults {
  keys: KeyReport[];
  summarised: SummarisedKeys | undefined;
  /** The first findings, redacted with every key known now. */
  findings: Finding[];
  /** Every finding told, by level. */
  counts: { must: number; should: number };
  /**
   * Exchanges that passed through the proxy and were not judged: the worker fell behind past its
   * queue's bound. Their keys' windows are judged as after a lost answer (Remaining uncertain).
   */
  unjudged: number;
}

/** The judge as the proxy feeds and reads it, wherever it runs. */
export interface Judging extends LiveJudge {
  readonly mode: JudgingMode;
  /** A request arrived (its place among its key's decisions is held until it is judged). */
  arrived(observed: Pick<Observed, 'exchange' | 'key'>): void;
  /** An exchange finished: judged, in the order the requests arrived. */
  observe(observed: Observed): void;
  /** An exchange that will never be judged (cut by its client or the stop). */
  abandoned(observed: Pick<Observed, 'exchange' | 'key'> & { reachedTarget: boolean }): void;
  /** The window the key's last answer from the server named (for an injected 429), read at once. */
  lastWindow(key: string | undefined): LastWindow;
  /** What the judge says once everything handed to it so far is judged. */
  results(): Promise<JudgeResults>;
  /** Ends the judge's thread (inline: nothing to end); results() still answers. */
  close(): Promise<void>;
}

/** The judge in this thread: every read answered at once. */
export function inlineJudging(judge: TrafficJudge): Judging & { judge: TrafficJudge } {
  return {
    mode: 'inline',
    judge,
    arrived: (o) => judge.arrived(o),
    observe: (o) => judge.observe(o),
    abandoned: (o) => judge.abandoned(o),
    lastWindow: (key) => judge.lastWindow(key),
    subscribe: (listener) => judge.subscribe(listener),
    keyReport: (label) => judge.keyReport(label),
    results: () => Promise.resolve(resultsOf(judge, 0)),
    close: () => Promise.resolve(),
  };
}

/** A judge's results now; `unjudged` as its feeder counted them. */
export function resultsOf(judge: TrafficJudge, unjudged: number): JudgeResults {
  return { keys: judge.report(), summarised: judge.summarised(), findings: judge.findings, counts: { ...judge.told }, unjudged };
}
