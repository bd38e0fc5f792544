// The judging proxy: forwards every request to the target (forward.ts), answers the faults a client
// asks for with --faults (faults.ts), and hands each finished exchange to the judge in the order the
// requests arrived, the judge in this thread or in a worker (judging.ts). An exchange lasts at most
// --timeout; stop() ends within a bounded time. Built here, started by its caller, like the reference
// server's createServer.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_SPEC_PATH, type Clock, type Contract, type Exchange } from '../judge/index.ts';
import type { TlsSettings } from '../lib/tls.ts';
import { KnownKeys, redactExchange, secretsOf } from '../spec/rules/redact.js';
import { flatHeaders } from '../lib/http-message.ts';
import { Cut, Cutter, cutShort, type Verdict } from './cutter.ts';
import { Deadlines } from './deadlines.ts';
import { captureRequestBody, exchangeRecorder } from './exchange-record.ts';
import { createForwarder, type OneForward } from './forward.ts';
import { answerRequestedFault } from './faults.ts';
import { keyOf, originForm } from './request.ts';
import { TrafficJudge, type JudgeLimits } from './judge.ts';
import { inlineJudging, type Judging, type JudgingMode } from './judging.ts';
import { Turns } from './turns.ts';
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
   * headers and bodies are redacted, made only when asked (the HAR asks; counting does not).
   */
  onExchange?: (exchange: Exchange, redacted: () => Exchange) => void;
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

/** Tells the worker's judge of each secret the proxy learns as it is learnt (the inline judge shares the ring). */
class TellingKeys extends KnownKeys {
  tell: (secret: string) => void = () => {};

  override add(key: string | undefined | null): void {
    if (typeof key === 'string' && key !== '' && !this._fixed.has(key) && !this._learned.has(key)) this.tell(key);
    super.add(key);
  }
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
  const keys = new TellingKeys(given);
  // A judge in a worker redacts what it is sent there; the HAR (onExchange) redacts its own copy.
  const record = exchangeRecorder(options.contract, target.origin, keys, options.judging !== 'worker');
  const how = {
    dateHeader: options.dateHeader ?? true,
    ...(options.clockToleranceSeconds !== undefined ? { tolerances: { clockSkewSeconds: options.clockToleranceSeconds } } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  let judge: TrafficJudge | undefined;
  let judging: Judging;
  if (options.judging === 'worker') {
    judging = workerJudging({
      ...how,
      specPath: options.specPath ?? DEFAULT_SPEC_PATH,
      keys: given,
      lastWindows: options.faults === true,
      ...(options.maxQueued !== undefined ? { maxQueued: options.maxQueued } : {}),
      ...(options.onFinding ? { onFinding: options.onFinding } : {}),
    });
    keys.tell = (secret) => judging.learnt(secret);
  } else {
    judge = new TrafficJudge({ contract: options.contract, ...how, ...(options.onFinding ? { onFinding: options.onFinding } : {}), keys });
    judging = inlineJudging(judge);
  }
  // Exchanges are judged in the order their requests arrived, even when answers come back out of order.
  const turns = new Turns();
  const deadlines = new Deadlines(options.timeoutMs);
  const pending = new Set<Promise<void>>();
  /** Each exchange under way, by the function that cuts it short. */
  const inFlight = new Set<(cut: Cut) => void>();

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

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sentAt = clock.now();
    const path = originForm(req.url ?? '/');
    if (path === undefined) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
      res.end('adoption-kit proxy: the request target must be a path (or an absolute URL, whose path is used)\n');
      return;
    }
    const url = `${target.origin}${prefix}${path}`;
    const incoming = flatHeaders(req);
    const key = keyOf(incoming.authorization);
    // Every secret its headers carry is learnt as it is recorded (exchange-record.ts).
    // Its seq is its turn in the judge's order: from here, the finally below always takes that turn.
    const exchange = record(req, url, incoming, sentAt);
    const cutter = new Cutter();
    const cut = (reason: Cut) => cutter.cut(reason);
    let verdict: Verdict = 'abandon';
    const one = { url, incoming, key, exchange, cutter, reachedTarget: false };
    try {
      judging.arrived({ exchange, key });
      inFlight.add(cut);
      deadlines.add(cutter, () => cut(new Cut(`no complete exchange within --timeout ${options.timeoutMs} ms`, 'ETIMEDOUT')));
      // A client that goes away takes its exchange with it: an endless answer is not read for nobody.
      res.once('close', () => {
        if (!res.writableFinished) cut(new Cut('the client closed the connection before the answer ended', 'ECLIENTGONE'));
      });
      verdict = await pass(req, res, one);
    } finally {
      deadlines.clear(cutter);
      inFlight.delete(cut);
      turns.done(exchange.seq, () => {
        try {
          if (verdict === 'abandon') judging.abandoned({ exchange, key, reachedTarget: one.reachedTarget });
          else judging.observe({ exchange, key, ...(verdict === 'injected' ? { injected: true } : {}) });
        } finally {
          // The judge reads the bodies as they came; what leaves for the HAR has the keys out of them too.
          options.onExchange?.(exchange, () => redactExchange(exchange, keys));
        }
      });
    }
  }

  /** Answers a fault (with --faults) or forwards the request, and says how the exchange is to be judged. */
  async function pass(req: IncomingMessage, res: ServerResponse, one: OneForward & { key: string | undefined; reachedTarget: boolean }): Promise<Verdict> {
    const body = captureRequestBody(req, one.exchange, captureBytes);
    if (options.faults) {
      const lastWindow = () => judging.lastWindow(one.key);
      const answered = await answerRequestedFault({ req, res, ...one, bodyEnded: body.ended, lastWindow, clock, sleep });
      if (answered === 'injected') return answered;
      if (answered) return cutShort(res, one.exchange, answered, clock.now());
    }
    // From here the target may decide it (and its limiter count it), whatever becomes of the exchange.
    one.reachedTarget = true;
    return forwarder.forward(req, res, one);
  }

  const server: Server = createHttpServer((req, res) => {
    if (options.own?.(req, res)) return;
    const work = handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(`adoption-kit proxy: ${(error as Error).message}\n`);
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
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
      const finished = Promise.all([...pending]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([finished, new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
      clearTimeout(timer);
      for (const cut of [...inFlight]) cut(new Cut('the proxy stopped before the exchange ended', 'ECUTSHORT'));
      // Every connection goes with the cuts, not after their exchanges are judged: under a flood
      // (issue 42) a 502 written to each of 1,200 clients still sending their bodies cost 0.5 s more.
      server.closeAllConnections();
      await finished;
      await closed;
      forwarder.destroy();
    },
  };
}
