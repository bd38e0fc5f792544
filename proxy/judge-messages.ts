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
  /** The target's origin, put before each recorded request's path (the proxy's raw records name only the path). */
  origin?: string;
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

/**
 * A batch as the proxy's thread posts it: `items` in turn, each a JudgeOp object or one of the proxy's
 * raw records (raw-exchange.ts) as a tag and its fields; the captured bodies of the batch's records in
 * `bytes`, one buffer transferred with the message (no copy), each body named by its offset and length.
 * No object graph per exchange is cloned, and the forwarding thread builds none.
 */
export interface JudgeBatch {
  items: unknown[];
  bytes: ArrayBuffer | undefined;
}

/** A request arrived: ARRIVED, seq, sentAt, method, path (after the origin), the raw headers. */
export const ARRIVED = 0;
/**
 * An exchange finished: FINISHED, seq, how (HOW_*), reachedTarget, receivedAt, error (or null), tlsError,
 * status (0: no answer), the answer's raw headers (or null), then per body (the answer's, the request's)
 * its offset in `bytes` (-1: none), its kept length, every byte counted, and (the answer's) whether it was cut.
 */
export const FINISHED = 1;
export const FINISHED_FIELDS = 16;
export const ARRIVED_FIELDS = 6;
export const HOW_OBSERVE = 0;
export const HOW_INJECTED = 1;
export const HOW_ABANDONED = 2;
/** Not judged: the worker was too far behind; only its place and its key are told. */
export const HOW_LOST = 3;

/** About what an exchange weighs on its way to the worker: its bodies as captured, and a little for the rest. */
export function weightOf(exchange: Exchange): number {
  return 1_024 + (exchange.request.body?.length ?? 0) + (exchange.response?.body.length ?? 0);
}

/**
 * What the judge reads of a request as it arrives (its place among its key's requests, and whether it
 * may be a create), copied now: the proxy goes on filling the exchange before the batch leaves. Of its
 * headers only Prefer, which makes an answer not the store's (judge/history/operations.ts).
 */
export function arrival(exchange: Exchange): Exchange {
  const { seq, sentAt, receivedAt, operationId, purpose, outside, request } = exchange;
  const prefer = request.headers.prefer;
  const arrived: Exchange = {
    seq,
    sentAt,
    receivedAt,
    operationId,
    purpose,
    request: { method: request.method, url: request.url, headers: prefer === undefined ? {} : { prefer } },
  };
  if (outside !== undefined) arrived.outside = outside;
  return arrived;
}
