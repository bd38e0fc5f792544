// What a client can discover without a key, neither limited nor counted: /, {base}, the contract at
// {base}/openapi.json and .yaml, /docs (Swagger UI served from here only, so it works offline),
// /docs/deprecations and /healthz (server/README.md, Discovering the API).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import { isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
import type { Contract } from '../contract.ts';
import { apiError, storageUnavailable } from '../errors.ts';
import { isLoopback, trustedRanges, type ForwardingHeader, type TrustProxy } from '../rate-limit/client-ip.ts';
import { requestOrigin } from '../request-origin.ts';
import { DEPRECATIONS_PAGE } from './deprecation.ts';
import { formatHttpDate } from '../../spec/rules/fields.js';
import type { PetStore } from '../store/pet-store.ts';

export interface DiscoveryOptions {
  contract: Contract;
  store: PetStore;
  /** Longest /healthz waits for the store before it answers 503. */
  probeTimeoutMs: number;
  /** Whose forwarding headers name the origin a request reached (the contract's first server). */
  trustProxy: TrustProxy;
  trustProxyHeader: ForwardingHeader;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page deprecated operations' Link headers point to: what is deprecated, since when, until when, and what replaces it, from the contract. */
export function deprecationsPage(contract: Contract, base: string): string {
  const { since, sunset, successor } = contract.deprecation;
  const day = (iso: string) => formatHttpDate(Date.parse(iso));
  const rows = contract.deprecatedOperations
    .map(
      (operation) =>
        `<tr><td>${escapeHtml(operation)}</td><td>${escapeHtml(day(since))}</td><td>${escapeHtml(day(sunset))}</td><td><code>GET ${escapeHtml(`${base}${successor}`)}</code></td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deprecations: Animal Adoption Store API</title></head><body>
<h1>Deprecations and sunsets</h1>
<p>A deprecated operation still answers, with <code>Deprecation</code>, <code>Sunset</code> and <code>Link</code> headers, until its sunset; after it, it answers 410 Gone.</p>
<table><thead><tr><th>operation</th><th>deprecated since</th><th>removed (sunset)</th><th>use instead</th></tr></thead><tbody>${rows}</tbody></table>
</body></html>
`;
}

/**
 * Why the store cannot serve now, or null when it answers a count within `timeoutMs`: a store error's
 * `reason` when it has one, else its message, in full (for the log; the answer is redacted).
 */
async function storeProblem(store: PetStore, timeoutMs: number): Promise<string | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  const counted = store.count().then(
    () => null,
    (error: unknown) => {
      const { reason, message } = error as { reason?: unknown; message?: unknown };
      return String(typeof reason === 'string' ? reason : (message ?? error));
    },
  );
  try {
    return await Promise.race([counted, late]);
  } finally {
    clearTimeout(timer);
  }
}

const PAGE_DIR = new URL('../docs/', import.meta.url);
/** The only Swagger UI files the page loads. */
const ASSETS: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'";

interface Served {
  body: Buffer | string;
  type: string;
  etag: string;
}

function served(body: Buffer | string, type: string): Served {
  return { body, type, etag: createHash('sha256').update(body).digest('base64url').slice(0, 27) };
}

/** A server URL on this machine (127.0.0.1, localhost, [::1]): where `npm start` listens by default. */
function onLoopback(url: unknown): boolean {
  try {
    const { hostname } = new URL(String(url));
    return hostname === 'localhost' || isLoopback(hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return false; // a templated URL (https://{productionHost}/v1) names a deployment, not this machine
  }
}

/**
 * The contract as served to a request that reached `origin`: this server first among its servers,
 * then the contract's own less those on this machine (they name where `npm start` listens by
 * default, which this server may not). The YAML is the file as written but for that block.
 */
function servedContract(yamlText: string, base: string): (origin: string) => { json: string; yaml: string } {
  // Parsed when first asked for, not at start: most servers (a test's, a worker's) never serve it,
  // and the parse is a large part of a start (the contract was already loaded, so it parses).
  const parse = () => {
    const doc = parseDocument(yamlText);
    const object = doc.toJS() as { servers?: Array<{ url?: unknown }> };
    const written = doc.get('servers', true);
    const keptNodes = isSeq(written) ? written.items.filter((item) => !(isMap(item) && onLoopback(item.get('url')))) : [];
    const kept = (object.servers ?? []).filter((server) => !onLoopback(server.url));
    return { doc, object, written, keptNodes, kept };
  };
  let parsed: ReturnType<typeof parse> | undefined;
  return (origin) => {
    parsed ??= parse();
    const { doc, object, written, keptNodes, kept } = parsed;
    const here = { url: `${origin}${base}`, description: 'This server: the address this request reached.' };
    const servers = new YAMLSeq();
    servers.items = [doc.createNode(here), ...keptNodes];
    doc.set('servers', servers);
    // The options that give back this kit's file byte for byte.
    const yaml = doc.toString({ lineWidth: 0, flowCollectionPadding: false });
    if (written === undefined) doc.delete('servers');
    else doc.set('servers', written);
    return { json: `${JSON.stringify({ ...object, servers: [here, ...kept] }, null, 2)}\n`, yaml };
  };
}

/** The request headers the served contract depends on: caches must key on them. */
function varyOn(trustProxy: TrustProxy, header: ForwardingHeader): string {
  if (trustProxy === false) return 'host';
  return header === 'forwarded' ? 'host, forwarded' : 'host, x-forwarded-host, x-forwarded-proto';
}

/** Origins whose contract is kept; Host is the client's to choose, so the cache starts over when full. */
const ORIGINS_KEPT = 64;

/** Where the Swagger UI files are: copied into dist/ by the build, else (from source) swagger-ui-dist. */
function swaggerDir(): string {
  const built = fileURLToPath(new URL('../docs/swagger-ui/', import.meta.url));
  if (existsSync(built)) return built;
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/**
 * The Swagger UI files with their ETags, read once per process: they are the package's own and do
 * not change while it runs, and reading and hashing them (1.9 MB) was half of a server's start. A
 * Map, not an object: a file named __proto__ or constructor must find nothing, not Object's own.
 */
let swaggerFiles: Map<string, Served> | undefined;
function swaggerAssets(): Map<string, Served> {
  swaggerFiles ??= new Map(Object.entries(ASSETS).map(([name, type]) => [name, served(readFileSync(join(swaggerDir(), name)), type)]));
  return swaggerFiles;
}

export const discoveryPlugin: Plugin<DiscoveryOptions> = {
  name: 'discovery',
  version: '1.0.0',
  register(server, { contract, store, probeTimeoutMs, trustProxy, trustProxyHeader }) {
    const base = contract.basePath;
    const contractAt = servedContract(readFileSync(contract.specPath, 'utf8'), base);
    const rules = { trustProxy, trustProxyHeader, ranges: Array.isArray(trustProxy) ? trustedRanges(trustProxy) : undefined };
    const vary = varyOn(trustProxy, trustProxyHeader);
    const contracts = new Map<string, { json: Served; yaml: Served }>();
    const contractFor = (request: Request) => {
      const socket = request.raw.req.socket as { localAddress?: string; localPort?: number } | undefined;
      const origin = requestOrigin(
        {
          headers: request.headers as Record<string, string | undefined>,
          peer: request.info.remoteAddress,
          local: { address: socket?.localAddress, port: socket?.localPort },
        },
        { ...rules, fallback: server.info.uri },
      );
      let found = contracts.get(origin);
      if (!found) {
        if (contracts.size >= ORIGINS_KEPT) contracts.clear();
        const { json, yaml } = contractAt(origin);
        found = { json: served(json, 'application/json; charset=utf-8'), yaml: served(yaml, 'application/yaml; charset=utf-8') };
        contracts.set(origin, found);
      }
      return found;
    };
    const files: Record<string, Served> = {
      page: served(readFileSync(new URL('index.html', PAGE_DIR)), 'text/html; charset=utf-8'),
      init: served(readFileSync(new URL('init.js', PAGE_DIR), 'utf8').replaceAll('__BASE__', base), 'text/javascript; charset=utf-8'),
    };
    const assets = swaggerAssets();

    const send = (h: ResponseToolkit, file: Served, extra: Record<string, string> = {}) => {
      const response = h.response(file.body).type(file.type).etag(file.etag).header('cache-control', 'no-cache');
      for (const [name, value] of Object.entries(extra)) response.header(name, value);
      return response;
    };
    // The answer names the part and the code only (the errors plugin redacts every 5xx); the operator's
    // log gets the whole reason, once per change.
    let lastHealth: string | null = null;
    const noteHealth = (said: string | null) => {
      if (said === lastHealth) return;
      if (said !== null) server.log(['health', 'warn'], `/healthz answers 503: ${said}`);
      else server.log(['health', 'info'], `/healthz answers 200 again (after: ${lastHealth})`);
      lastHealth = said;
    };
    const open = { auth: false as const, plugins: { 'rate-limit': false as const } };
    const route = (path: string, handler: ServerRoute['handler']): ServerRoute => ({ method: 'GET', path, options: { ...open, handler } });

    server.route([
      route('/', () => ({
        name: 'Animal Adoption Store API (reference server)',
        apiVersion: contract.apiVersion,
        links: { api: base, docs: '/docs', openapi: `${base}/openapi.json`, openapiYaml: `${base}/openapi.yaml`, health: '/healthz' },
      })),
      route(base, () => ({
        apiVersion: contract.apiVersion,
        links: { pets: `${base}/pets`, openapi: `${base}/openapi.json`, openapiYaml: `${base}/openapi.yaml`, deprecations: DEPRECATIONS_PAGE },
      })),
      route(DEPRECATIONS_PAGE, (_request, h) =>
        h
          .response(deprecationsPage(contract, base))
          .type('text/html; charset=utf-8')
          .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'"),
      ),
      route(`${base}/openapi.json`, (request, h) => send(h, contractFor(request).json, { vary })),
      route(`${base}/openapi.yaml`, (request, h) => send(h, contractFor(request).yaml, { vary })),
      route('/docs', (_request, h) => send(h, files.page!, { 'content-security-policy': CSP })),
      route('/docs/init.js', (_request, h) => send(h, files.init!)),
      route('/docs/assets/{file}', (request, h) => {
        const asset = assets.get(request.params.file as string);
        if (!asset) throw apiError('route_not_found', `No route for GET ${request.path}.`);
        return send(h, asset);
      }),
      route('/healthz', async (_request, h) => {
        const problem = await storeProblem(store, probeTimeoutMs);
        // Reads still work, but a balancer should send creates elsewhere until the disk takes writes.
        const failure = problem === null ? await store.failure?.() : undefined;
        const said = problem !== null ? `The store does not answer: ${problem}` : failure ? `The store cannot make writes durable: ${failure}.` : null;
        noteHealth(said);
        if (said !== null) throw storageUnavailable(said, { 'cache-control': 'no-store' });
        return h.response({ status: 'ok' }).header('cache-control', 'no-store');
      }),
    ]);
  },
};
