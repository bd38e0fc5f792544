// @ts-check
// The cheapest node:http server there is: every request gets the same two-byte body. Loading it
// measures the load generator's own ceiling on its core (see bench/README.md, "generator headroom").
import { createServer } from 'node:http';
import { announce, onTerminate } from './protocol.mjs';

const body = Buffer.from('{}');
const headers = { 'content-type': 'application/json', 'content-length': String(body.length) };
const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') announce(`http://127.0.0.1:${address.port}`);
});
onTerminate(() => new Promise((resolve) => server.close(() => resolve())));
