// Two listeners on two ports, for the tests that prove the key stays with BASE_URL's origin: a target
// whose answers name the other one in every way an answer can (Location and Link on every answer, and
// 301, 302, 303, 307 and 308 to it), and that other origin, which records everything it receives.
// Both run in a worker thread, so the shim's thread may block on each request (curl) as k6's VUs do.
import { Worker } from 'node:worker_threads';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

export interface Received {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface TwoOrigins {
  /** The target's base address, `/v1` included. */
  baseUrl: string;
  /** The other origin its answers name. */
  elsewhere: string;
  /** What each listener received so far. */
  received(): Promise<{ target: Received[]; elsewhere: Received[] }>;
  /** The next request is answered as the first (a good answer to setup's probe), once this resolves. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

const SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const seen = { target: [], elsewhere: [] };
let elsewherePort = 0;
let formatLinks;
let count = 0;
const keep = (list, req) => list.push({ method: req.method, url: req.url, headers: req.headers });
const elsewhere = http.createServer((req, res) => {
  keep(seen.elsewhere, req);
  req.resume();
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('[]');
});
const target = http.createServer((req, res) => {
  keep(seen.target, req);
  req.resume();
  const n = ++count;
  const other = 'http://127.0.0.1:' + elsewherePort;
  const headers = {
    'content-type': 'application/json',
    ${JSON.stringify(LOWER_HEADERS.rateLimitLimit)}: '1000',
    ${JSON.stringify(LOWER_HEADERS.rateLimitRemaining)}: String(Math.max(0, 1000 - n)),
    ${JSON.stringify(LOWER_HEADERS.rateLimitReset)}: String(Math.floor(Date.now() / 60000) * 60 + 60),
    link: formatLinks([{ target: other + '/v1/pets?cursor=next', params: { rel: 'next' } }]),
    location: other + req.url,
  };
  const path = req.url.split('?')[0];
  let status = 404;
  let body = JSON.stringify({ code: 'not_found', message: 'no route', status: 404 });
  // The first answer after a reset (setup's probe) is a good one: the scripts reach their scenarios.
  if (n === 1 && req.method === 'GET' && path === '/v1/pets') [status, body] = [200, '[]'];
  else if (req.method === 'POST' && path === '/v1/pets')
    [status, body] = n % 2 === 0 ? [201, JSON.stringify({ id: 7, name: 'elsewhere', categoryId: 1, status: 'available' })] : [307, ''];
  else if (req.method === 'GET' && /^\\/v1\\/pets\\/\\d+$/.test(path)) [status, body] = [301, ''];
  else if (req.method === 'GET' && path === '/v1/pets') [status, body] = [[302, 200, 303, 308][n % 4], '[]'];
  res.writeHead(status, headers);
  res.end(body);
});
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
(async () => {
  ({ formatLinks } = await import(workerData.linkModule));
  elsewherePort = await listen(elsewhere);
  const targetPort = await listen(target);
  parentPort.postMessage({ targetPort, elsewherePort });
  parentPort.on('message', (m) => {
    if (m === 'received') parentPort.postMessage(JSON.parse(JSON.stringify(seen)));
    else if (m === 'reset') {
      count = 0;
      parentPort.postMessage('reset');
    }
    else {
      target.closeAllConnections();
      elsewhere.closeAllConnections();
      target.close();
      elsewhere.close(() => process.exit(0));
    }
  });
})();`;

export async function startTwoOrigins(): Promise<TwoOrigins> {
  // The Link the target sends is written by the contract's own formatter.
  const worker = new Worker(SOURCE, { eval: true, workerData: { linkModule: new URL('../../spec/rules/link.js', import.meta.url).href } });
  const ports = await new Promise<{ targetPort: number; elsewherePort: number }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  // One question at a time (the tests await each): the next message is its answer.
  const ask = <T>(question: string) =>
    new Promise<T>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(question);
    });
  return {
    baseUrl: `http://127.0.0.1:${ports.targetPort}/v1`,
    elsewhere: `http://127.0.0.1:${ports.elsewherePort}`,
    received: () => ask('received'),
    reset: async () => {
      await ask('reset');
    },
    close: async () => {
      const exited = new Promise((resolve) => worker.once('exit', resolve));
      worker.postMessage('stop');
      await exited;
    },
  };
}
