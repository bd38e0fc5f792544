// The judging proxy: forwards every request to the target (forward.ts), answers the faults a client
// asks for with --faults (faults.ts), and hands each finished exchange to the judge in the order the
// requests arrived, the judge in this thread or in a worker (judging.ts). An exchange lasts at most
// --timeout; stop() ends within a bounded time. Built here, started by its caller, like the reference
// server's createServer.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ResourceLimits } from 'node:worker_threads';
import { DEFAULT_SPEC_PATH, type Clock, type Contract, type Exchange } from '../judge/index.ts';
import type { TlsSettings } from '../lib/tls.ts';
import { KnownKeys, redactExchange, secretsOf } from '../spec/rules/redact.js';
import { flatHeaders } from '../lib/http-message.ts';
import { Cut, cutShort, type Cutter, type Verdict } from './cutter.ts';
import { ExchangeRecorder, finishedOf } from './exchange-record.ts';
import { createForwarder } from './forward.ts';
import { answerRequestedFault } from './faults.ts';
import { ChunkCapture, RawExchange, type RawFeed } from './raw-exchange.ts';
import { keyOf, originForm } from './request.ts';
import { TrafficJudge, type JudgeLimits } from './judge.ts';
import { inlineJudging, type Judging, type JudgingMode } from './judging.ts';
import { UnderWay } from './under-way.ts';
import { workerJudging } from './worker-judging.ts';
import { type Finding } from './findings.ts';

export interface ProxyOptions {
  /** Where requests go: an origin, optionally with a path prefix that is put before every request's path. */
  target: string;
  host: string;
  port: number;
  contract: Contract;
  /** Sent with every forwarded request (--header), e.g. for a gateway in front of the target. */
  headers?: Record<string, string>;
  tls?: TlsSettings;
  /** The longest an exchange may last, from the request's arrival to the end of its answer. */
  timeoutMs: number;
  /** How many bytes of each body are kept for judging (--capture); the rest streams through unseen. */
  captureBytes?: number;
  /** Answer Prefer: code=429|500|503 in the server's place, and hold a request for Prefer: delay=<ms>. */
  faults?: boolean;
  clock?: Clock;
  /** Whether a response's Date header is the server's clock (false for a test server on a manual clock). */
  dateHeader?: boolean;
  clockToleranceSeconds?: number;
  /** How much the judge keeps (keys with full state, exchanges per key). */
  limits?: Partial<JudgeLimits>;
  onFinding?: (finding: Finding) => void;
  /** Keys to redact besides those the proxy learns (every bearer key and secret-named header value it sees, and --header's). */
  keys?: readonly string[];
  /**
   * Every finished exchange as it is handed to the judge (bodies as captured; URL and headers redacted
   * when the judge runs in this thread, as they came when it runs in a worker), with the copy whose URL,
   * headers and bodies are redacted, made only when asked (the HAR asks). With a judge in a worker, asking
   * for it makes this thread build each exchange (and learn each key) as well: count with onFinished.
   */
  onExchange?: (exchange: Exchange, redacted: () => Exchange) => void;
  /** Every finished exchange, in turn, by the error it ended with (none for an answer that came whole): costs nothing to build. */
  onFinished?: (error: string | undefined) => void;
  /** Requests the proxy answers itself instead of forwarding (the live view); true when it did. */
  own?: (req: IncomingMessage, res: ServerResponse) => boolean;
  /** Waits that many ms (Prefer: delay); tests pass one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
  /**
   * Where the judge runs: in this thread (the default: `proxy.judge` is read directly), or in a worker
   * thread, beside the forwarding (the command line's default; read it through `proxy.judging`).
   */
  judging?: JudgingMode;
  /** The description the worker loads (the one `contract` was loaded from); the kit's own by default. */
  specPath?: string;
  /** A worker's queue: exchanges not yet judged, at most; past it they are counted as not judged. */
  maxQueued?: number;
  /** A judge in a worker failed or stopped: told once, at once; the proxy forwards on and judges nothing more. */
  onJudgeFailure?: (error: Error) => void;
  /** Over a judge worker's own resource limits (tests make it run out of memory). */
  judgeResourceLimits?: ResourceLimits;
}

/** A proxy whose judge runs wherever it was asked to. */
export interface JudgingProxy {
  /** The judge, wherever it runs: the reports at exit, the live view, the faults' last window. */
  readonly judging: Judging;
  /** Starts listening; the URL clients use instead of the target's. */
  start(): Promise<string>;
  /**
   * Stops listening; exchanges under way get `graceMs` (default 2 s) to finish, then are cut short
   * (judged on what had come, or counted as cut when no answer had started), and the connections close.
   */
  stop(graceMs?: number): Promise<void>;
}

export const DEFAULT_CAPTURE_BYTES = 65_536;
export const DEFAULT_STOP_GRACE_MS = 2_000;

/** A proxy whose judge runs in this thread (the default), read directly. */
export interface TrafficProxy extends JudgingProxy {
  readonly judge: TrafficJudge;
}

