// @ts-check
// The platform's ceiling: node:http answering the list and get requests with the reference
// server's exact bytes, with nothing else on the path.
import { createServer } from 'node:http';
import { BASE_PATH } from '../../spec/rules/contract.js';
import { announce, cannedFromEnv, onTerminate } from './protocol.mjs';

const canned = cannedFromEnv();
/** @param {{ body: Buffer, contentType: string }} answer */
const headersOf = (answer) => ({ 'content-type': answer.contentType, 'content-length': String(answer.body.length) });
const list = { body: canned.list.body, headers: headersOf(canned.list) };
const get = { body: canned.get.body, headers: headersOf(canned.get) };
const LIST_PATH = `${BASE_PATH}/pets`;
/** @param {string} url */
const isGet = (url) => url.startsWith(`${LIST_PATH}/`) && /^\d+$/.test(url.slice(LIST_PATH.length + 1));

const server = createServer((req, res) => {
  const url = req.url ?? '';
  const answer = req.method !== 'GET' ? undefined : url === LIST_PATH || url.startsWith(`${LIST_PATH}?`) ? list : isGet(url) ? get : undefined;
  if (answer) {
    res.writeHead(200, answer.headers);
    res.end(answer.body);
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"code":"not_found","message":"Not found.","status":404}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') announce(`http://127.0.0.1:${address.port}`);
});
onTerminate(() => new Promise((resolve) => server.close(() => resolve())));
