// The platform's ceiling: node:http answering GET /v1/pets with the reference server's bytes,
// with nothing else on the path.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { announce, cannedFromEnv, onTerminate } from './child-protocol.ts';

const canned = cannedFromEnv();
const body = readFileSync(canned.bodyFile);
const headers = { 'content-type': canned.contentType, 'content-length': String(body.length) };

const server = createServer((req, res) => {
  if (req.method === 'GET' && (req.url === '/v1/pets' || req.url?.startsWith('/v1/pets?'))) {
    res.writeHead(200, headers);
    res.end(body);
    return;
  }
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"code":"not_found","message":"Not found.","status":404}');
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  announce(`http://127.0.0.1:${port}`);
});
onTerminate(() => new Promise<void>((resolve) => server.close(() => resolve())));
