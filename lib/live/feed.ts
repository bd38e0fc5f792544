// Server-sent events of a LiveSource to any number of watchers: every key on connect (rendered as the
// socket drains), then each changed key rendered once per tick, the same text to all. A watcher that
// does not drain is dropped past maxBufferedBytes rather than memory growing; timers are unref'd and
// close() ends every stream, so neither the process nor the server's close() waits for a watcher.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { timelineSvg } from '../../spec/rules/timeline-svg.js';
import type { LiveKey, LiveSource } from './source.ts';

/** Schedules `run` after `ms`; the answer cancels it. Tests pass one they fire by hand. */
export type Timer = (run: () => void, ms: number) => () => void;

export interface LiveFeedOptions {
  source: LiveSource;
  /** The tick: changed keys are sent at most this often. */
  intervalMs?: number;
  /** A comment line this often keeps proxies and load balancers from closing an idle stream. */
  heartbeatMs?: number;
  /** A watcher with more than this many bytes of earlier events still waiting to be sent is dropped. */
  maxBufferedBytes?: number;
  /** The last requests of a key the picture draws: rendering is bounded however long a key has been seen. */
  maxPoints?: number;
  timer?: Timer;
}

/** One event of the feed: a key's summary (its timeline drawn as `svg`) and the source's now. */
export type LiveEvent = Omit<LiveKey, 'timeline'> & { atMs: number; svg: string };

export const DEFAULT_INTERVAL_MS = 300;
const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_POINTS = 500;
/** EventSource waits this long before it reconnects. */
const RETRY_MS = 2_000;

const realTimer: Timer = (run, ms) => {
  const handle = setTimeout(run, ms);
  handle.unref();
  return () => clearTimeout(handle);
};

/** JSON on one line: JSON.stringify escapes CR and LF; U+2028 and U+2029 too, for readers that split on them. */
function oneLine(value: unknown): string {
  return JSON.stringify(value).replace(/[\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** A key's event as the page reads it: one data line, one event, whatever its strings hold. */
export function keyEvent(key: LiveKey, atMs: number, maxPoints = DEFAULT_MAX_POINTS): string {
  const { timeline, ...summary } = key;
  const points = timeline.points.length > maxPoints ? timeline.points.slice(-maxPoints) : timeline.points;
  const svg = timelineSvg({
    key: timeline.key,
    points,
    title: points.length < timeline.points.length ? `Last ${points.length} requests of ${timeline.key}` : (timeline.title ?? `Requests of ${timeline.key}`),
  });
  const event: LiveEvent = { ...summary, atMs, svg };
  return `event: key\ndata: ${oneLine(event)}\n\n`;
}

export class LiveFeed {
  readonly #source: LiveSource;
  readonly #intervalMs: number;
  readonly #heartbeatMs: number;
  readonly #maxBuffered: number;
  readonly #maxPoints: number;
  readonly #timer: Timer;
  /** Each watcher, with the labels of the keys it has not been sent yet since it connected. */
  readonly #watchers = new Map<ServerResponse, string[]>();
  readonly #changed = new Set<string>();
  readonly #unsubscribe: () => void;
  #tick: (() => void) | null = null;
  #heartbeat: (() => void) | null = null;
  #closed = false;
  /** Watchers dropped because they did not read. */
  dropped = 0;

  constructor(options: LiveFeedOptions) {
    this.#source = options.source;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#maxPoints = options.maxPoints ?? DEFAULT_MAX_POINTS;
    this.#timer = options.timer ?? realTimer;
    this.#unsubscribe = this.#source.subscribe((label) => this.#changedKey(label));
  }

  get watchers(): number {
    return this.#watchers.size;
  }

  /** Streams the feed on `res` until the watcher goes away or the feed closes. */
  connect(req: IncomingMessage, res: ServerResponse): void {
    if (this.#closed) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', connection: 'close' });
      res.end('The live view is closed.\n');
      return;
    }
    // `connection: close`: ending the stream closes its socket, so no server waits on an idle keep-alive.
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
      connection: 'close',
    });
    req.socket.setNoDelay(true);
    const keys = this.#source.keys();
    this.#watchers.set(
      res,
      keys.map((k) => k.key),
    );
    res.on('close', () => this.#watchers.delete(res));
    res.on('drain', () => this.#catchUp(res));
    this.#write(res, `retry: ${RETRY_MS}\nevent: hello\ndata: ${oneLine({ keys: keys.length, atMs: this.#source.now() })}\n\n`);
    this.#catchUp(res);
    this.#beat();
  }

  /** The keys a new watcher is owed, each rendered when its socket can take more. */
  #catchUp(res: ServerResponse): void {
    const owed = this.#watchers.get(res);
    while (owed && owed.length > 0 && !res.writableNeedDrain && this.#watchers.has(res)) {
      const key = this.#source.key(owed.shift()!);
      if (key) this.#write(res, keyEvent(key, this.#source.now(), this.#maxPoints));
    }
  }

  #changedKey(label: string): void {
    if (this.#closed || this.#watchers.size === 0) return;
    this.#changed.add(label);
    this.#tick ??= this.#timer(() => {
      this.#tick = null;
      this.#flush();
    }, this.#intervalMs);
  }

  /** Each changed key rendered once, the same text to every watcher. */
  #flush(): void {
    const now = this.#source.now();
    const labels = [...this.#changed];
    this.#changed.clear();
    for (const label of labels) {
      if (this.#watchers.size === 0) return;
      const key = this.#source.key(label);
      if (key) this.#broadcast(keyEvent(key, now, this.#maxPoints));
    }
  }

  #beat(): void {
    if (this.#heartbeat || this.#closed) return;
    this.#heartbeat = this.#timer(() => {
      this.#heartbeat = null;
      if (this.#watchers.size === 0) return;
      this.#broadcast(': heartbeat\n\n');
      this.#beat();
    }, this.#heartbeatMs);
  }

  #broadcast(text: string): void {
    for (const res of this.#watchers.keys()) this.#write(res, text);
  }

  #write(res: ServerResponse, text: string): void {
    if (res.destroyed || res.writableEnded) {
      this.#watchers.delete(res);
      return;
    }
    // What still waits from earlier events, not this one: a reader that keeps up drains between ticks.
    if (res.writableLength > this.#maxBuffered) {
      this.#watchers.delete(res);
      this.dropped++;
      res.destroy();
      return;
    }
    res.write(text);
  }

  /** Ends every stream and stops listening to the source; later watchers get a 503. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unsubscribe();
    this.#tick?.();
    this.#heartbeat?.();
    this.#tick = this.#heartbeat = null;
    this.#changed.clear();
    for (const res of this.#watchers.keys()) {
      res.end();
      // A watcher that was not reading would hold its socket open until it did.
      if (res.writableLength > 0) res.destroy();
    }
    this.#watchers.clear();
  }
}
