// The stop of issue 42 made for real: the compiled proxy flooded by slow request bodies, endless answers
// nobody reads, large answers read by nobody, live-view watchers that never read and keep-alive clients
// looping, then stopped (SIGTERM) in the middle of it. Shared by proxy/stop-flood.test.ts, which judges
// the outcome, and bench/testing/proxy-stop.ts, which prints how long the stop took: a test never times.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { collectOutput, spawnChild, stopChild, waitForOutput, type OutputWatch } from '../../lib/processes.ts';
import { ROOT } from '../../server/testing/process.ts';
import { ENDLESS_PATH, HUGE_PATH, PETS_PATH, startHostileTarget, UPLOAD_PATH, type HostileTarget } from './hostile-target.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

export interface FloodSize {
  /** Request bodies that trickle in (a few bytes every 500 ms of a large Content-Length). */
  slowBodies: number;
  /** Endless answers whose client never reads. */
  endless: number;
  /** 32 MiB answers whose client never reads. */
  unread: number;
  /** Live-view watchers (--ui) that never read. */
  watchers: number;
  /** Keep-alive clients sending a request after each answer, each with a key of its own. */
  loopers: number;
}

/** The flood of issue 42 ("1,200 slow bodies, 300 non-reading watchers, live traffic"), within the proxy's 100-watcher cap. */
export const ISSUE_FLOOD: FloodSize = { slowBodies: 1200, endless: 100, unread: 50, watchers: 300, loopers: 32 };

export interface FloodStop {
  /** From SIGTERM to the proxy's exit (ms): a figure for the benchmark, never asserted. */
  stopMs: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The JSON report the proxy wrote at exit; undefined when it wrote none. */
  json: { requests: number; cutShort: number; counts: { must: number; should: number } } | undefined;
  /** Whether the HTML report exists and ends as a document. */
  htmlWritten: boolean;
  /** What was under way at the moment of the stop, as the clients and the target saw it. */
  atStop: { uploadsOpen: number; endlessOpen: number; unreadStarted: number; watchersAnswered: number; loopsAnswered: number };
  output: string;
}

const TOKEN = 'flood-view-token-0123456789';
// Limits so that a proxy that hangs fails instead of holding the run; not measures of speed.
const FLOOD_WITHIN_MS = 30_000;
const EXIT_WITHIN_MS = 60_000;

/** Floods a fresh proxy (ports picked here), stops it with SIGTERM, and says what came of it; everything is stopped before it returns. */
export async function floodThenStop(size: FloodSize, proxyJs = join(ROOT, 'dist/proxy/cli.js')): Promise<FloodStop> {
  const dir = await mkdtemp(join(tmpdir(), 'proxy-stop-flood-'));
  const target: HostileTarget = await startHostileTarget();
  const clients = new Set<ClientRequest>();
  const agents: Agent[] = [];
  let child: ChildProcess | undefined;
  let looping = true;
  try {
    const reports = { json: join(dir, 'r.json'), html: join(dir, 'r.html') };
    child = spawnChild(
      process.execPath,
      [proxyJs, '--target', target.origin, '--port', '0', '--ui', '--ui-token', TOKEN, '--json', reports.json, '--html', reports.html, '--timeout', '60000'],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const proxyChild = child;
    const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
      proxyChild.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
    const output: OutputWatch = collectOutput(child);
    const url = (await waitForOutput(child, output, /^proxy: (http:\/\/\S+) ->/m, START_BOUND_MS, 'the proxy'))[1]!;

    // Each client on a connection of its own; what the stop does to it is no error of the flood.
    const open = (path: string, options: { method?: string; headers?: Record<string, string> } = {}, onAnswer?: () => void): ClientRequest => {
      const req = request(`${url}${path}`, { method: options.method ?? 'GET', headers: options.headers ?? {}, agent: false }, (res) => {
        // Never read: the answer fills the proxy's socket and stays there.
        res.pause();
        res.on('error', () => {});
        onAnswer?.();
      });
      req.on('error', () => {});
      req.once('close', () => clients.delete(req));
      clients.add(req);
      return req;
    };

    let watchersAnswered = 0;
    let unreadStarted = 0;
    for (let i = 0; i < size.watchers; i++)
      open('/__adoption-kit/live/events', { headers: { authorization: `Bearer ${TOKEN}` } }, () => watchersAnswered++).end();
    for (let i = 0; i < size.endless; i++) open(ENDLESS_PATH, { headers: { authorization: `Bearer flood-endless-key-${i}` } }).end();
    for (let i = 0; i < size.unread; i++)
      open(`${HUGE_PATH}?bytes=${32 * 1024 * 1024}`, { headers: { authorization: `Bearer flood-unread-key-${i}` } }, () => unreadStarted++).end();
    const trickle = setInterval(() => {
      for (const req of clients) if (req.method === 'POST' && !req.destroyed) req.write('yy');
    }, 500);
    for (let i = 0; i < size.slowBodies; i++) {
      const req = open(UPLOAD_PATH, {
        method: 'POST',
        headers: { authorization: `Bearer flood-slow-key-${i % 50}`, 'content-type': 'application/json', 'content-length': String(1_000_000) },
      });
      req.write('{"name":"');
    }

    let loopsAnswered = 0;
    for (let i = 0; i < size.loopers; i++) {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      agents.push(agent);
      const key = `flood-loop-key-${String(i).padStart(3, '0')}`;
      const next = () => {
        if (!looping) return;
        const req = request(`${url}${PETS_PATH}`, { agent, headers: { authorization: `Bearer ${key}` } }, (res) => {
          res.resume();
          res.once('end', () => {
            loopsAnswered++;
            next();
          });
          res.on('error', () => {});
        });
        req.on('error', () => {});
        req.end();
      };
      next();
    }

    // The stop comes once everything is under way: every upload and endless answer at the target, the loops answered.
    const floodStarted = Date.now();
    while (target.uploadsOpen < size.slowBodies || target.endlessOpen < size.endless || unreadStarted < size.unread || loopsAnswered < size.loopers * 10) {
      if (Date.now() - floodStarted > FLOOD_WITHIN_MS)
        throw new Error(
          `the flood did not get under way within ${FLOOD_WITHIN_MS} ms: ${target.uploadsOpen} uploads, ${target.endlessOpen} endless, ${unreadStarted} unread, ${loopsAnswered} loop answers${output.text().slice(-2000)}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const atStop = { uploadsOpen: target.uploadsOpen, endlessOpen: target.endlessOpen, unreadStarted, watchersAnswered, loopsAnswered };
    const stoppedAt = Date.now();
    child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const ended = await Promise.race([exit, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), EXIT_WITHIN_MS)))]);
    clearTimeout(timer);
    clearInterval(trickle);
    looping = false;
    if (!ended) throw new Error(`the proxy had not exited ${EXIT_WITHIN_MS} ms after SIGTERM${output.text().slice(-2000)}`);
    const json = await readFile(reports.json, 'utf8').then(
      (text) => JSON.parse(text) as FloodStop['json'],
      () => undefined,
    );
    const htmlWritten = await readFile(reports.html, 'utf8').then(
      (text) => text.trimEnd().endsWith('</html>'),
      () => false,
    );
    return { stopMs: ended.at - stoppedAt, code: ended.code, signal: ended.signal, json, htmlWritten, atStop, output: output.text() };
  } finally {
    looping = false;
    for (const req of clients) req.destroy();
    for (const agent of agents) agent.destroy();
    if (child) await stopChild(child, 'SIGKILL', 1000);
    await target.close();
    await rm(dir, { recursive: true, force: true });
  }
}
