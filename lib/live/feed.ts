// Server-sent events of a LiveSource to a bounded number of watchers, each shown a bounded page of keys
// (lib/live/ranks.ts: the most findings, the busiest, or a search): those keys on connect, sent as the
// socket drains, then each changed key rendered once per tick, the same text to all and reused for a
// watcher connecting later. A watcher whose socket stops draining gets nothing more (what changed for
// it waits, one entry a key) and is dropped when it has not drained within drainTimeoutMs; timers are
// unref'd and close() ends every stream, so neither the process nor the server's close() waits for one.
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
  /** A watcher with more than this many bytes of earlier events still waiting in user space is dropped. */
  maxBufferedBytes?: number;
  /** A watcher whose socket, once full (kernel and user space), has not drained within this is dropped. */
  drainTimeoutMs?: number;
  /** Watchers at once; one more is answered 503 with Retry-After. */
  maxWatchers?: number;
  /** Keys one watcher is shown (the page says how many more there are). */
  maxShown?: number;
  /** The last requests of a key the picture draws: rendering is bounded however long a key has been seen. */
  maxPoints?: number;
  timer?: Timer;
}

/** One event of the feed: a key's summary (its timeline drawn as `svg`) and the source's now. */
export type LiveEvent = Omit<LiveKey, 'timeline'> & { atMs: number; svg: string };

export const DEFAULT_INTERVAL_MS = 300;
const DEFAULT_HEARTBEAT_MS = 15_000;
const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_WATCHERS = 100;
export const DEFAULT_MAX_SHOWN = 50;
/** A search longer than any label is cut to this. */
const MAX_SEARCH = 100;
/** What a watcher turned away past the cap is told to wait, in seconds. */
const FULL_RETRY_AFTER_S = 30;
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

/** A rendered event is reused for this long at most after its key last changed: a ban or a window's end shows in time. */
const RENDERED_MAX_AGE_MS = 5_000;

/** The search a watcher's URL asks for (`?q=`), trimmed, cut to MAX_SEARCH. */
function searchOf(url: string | undefined): string {
  return (new URL(url ?? '/', 'http://live.invalid').searchParams.get('q') ?? '').trim().slice(0, MAX_SEARCH);
}

interface Watcher {
  /** The labels it is shown: at most maxShown. */
  shown: Set<string>;
  /** Shown keys not sent since they changed (or since it connected), oldest first, sent as its socket drains. */
  owed: Set<string>;
  /** Its search, lower case; '' for none. */
  search: string;
  /** Cancels the deadline armed when its socket stopped draining. */
  stall: (() => void) | null;
}

export class LiveFeed {
  readonly #source: LiveSource;
  readonly #intervalMs: number;
  readonly #heartbeatMs: number;
  readonly #maxBuffered: number;
  readonly #drainTimeoutMs: number;
  readonly #maxWatchers: number;
  readonly #maxShown: number;
  readonly #maxPoints: number;
  readonly #timer: Timer;
  readonly #watchers = new Map<ServerResponse, Watcher>();
  readonly #changed = new Set<string>();
  /** Each shown key's event as last rendered, least recently used first; a change of the key removes it. */
  readonly #rendered = new Map<string, { text: string; atMs: number }>();
  readonly #unsubscribe: () => void;
  #tick: (() => void) | null = null;
  #heartbeat: (() => void) | null = null;
  /** How many keys the source had when watchers were last told. */
  #total = 0;
  #closed = false;
  /** Watchers dropped because they did not read (their socket did not drain in time, or too much waited). */
  dropped = 0;
  /** Watchers turned away because maxWatchers were watching. */
  refused = 0;
  /** Key events rendered: once per change of a shown key, whatever the number of watchers. */
  renders = 0;

  constructor(options: LiveFeedOptions) {
    this.#source = options.source;
    this.#intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#maxBuffered = options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES;
    this.#drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.#maxWatchers = options.maxWatchers ?? DEFAULT_MAX_WATCHERS;
    this.#maxShown = options.maxShown ?? DEFAULT_MAX_SHOWN;
    this.#maxPoints = options.maxPoints ?? DEFAULT_MAX_POINTS;
    this.#timer = options.timer ?? realTimer;
    this.#unsubscribe = this.#source.subscribe((label) => this.#changedKey(label));
  }

  get watchers(): number {
    return this.#watchers.size;
  }

