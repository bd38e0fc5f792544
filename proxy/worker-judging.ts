// The proxy's judge in a worker thread, seen from the proxy's thread: each exchange posted once it is
// finished (already captured, its keys learnt), posted in batches (every 10 ms at most); findings come
// back with each batch's acknowledgement, reports when asked. The queue to the worker is bounded: past
// `maxQueued` exchanges not yet acknowledged, an exchange is not judged, only counted (and its key's
// window told that an answer was lost), and the results say how many. A worker that fails or stops
// before close() judges nothing more: the proxy forwards on, posts nothing, and the results reject.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Exchange } from '../judge/index.ts';
import { Listeners } from '../lib/live/source.ts';
import { readSnapshot } from '../spec/rules/snapshot.js';
import type { LastWindow } from './faults.ts';
import type { Finding } from './findings.ts';
import { flatRawHeaders } from '../lib/http-message.ts';
import {
  arrival,
  ARRIVED,
  FINISHED,
  HOW_ABANDONED,
  HOW_INJECTED,
  HOW_LOST,
  HOW_OBSERVE,
  weightOf,
  type JudgeBatch,
  type JudgeOp,
  type JudgedKeyReport,
  type WorkerReply,
  type WorkerSetup,
} from './judge-messages.ts';
import type { ChunkCapture, RawExchange, RawFeed } from './raw-exchange.ts';
import type { JudgeResults, Judging } from './judging.ts';
import { WorkerReports } from './worker-reports.ts';

/** Exchanges posted to the worker and not yet judged, at most; past it they are counted as not judged. */
export const DEFAULT_MAX_QUEUED = 10_000;
/** What those exchanges may weigh (their captured bodies) at most: 10,000 answers of 64 KiB would be 640 MB. */
export const MAX_QUEUED_BYTES = 64 * 1024 * 1024;

export interface WorkerJudgingOptions extends WorkerSetup {
  maxQueued?: number;
  onFinding?: (finding: Finding) => void;
  /** Told once, at once, when the worker failed or stopped before close(): nothing is judged from then on. */
  onFailure?: (error: Error) => void;
  /** Keep the window each key's last answer named (read by --faults' injected 429s). */
  lastWindows?: boolean;
  /** Over the worker's own limits (WORKER_LIMITS); tests make it run out of memory with a small old generation. */
  resourceLimits?: ResourceLimits;
}

/** How long exchanges wait to be posted together, and how many at most. */
const BATCH_MS = 10;
const BATCH_OPS = 512;

/** Keys whose last window is kept for --faults (the judge keeps --max-keys in full, 1,000 by default). */
const MAX_WINDOWS = 10_000;

