// A busy machine, made on purpose: the event loop of this process blocked at intervals (the proxy
// descheduled), and clients in a worker thread of their own that keep sending while it is blocked
// and stop at once with requests in flight, as wrk does at the end of a round.
import { Worker } from 'node:worker_threads';
import { DEFAULT_SPEC_PATH, loadContract } from '../../judge/contract.ts';
import { stopChild } from '../../lib/processes.ts';
import { startCli, type ServerProcess } from '../../server/testing/process.ts';
import { createTrafficProxy, type TrafficProxy } from '../server.ts';

/** Blocks this thread for `stallMs` every `everyMs`; returns the function that ends it. */
export function stallEvery(stallMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + stallMs;
    while (Date.now() < until) {
      // Descheduled: nothing of this thread runs meanwhile.
    }
  }, everyMs);
  return () => clearInterval(timer);
}

// Plain JavaScript, evaluated in the worker: nothing to load.
const CLIENTS = `
const { workerData, parentPort } = require('node:worker_threads');
const http = require('node:http');
const { url, key, connections, ms, rounds, answers } = workerData;
let answered = 0;
let cut = 0;
let going = true;
let inRound = 0;
let endRound = () => {};
const open = new Set();
function loop(agent) {
  if (!going) return;
  const req = http.request(url, { agent, headers: { authorization: 'Bearer ' + key } }, (res) => {
    res.resume();
    res.on('error', () => {});
    res.once('end', () => {
      open.delete(req);
      if (res.statusCode >= 200 && res.statusCode < 300) {
        answered++;
        inRound++;
      }
      if (answers !== undefined && inRound >= answers) endRound();
      else loop(agent);
    });
  });
  req.on('error', () => open.delete(req));
  open.add(req);
  req.end();
}
function round(left) {
  going = true;
  inRound = 0;
  const agents = [];
  let timer;
  endRound = () => {
    if (!going) return;
    going = false;
    clearTimeout(timer);
    cut += open.size;
    for (const req of open) req.destroy();
    open.clear();
    for (const agent of agents) agent.destroy();
    if (left > 1) setTimeout(() => round(left - 1), 300);
    else parentPort.postMessage({ answered, cut, full: answers === undefined || inRound >= answers });
  };
  for (let i = 0; i < connections; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    agents.push(agent);
    loop(agent);
  }
  timer = setTimeout(() => endRound(), ms);
}
round(rounds);
`;

/**
 * `rounds` rounds of `connections` keep-alive clients sending GET `url` with `key` one after another for
 * `ms`, or (`answers`) until the round had that many 2xx answers, `ms` then only ending a round that
 * hangs; each round is ended at once with its requests in flight. The worker posts `{ answered, cut,
 * full }` at the end, `full` false when a round ended at `ms` short of its `answers`.
 */
export function floodClients(options: { url: string; key: string; connections: number; ms: number; rounds: number; answers?: number }): Worker {
  return new Worker(CLIENTS, { eval: true, workerData: options });
}

export interface BusyRun {
  /** 2xx answers the clients read, and requests their rounds' ends cut in flight. */
  answered: number;
  cut: number;
  /** With `answers`: whether every round had them (false: one ended at `roundMs` short of them). */
  full: boolean;
  /** The server's must-level findings the proxy's judge told, as printed. */
  findings: string[];
  /** Exchanges of the key the judge counted. */
  judged: number;
  /** This process's RSS (MB = 10^6 bytes) before the load and at the end of each second of it. */
  rssMb: number[];
}

/**
 * The reference server (memory store, a process of its own) behind an in-process proxy whose thread
 * stalls `stallMs` every `everyMs`, loaded by `connections` clients of `key` in a worker thread for
 * `rounds` rounds of `roundMs` (or of `answers` answers each, `roundMs` their hang bound); everything
 * is stopped before it returns.
 */
export async function runBusy(o: {
  connections: number;
  roundMs: number;
  rounds: number;
  stallMs: number;
  everyMs: number;
  answers?: number;
  key?: string;
}): Promise<BusyRun> {
  const key = o.key ?? 'test-load-key';
  let server: ServerProcess | undefined;
  let proxy: TrafficProxy | undefined;
  let clients: Worker | undefined;
  let unstall: (() => void) | undefined;
  const rssMb = [process.memoryUsage().rss / 1e6];
  const sampler = setInterval(() => rssMb.push(process.memoryUsage().rss / 1e6), 1000);
  try {
    server = await startCli(['--memory', '--port', '0', '--quiet', '--api-keys', 'fixtures/api-keys.json']);
    const findings: string[] = [];
    proxy = createTrafficProxy({
      target: new URL(server.baseUrl).origin,
      host: '127.0.0.1',
      port: 0,
      timeoutMs: 10_000,
      contract: await loadContract(DEFAULT_SPEC_PATH),
      onFinding: (f) => {
        if (f.side === 'server' && f.level === 'must') findings.push(`${f.id}: ${f.message}`);
      },
    });
    const url = await proxy.start();
    unstall = stallEvery(o.stallMs, o.everyMs);
    const running = floodClients({
      url: `${url}/v1/pets?limit=20`,
      key,
      connections: o.connections,
      ms: o.roundMs,
      rounds: o.rounds,
      ...(o.answers === undefined ? {} : { answers: o.answers }),
    });
    clients = running;
    const sent = await new Promise<{ answered: number; cut: number; full: boolean }>((resolve, reject) => {
      running.once('message', resolve);
      running.once('error', reject);
    });
    unstall();
    await proxy.stop();
    rssMb.push(process.memoryUsage().rss / 1e6);
    const judged = proxy.judge.report().reduce((n, k) => n + (k.key === '(no key)' ? 0 : k.requests), 0);
    return { ...sent, findings, judged, rssMb };
  } finally {
    clearInterval(sampler);
    unstall?.();
    await clients?.terminate();
    await proxy?.stop(500);
    if (server) await stopChild(server.child, 'SIGKILL', 1000);
  }
}