  /** Streams the feed on `res` until the watcher goes away, is dropped, or the feed closes. */
  connect(req: IncomingMessage, res: ServerResponse): void {
    if (this.#closed) return refuse(res, 'The live view is closed.');
    if (this.#watchers.size >= this.#maxWatchers) {
      this.refused++;
      return refuse(
        res,
        `The live view is full: it takes ${this.#maxWatchers} watcher${this.#maxWatchers === 1 ? '' : 's'} at once; try again in ${FULL_RETRY_AFTER_S} s.`,
        FULL_RETRY_AFTER_S,
      );
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
    const search = searchOf(req.url);
    const listing = this.#source.list({ limit: this.#maxShown, ...(search ? { search } : {}) });
    this.#total = listing.total;
    const watcher: Watcher = { shown: new Set(listing.labels), owed: new Set(listing.labels), search: search.toLowerCase(), stall: null };
    this.#watchers.set(res, watcher);
    res.on('close', () => this.#forget(res));
    res.on('drain', () => {
      watcher.stall?.();
      watcher.stall = null;
      this.#catchUp(res, watcher);
    });
    const hello = { keys: listing.total, matched: listing.matched, shown: listing.labels.length, limit: this.#maxShown, search, atMs: this.#source.now() };
    this.#write(res, watcher, `retry: ${RETRY_MS}\nevent: hello\ndata: ${oneLine(hello)}\n\n`);
    this.#catchUp(res, watcher);
    this.#beat();
  }

  /** The keys a watcher is owed, each sent when its socket can take more. */
  #catchUp(res: ServerResponse, watcher: Watcher): void {
    for (const label of watcher.owed) {
      if (res.writableNeedDrain || this.#watchers.get(res) !== watcher) return;
      watcher.owed.delete(label);
      const text = this.#render(label);
      if (text === undefined) watcher.shown.delete(label);
      else this.#write(res, watcher, text);
    }
  }

  /** The key's event: the one rendered since its last change when there is one, else rendered now and kept. */
  #render(label: string): string | undefined {
    const now = this.#source.now();
    const kept = this.#rendered.get(label);
    this.#rendered.delete(label);
    if (kept && now - kept.atMs < RENDERED_MAX_AGE_MS) {
      this.#rendered.set(label, kept);
      return kept.text;
    }
    const key = this.#source.key(label);
    if (!key) return undefined;
    this.renders++;
    const text = keyEvent(key, now, this.#maxPoints);
    this.#rendered.set(label, { text, atMs: now });
    // Watchers with different searches see different keys: a few pages' worth are kept.
    if (this.#rendered.size > 4 * this.#maxShown) this.#rendered.delete(this.#rendered.keys().next().value!);
    return text;
  }

  #changedKey(label: string): void {
    if (this.#closed) return;
    this.#rendered.delete(label);
    if (this.#watchers.size === 0) return;
    this.#changed.add(label);
    this.#tick ??= this.#timer(() => {
      this.#tick = null;
      this.#flush();
    }, this.#intervalMs);
  }

  /** Is `label` one `watcher` shows, or would show now (a new key, room on its page, its search matching)? */
  #shows(watcher: Watcher, label: string): boolean {
    if (watcher.shown.has(label)) return true;
    if (watcher.shown.size >= this.#maxShown || (watcher.search && !label.toLowerCase().includes(watcher.search))) return false;
    watcher.shown.add(label);
    return true;
  }

  /** Each changed key that some watcher shows rendered once, the same text to each of them. */
  #flush(): void {
    const labels = [...this.#changed];
    this.#changed.clear();
    for (const label of labels) {
      const ready: Array<[ServerResponse, Watcher]> = [];
      for (const [res, watcher] of this.#watchers) {
        if (!this.#shows(watcher, label)) continue;
        if (watcher.stall || res.writableNeedDrain) watcher.owed.add(label);
        else ready.push([res, watcher]);
      }
      if (ready.length === 0) continue;
      const text = this.#render(label);
      for (const [res, watcher] of ready) {
        watcher.owed.delete(label);
        if (text === undefined) watcher.shown.delete(label);
        else this.#write(res, watcher, text);
      }
    }
    if (this.#watchers.size === 0) return;
    const total = this.#source.list({ limit: 0 }).total;
    if (total !== this.#total) {
      this.#total = total;
      this.#broadcast(`event: keys\ndata: ${oneLine({ keys: total })}\n\n`);
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

  /** To every watcher whose socket is draining; one that is not gets nothing more until it does. */
  #broadcast(text: string): void {
    for (const [res, watcher] of this.#watchers) if (!watcher.stall && !res.writableNeedDrain) this.#write(res, watcher, text);
  }

  #write(res: ServerResponse, watcher: Watcher, text: string): void {
    if (res.destroyed || res.writableEnded) return this.#forget(res);
    // What still waits in user space from earlier events: a reader that keeps up drains between ticks.
    if (res.writableLength > this.#maxBuffered) return this.#drop(res);
    // Full: the kernel's buffers too. It must drain within the bound or be dropped, whatever it holds.
    if (!res.write(text)) watcher.stall ??= this.#timer(() => this.#drop(res), this.#drainTimeoutMs);
  }

  #forget(res: ServerResponse): void {
    const watcher = this.#watchers.get(res);
    if (!watcher) return;
    watcher.stall?.();
    this.#watchers.delete(res);
  }

  #drop(res: ServerResponse): void {
    if (!this.#watchers.has(res)) return;
    this.#forget(res);
    this.dropped++;
    res.destroy();
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
    this.#rendered.clear();
    for (const [res, watcher] of this.#watchers) {
      watcher.stall?.();
      res.end();
      // A watcher that was not reading would hold its socket open until it did.
      if (res.writableLength > 0) res.destroy();
    }
    this.#watchers.clear();
  }
}

/** A 503 with a one-line reason; `retryAfterS` when trying again later may succeed. */
function refuse(res: ServerResponse, reason: string, retryAfterS?: number): void {
  res.writeHead(503, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'close',
    ...(retryAfterS !== undefined ? { 'retry-after': String(retryAfterS) } : {}),
  });
  res.end(`${reason}\n`);
}