/**
 * The worker's young generation, at most (V8's default lets it grow to 48 MB, three 16 MB semi-spaces):
 * what the judge keeps is bounded, what it makes of a batch dies young, and a young generation growing
 * to its default under load was the proxy's RSS growing from round to round of the benchmark.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 12 };

/** The worker's module: compiled beside this one, or (run from source, as the tests are) TypeScript loaded through tsx. */
function startWorker(setup: WorkerSetup, limits: ResourceLimits | undefined): Worker {
  const source = import.meta.url.endsWith('.ts');
  const module = new URL(source ? './judge-worker.ts' : './judge-worker.js', import.meta.url);
  const resourceLimits = { ...WORKER_LIMITS, ...limits };
  if (!source) return new Worker(module, { workerData: setup, resourceLimits });
  // Node 20 does not hand the parent's module hooks to a worker: tsx is registered in it first.
  const tsx = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(module.href)}); });`;
  return new Worker(boot, { eval: true, workerData: setup, resourceLimits });
}

export function workerJudging(options: WorkerJudgingOptions): Judging & RawFeed {
  const { maxQueued = DEFAULT_MAX_QUEUED, onFinding, onFailure, lastWindows: keepWindows, resourceLimits, ...setup } = options;
  const worker = startWorker(setup, resourceLimits);
  let flushing = false;
  /** Exchanges posted and not yet acknowledged. */
  let queued = 0;
  let queuedBytes = 0;
  let unjudged = 0;
  let failure: Error | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: (reply: WorkerReply) => void; reject: (error: Error) => void }>();
  let closing = false;
  const listeners = new Listeners();
  let watching = false;
  const lastWindows = new Map<string, LastWindow>();
  // A report the failed judge cannot give is no report: the view reads the key as gone rather than waiting.
  const reports = new WorkerReports((label) =>
    ask({ op: 'report', id: 0, label }).catch((): WorkerReply => ({ t: 'report', id: 0, label, report: undefined })),
  );

  let timer: NodeJS.Timeout | undefined;
  /** The batch's items (JudgeBatch), and the bodies whose bytes go with it, each with where its offset goes. */
  let items: unknown[] = [];
  let bodies: Array<ChunkCapture | number> = [];
  let bodyBytes = 0;
  const flush = () => {
    flushing = false;
    clearTimeout(timer);
    if (items.length === 0) return;
    let bytes: ArrayBuffer | undefined;
    if (bodyBytes > 0) {
      // One buffer for every body of the batch, handed over with the message rather than copied by it.
      const all = Buffer.allocUnsafeSlow(bodyBytes);
      let at = 0;
      for (let i = 0; i < bodies.length; i += 2) {
        const capture = bodies[i] as ChunkCapture;
        items[bodies[i + 1] as number] = at;
        for (const chunk of capture.chunks) {
          all.set(chunk, at);
          at += chunk.length;
        }
      }
      bytes = all.buffer as ArrayBuffer;
    }
    const batch: JudgeBatch = { items, bytes };
    worker.postMessage(batch, bytes ? [bytes] : []);
    items = [];
    bodies = [];
    bodyBytes = 0;
    ops = 0;
  };
  // A message costs the forwarding thread far more than the exchanges in it (the worker is woken for
  // each): posted every BATCH_MS, or at BATCH_OPS, or at once when an answer is awaited.
  let ops = 0;
  const posted = () => {
    if (++ops >= BATCH_OPS) {
      ops = 0;
      flush();
    } else if (!flushing) {
      flushing = true;
      timer = setTimeout(flush, BATCH_MS);
    }
  };
  const post = (op: JudgeOp) => {
    if (failure) return;
    items.push(op);
    posted();
  };
  /** A body's place in the batch: its offset is written at `items.length` once the batch's buffer is filled. */
  const body = (capture: ChunkCapture | undefined) => {
    if (!capture || capture.kept === 0) {
      items.push(-1, 0, capture?.total ?? 0);
      return;
    }
    bodies.push(capture, items.length);
    bodyBytes += capture.kept;
    items.push(-1, capture.kept, capture.total);
  };
  // The worker holds the process open only while an answer is awaited from it.
  worker.unref();
  function ask(op: Extract<JudgeOp, { id: number }>): Promise<WorkerReply> {
    const id = ++nextId;
    if (failure) return Promise.reject(failure);
    const answered = new Promise<WorkerReply>((resolve, reject) => waiting.set(id, { resolve, reject }));
    if (waiting.size === 1) worker.ref();
    post({ ...op, id });
    flush();
    return answered;
  }

  worker.on('message', (reply: WorkerReply) => {
    if (reply.t === 'judged') {
      queued -= reply.exchanges;
      queuedBytes -= reply.bytes;
      for (const finding of reply.findings) onFinding?.(finding);
      for (const [label, count] of reply.changed ?? []) {
        reports.changed(label);
        for (let i = 0; i < count; i++) listeners.tell(label);
      }
    } else if (reply.t === 'results' || reply.t === 'report') {
      const answered = waiting.get(reply.id);
      waiting.delete(reply.id);
      if (waiting.size === 0 && !closing) worker.unref();
      answered?.resolve(reply);
    } else if (reply.t === 'failed') {
      // The judge could not start (the description unreadable).
      fail(new Error(`the proxy's judge failed: ${reply.error}`));
    }
  });
  // A judge that throws or runs out of memory is the kit's failure (exit 3), never a verdict; thrown here,
  // it would end the proxy and every connection its clients have open.
  worker.on('error', (error: Error & { code?: string }) => {
    fail(new Error(`the proxy's judge failed: ${error.code ? `${error.code}: ` : ''}${error.message}`, { cause: error }));
  });
  worker.on('exit', (code) => {
    if (!closing) fail(new Error(`the proxy's judge stopped (exit code ${code})`));
  });
  /**
   * The first failure, kept: the batch being gathered is dropped and nothing more is posted (the feed
   * costs next to nothing from here), what awaits the worker fails rather than waits forever, and
   * results() rejects with it. Told once.
   */
  function fail(error: Error): void {
    if (failure) return;
    failure = error;
    clearTimeout(timer);
    flushing = false;
    items = [];
    bodies = [];
    bodyBytes = 0;
    ops = 0;
    for (const { reject } of waiting.values()) reject(failure);
    waiting.clear();
    onFailure?.(failure);
  }
  /** An exchange finished after the judge failed: counted as not judged when the target may have decided it. */
  const notJudged = (reachedTarget: boolean) => {
    if (reachedTarget) unjudged++;
  };

  const full = () => queued >= maxQueued || queuedBytes >= MAX_QUEUED_BYTES;
  const take = (exchange: Exchange) => {
    queued++;
    queuedBytes += weightOf(exchange);
  };

  /** An exchange the worker is too far behind to take: its key's window hears that an answer was lost. */
  const lost = (exchange: Exchange, key: string | undefined, reachedTarget = true) => {
    // One that never reached the target is judged by nobody in either thread: not counted.
    if (reachedTarget) unjudged++;
    const { seq, sentAt, receivedAt, operationId, purpose, outside } = exchange;
    const bare: Exchange = {
      seq,
      sentAt,
      receivedAt,
      operationId,
      purpose,
      request: { method: exchange.request.method, url: exchange.request.url, headers: {} },
    };
    if (outside) bare.outside = outside;
    bare.error = 'not judged: the judge fell behind';
    post({ op: 'abandoned', exchange: bare, key, reachedTarget, lost: true });
  };

  return {
    mode: 'worker',
    arrivedRaw: (raw) => {
      if (failure) return;
      items.push(ARRIVED, raw.seq, raw.sentAt, raw.method, raw.path, raw.requestRaw);
      posted();
    },
    finishedRaw: (raw, verdict) => {
      // The judge reads a request body once it has ended; one still coming is not read.
      if (!raw.requestEnded) raw.requestBody = undefined;
      if (keepWindows && verdict === 'judge' && raw.responseRaw) rememberRawWindow(lastWindows, raw);
      if (failure) return notJudged(verdict !== 'abandon' || raw.reachedTarget);
      const abandon = verdict === 'abandon';
      const reachedTarget = abandon ? raw.reachedTarget : true;
      let how = abandon ? HOW_ABANDONED : verdict === 'injected' ? HOW_INJECTED : HOW_OBSERVE;
      if (full()) {
        // One that never reached the target is judged by nobody in either thread: not counted.
        if (reachedTarget) unjudged++;
        how = HOW_LOST;
      } else {
        queued++;
        queuedBytes += raw.weight;
      }
      const lostOne = how === HOW_LOST;
      const answered = !lostOne && raw.responseRaw !== undefined;
      items.push(
        FINISHED,
        raw.seq,
        how,
        reachedTarget,
        raw.receivedAt,
        raw.error ?? null,
        raw.tlsError,
        answered ? raw.status : 0,
        answered ? raw.responseRaw : null,
      );
      body(answered ? raw.responseBody : undefined);
      items.push(raw.responseCut);
      body(lostOne ? undefined : raw.requestKept);
      posted();
    },
    arrived: ({ exchange, key }) => {
      if (!failure) post({ op: 'arrived', exchange: arrival(exchange), key });
    },
    observe: ({ exchange, key, injected }) => {
      if (keepWindows && !injected && exchange.response) rememberWindow(lastWindows, key, exchange);
      if (failure) return notJudged(true);
      if (full()) return lost(exchange, key);
      take(exchange);
      post({ op: 'observe', exchange, key, injected: injected === true });
    },
    abandoned: ({ exchange, key, reachedTarget }) => {
      if (failure) return notJudged(reachedTarget);
      if (full()) return lost(exchange, key, reachedTarget);
      take(exchange);
      post({ op: 'abandoned', exchange, key, reachedTarget });
    },
    lastWindow: (key) => lastWindows.get(key ?? '') ?? {},
    subscribe: (listener) => {
      if (!watching) post({ op: 'watch' });
      watching = true;
      return listeners.add(listener);
    },
    keyReport: (label) => reports.get(label),
    pending: (label) => reports.pending(label),
    refreshed: (listener) => reports.subscribe(listener),
    results: async () => {
      if (failure) throw failure;
      const reply = await ask({ op: 'results', id: 0, unjudged });
      return (reply as Extract<WorkerReply, { t: 'results' }>).results;
    },
    close: async () => {
      closing = true;
      flush();
      // Held open until the worker is gone: an answer arriving meanwhile would otherwise unref the
      // worker, and a process with nothing else to do would end before close() returned.
      worker.ref();
      await worker.terminate();
    },
  };
}

