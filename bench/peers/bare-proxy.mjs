// @ts-check
// The floor of forwarding in Node: node:http in, node:http out on a keep-alive agent, both bodies
// piped, nothing judged or kept. The proxy case measures it beside `adoption-kit proxy`, so what the
// judging costs is the difference, and what any Node proxy costs is this.
// Usage: node bench/peers/bare-proxy.mjs --target http://127.0.0.1:<port>
import { Agent, createServer, request } from 'node:http';

const at = process.argv.indexOf('--target');
const target = new URL(process.argv[at + 1] ?? '');
const agent = new Agent({ keepAlive: true });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host']);

const server = createServer((req, res) => {
  /** @type {Record<string, string>} */
  const headers = { host: target.host };
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = /** @type {string} */ (req.rawHeaders[i]);
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers[name] = /** @type {string} */ (req.rawHeaders[i + 1]);
  }
  const upstream = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers, agent }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(upstream);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`proxy: http://127.0.0.1:${address.port} -> ${target.origin} (bare forwarding)\n`);
});
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) process.once(signal, () => server.close(() => process.exit(0)));