export function createTrafficProxy(options: ProxyOptions & { judging?: 'inline' }): TrafficProxy;
export function createTrafficProxy(options: ProxyOptions): JudgingProxy;
export function createTrafficProxy(options: ProxyOptions): JudgingProxy {
  const clock = options.clock ?? { now: () => Date.now() };
  const captureBytes = options.captureBytes ?? DEFAULT_CAPTURE_BYTES;
  const target = new URL(options.target);
  const prefix = target.pathname.replace(/\/+$/, '');
  const forwarder = createForwarder({ target, tls: options.tls, headers: options.headers, captureBytes, clock });
  // Every key the proxy is told of or sees, redacted wherever it appears in what the proxy keeps and shows.
  const given = [...secretsOf(options.headers ?? {}), ...(options.keys ?? [])];
  const keys = new KnownKeys(given);
  const how = {
    dateHeader: options.dateHeader ?? true,
    ...(options.clockToleranceSeconds !== undefined ? { tolerances: { clockSkewSeconds: options.clockToleranceSeconds } } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  let judge: TrafficJudge | undefined;
  let judging: Judging;
  let feed: RawFeed;
  if (options.judging === 'worker') {
    // The worker builds each exchange from what this thread posts, learns the keys and redacts.
    const worker = workerJudging({
      ...how,
      specPath: options.specPath ?? DEFAULT_SPEC_PATH,
      origin: target.origin,
      keys: given,
      lastWindows: options.faults === true,
      ...(options.maxQueued !== undefined ? { maxQueued: options.maxQueued } : {}),
      ...(options.onFinding ? { onFinding: options.onFinding } : {}),
      ...(options.onJudgeFailure ? { onFailure: options.onJudgeFailure } : {}),
      ...(options.judgeResourceLimits ? { resourceLimits: options.judgeResourceLimits } : {}),
    });
    judging = worker;
    // The HAR (onExchange) redacts its own copy, built here: its keys learnt here as the requests arrive.
    feed = options.onExchange ? recordingFeed(new ExchangeRecorder(options.contract, target.origin, keys, false), worker) : worker;
  } else {
    judge = new TrafficJudge({ contract: options.contract, ...how, ...(options.onFinding ? { onFinding: options.onFinding } : {}), keys });
    judging = inlineJudging(judge);
    feed = inlineFeed(new ExchangeRecorder(options.contract, target.origin, keys), judging);
  }
  /** Requests being handled, and what to call when none is (stop() waits for it). */
  let handling = 0;
  let idle: (() => void) | undefined;
  const handled = () => {
    if (--handling === 0) idle?.();
  };

  function sleep(ms: number, cutter: Cutter): Promise<void> {
    if (options.sleep) return options.sleep(ms);
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      cutter.onCut(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  let seq = 0;
  /** Each exchange under way, in arrival order: cut at --timeout, cut at stop, handed to the judge in that order. */
  const underWay = new UnderWay<RawExchange>(options.timeoutMs, {
    expire: (raw) => raw.cut(new Cut(`no complete exchange within --timeout ${options.timeoutMs} ms`, 'ETIMEDOUT')),
    handOn: (raw) => {
      try {
        feed.finishedRaw(raw, raw.verdict!);
      } finally {
        options.onFinished?.(raw.error);
        // The judge reads the bodies as they came; what leaves for the HAR has the keys out of them too.
        const recorded = raw.recorded;
        if (options.onExchange && recorded) options.onExchange(recorded.exchange, () => redactExchange(recorded.exchange, keys));
      }
    },
  });

  /** The exchange is over (once): it goes to the judge when every earlier one has. */
  function finish(raw: RawExchange, verdict: Verdict): void {
    if (raw.verdict !== undefined) return;
    raw.verdict = verdict;
    raw.release();
    underWay.finished(raw);
    handled();
  }

  /** The proxy's own failure on one request (a bug): 500, and the exchange abandoned. */
  function failed(raw: RawExchange | undefined, res: ServerResponse, error: unknown): void {
    if (raw) finish(raw, 'abandon');
    if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(`adoption-kit proxy: ${(error as Error).message}\n`);
  }

  // Callbacks, not a chain of promises: forwarding the request is the whole of what this thread must do.
  function handle(req: IncomingMessage, res: ServerResponse): void {
    const sentAt = clock.now();
    const path = originForm(req.url ?? '/');
    if (path === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('adoption-kit proxy: the request target must be a path (or an absolute URL, whose path is used)\n');
      return;
    }
    // Its place in the judge's order is taken now: from here, finish() always ends it.
    const raw = new RawExchange(++seq, sentAt, req.method ?? 'GET', `${prefix}${path}`, req.rawHeaders);
    handling++;
    underWay.arrived(raw);
    try {
      if (options.faults) raw.key = keyOf(req.headers.authorization);
      feed.arrivedRaw(raw);
      // A client that goes away takes its exchange with it: an endless answer is not read for nobody.
      res.on('close', () => {
        if (!res.writableFinished) raw.cut(new Cut('the client closed the connection before the answer ended', 'ECLIENTGONE'));
      });
      const body = captureRequestBody(req, raw, captureBytes);
      if (options.faults) {
        passFault(req, res, raw, body).catch((error: unknown) => failed(raw, res, error));
        return;
      }
      // From here the target may decide it (and its limiter count it), whatever becomes of the exchange.
      raw.reachedTarget = true;
      forwarder.forward(req, res, raw, finish);
    } catch (error) {
      failed(raw, res, error);
    }
  }

  /** Answers a fault the request asks for (with --faults), or forwards it. */
  async function passFault(req: IncomingMessage, res: ServerResponse, raw: RawExchange, body: Promise<void>): Promise<void> {
    const lastWindow = () => judging.lastWindow(raw.key);
    const incoming = flatHeaders(req);
    const answered = await answerRequestedFault({ req, res, incoming, exchange: raw, bodyEnded: body, lastWindow, clock, sleep });
    if (answered === 'injected') return finish(raw, answered);
    if (answered) return finish(raw, cutShort(res, raw, answered, clock.now()));
    raw.reachedTarget = true;
    forwarder.forward(req, res, raw, finish);
  }

  const server: Server = createHttpServer((req, res) => {
    if (options.own?.(req, res)) return;
    handle(req, res);
  });

  return {
    ...(judge ? { judge } : {}),
    judging,
    start: () =>
      new Promise<string>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port, options.host, () => {
          const { port } = server.address() as AddressInfo;
          resolve(`http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`);
        });
      }),
    stop: async (graceMs = DEFAULT_STOP_GRACE_MS) => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const finished = handling === 0 ? Promise.resolve() : new Promise<void>((resolve) => (idle = resolve));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const raw of underWay.openOnes()) raw.cut(new Cut('the proxy stopped before the exchange ended', 'ECUTSHORT'));
      // Every connection goes with the cuts, not after their exchanges are judged: under a flood
      // (issue 42) a 502 written to each of 1,200 clients still sending their bodies cost 0.5 s more.
      server.closeAllConnections();
      await finished;
      await closed;
      forwarder.destroy();
    },
  };
}