/** rememberWindow of an answer as the forwarding thread kept it (read only with --faults). */
function rememberRawWindow(windows: Map<string, LastWindow>, raw: RawExchange): void {
  const { reset, limit } = readSnapshot({ status: raw.status, headers: flatRawHeaders(raw.responseRaw!), receivedAtMs: raw.receivedAt });
  remember(windows, raw.key, reset, limit);
}

/** The key's window as its last answer named it, kept as the inline judge keeps it. */
function rememberWindow(windows: Map<string, LastWindow>, key: string | undefined, exchange: Exchange): void {
  const { reset, limit } = readSnapshot({ status: exchange.response!.status, headers: exchange.response!.headers, receivedAtMs: exchange.receivedAt });
  remember(windows, key, reset, limit);
}

function remember(windows: Map<string, LastWindow>, key: string | undefined, reset: number | null, limit: number | null): void {
  if (reset === null && limit === null) return;
  const id = key ?? '';
  // Most recently answered last; as many keys as the judge keeps in full, and more.
  windows.delete(id);
  if (windows.size >= MAX_WINDOWS) windows.delete(windows.keys().next().value!);
  windows.set(id, { ...(reset !== null ? { reset } : {}), ...(limit !== null ? { limit } : {}) });
}

export type { JudgedKeyReport, JudgeResults };
