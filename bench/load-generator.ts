// What every load generator (wrk, autocannon) is asked and answers.
import type { RoundMeasure } from './stats.ts';

export interface LoadRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | undefined;
  connections: number;
  /** Whole seconds. */
  duration: number;
  /**
   * Stop early once this many expected-status responses arrived (a warm-up that must not grow a store
   * much). Requests already in flight on other connections may still be answered and counted.
   */
  stopAfterOk?: number | undefined;
  expectStatus: number;
  /** Read the id of every created pet from the 201 bodies (the create cases' durability check). */
  collectIds?: boolean | undefined;
}

export interface LoadMeasure extends Pick<RoundMeasure, 'ok' | 'unexpected' | 'errors' | 'timeouts' | 'seconds' | 'bytes' | 'latency' | 'generatorCpuSeconds'> {
  /** The ids of the pets acknowledged with 201, when `collectIds` was asked. */
  ids?: number[] | undefined;
}

export interface LoadGenerator {
  readonly name: 'wrk' | 'autocannon';
  readonly version: string;
  /** Name, version and how it runs, for the report. */
  readonly description: string;
  run(request: LoadRequest): Promise<LoadMeasure>;
  close(): Promise<void>;
}