/**
 * The request body as it streams in: captured up to `captureBytes` on the exchange, which marks when it
 * has ended. A request that names no body (neither Content-Length nor Transfer-Encoding: RFC 9112 §6.3)
 * has none to capture. Resolves when it has ended.
 */
function captureRequestBody(req: IncomingMessage, raw: RawExchange, captureBytes: number): Promise<void> {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) {
    raw.requestEnded = true;
    return NO_BODY;
  }
  const capture = new ChunkCapture(captureBytes);
  raw.requestBody = capture;
  req.on('data', (chunk: Buffer) => capture.add(chunk));
  // Held until it is forwarded (pipe resumes it) or dropped (resume): flowing now, the body would
  // stream into the capture alone while Prefer: delay holds the request, and never reach the target.
  req.pause();
  return new Promise<void>((resolve) => {
    // 'close' follows 'end' on every request that ends.
    const finish = () => {
      raw.requestEnded = true;
      resolve();
    };
    req.once('end', finish);
    req.once('close', finish);
  });
}

const NO_BODY = Promise.resolve();

/** An inline judge's feed: each exchange built in this thread, its URL and headers redacted as it arrives. */
function inlineFeed(recorder: ExchangeRecorder, judging: Judging): RawFeed {
  return {
    arrivedRaw: (raw) => {
      raw.recorded = recorder.arrived(raw.seq, raw.sentAt, raw.method, raw.path, raw.requestRaw);
      judging.arrived(raw.recorded);
    },
    finishedRaw: (raw, verdict) => {
      const recorded = raw.recorded;
      // A request that could not be recorded was never handed to the judge.
      if (!recorded) return;
      if (!raw.requestEnded) raw.requestBody = undefined;
      recorder.finished(recorded.exchange, finishedOf(raw));
      if (verdict === 'abandon') judging.abandoned({ ...recorded, reachedTarget: raw.reachedTarget });
      else judging.observe({ ...recorded, ...(verdict === 'injected' ? { injected: true } : {}) });
    },
  };
}

/** A worker's feed that also builds each exchange here, as it came, for onExchange (the HAR). */
function recordingFeed(recorder: ExchangeRecorder, worker: RawFeed): RawFeed {
  return {
    arrivedRaw: (raw) => {
      raw.recorded = recorder.arrived(raw.seq, raw.sentAt, raw.method, raw.path, raw.requestRaw);
      worker.arrivedRaw(raw);
    },
    finishedRaw: (raw, verdict) => {
      worker.finishedRaw(raw, verdict);
      if (raw.recorded) recorder.finished(raw.recorded.exchange, finishedOf(raw));
    },
  };
}
