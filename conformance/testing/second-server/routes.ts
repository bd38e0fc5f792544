// The request handler: who is calling and whether they may (rate limits, key), then which
// operation, then the operation itself. Every response gets the clock's Date, X-RateLimit-* and the
// IETF RateLimit-Policy and RateLimit fields of the same windows.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BASE_PATH, DEPRECATIONS, HEADERS } from '../../../spec/rules/contract.js';
import { formatDeprecation, formatHttpDate } from '../../../spec/rules/fields.js';
import { formatLinks } from '../../../spec/rules/link.js';
import { formatRateLimit, formatRateLimitPolicy } from '../../../spec/rules/structured-fields.js';
import { ApiError, notFound } from './errors.ts';
import { parseJson, readBody, requireJsonMedia, sendEmpty, sendError, sendJson } from './http.ts';
import type { Decision, Limiter } from './limiter.ts';
import type { ResolvedOptions } from './options.ts';
import { parseListQuery, toNewPet, type PetStore } from './pets.ts';

/** Our own deprecation date; the specification names only the removal. */
export const DEPRECATED_SINCE_MS = Date.UTC(2026, 0, 1);
export const SUNSET_MS = Date.parse(DEPRECATIONS.getPet.sunset);

export interface HandlerContext {
  options: ResolvedOptions;
  store: PetStore;
  limiter: Limiter;
  /** The listening origin, for requests whose Host cannot be trusted to build a URL. */
  origin(): string;
}

interface Call {
  req: IncomingMessage;
  res: ServerResponse;
  ctx: HandlerContext;
  query: URLSearchParams;
  params: string[];
}

type Operation = (call: Call) => Promise<void> | void;

interface Route {
  pattern: RegExp;
  operations: Readonly<Record<string, Operation>>;
}

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

function originOf(call: Call): string {
  const host = call.req.headers.host;
  return host !== undefined && HOST.test(host) ? `http://${host}` : call.ctx.origin();
}

const listPets: Operation = (call) => {
  const query = parseListQuery(call.query);
  const page = call.ctx.store.list(query);
  const headers: Record<string, string> = {};
  if (call.ctx.options.paging === 'link' && page.more) {
    const next = new URLSearchParams({ page: String(query.page + 1), limit: String(query.limit) });
    if (query.status !== undefined) next.set('status', query.status);
    headers.Link = formatLinks([{ target: `${originOf(call)}${BASE_PATH}/pets?${next}`, params: { rel: 'next' } }]);
  }
  sendJson(call.res, 200, page.pets, headers);
};

const createPet: Operation = async (call) => {
  requireJsonMedia(call.req);
  const pet = await call.ctx.store.create(toNewPet(parseJson(await readBody(call.req))));
  sendJson(call.res, 201, pet, { Location: `${originOf(call)}${BASE_PATH}/pets/${pet.id}` });
};

const getPet: Operation = (call) => {
  const raw = call.params[0] ?? '';
  let segment: string;
  try {
    segment = decodeURIComponent(raw);
  } catch {
    segment = raw;
  }
  // Anything that is not a stored id, integer or not, is simply not found here.
  const pet = /^[0-9]{1,16}$/.test(segment) ? call.ctx.store.get(Number(segment)) : undefined;
  if (!pet) throw notFound(`Pet ${JSON.stringify(segment)} was not found.`);
  sendJson(call.res, 200, pet);
};

// HEAD wherever GET (RFC 9110 §9.1, §9.3.2): the same operation, so the same status, headers and
// counting; Node's ServerResponse sends no content after a HEAD answer, whatever end() is given.
const PETS: Route = { pattern: /^\/pets$/, operations: { GET: listPets, HEAD: listPets, POST: createPet } };
const PET: Route = { pattern: /^\/pets\/([^/]+)$/, operations: { GET: getPet, HEAD: getPet } };
const ROUTES: readonly Route[] = [PETS, PET];
/** getPet is removed at its sunset: its path is then unknown. */
const ROUTES_AFTER_SUNSET: readonly Route[] = [PETS];

interface Target {
  path: string;
  query: URLSearchParams;
}

/** The path and query of an origin-form or absolute-form request target; null for anything else. */
function parseTarget(url: string): Target | null {
  let rest = url;
  const absolute = /^https?:\/\/[^/?#]*/i.exec(rest);
  if (absolute) rest = rest.slice(absolute[0].length) || '/';
  if (!rest.startsWith('/')) return null;
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  return { path: q < 0 ? rest : rest.slice(0, q), query: new URLSearchParams(q < 0 ? '' : rest.slice(q + 1)) };
}

export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : /^Bearer +(\S+) *$/i.exec(authorization)?.[1];
}

export function rateLimitHeaders(decision: Decision): Record<string, string> {
  const { limit, remaining, reset } = decision.headers;
  return {
    [HEADERS.rateLimitLimit]: String(limit),
    [HEADERS.rateLimitRemaining]: String(remaining),
    [HEADERS.rateLimitReset]: String(reset),
    [HEADERS.rateLimitPolicy]: formatRateLimitPolicy([...decision.fields.policies]),
    [HEADERS.rateLimit]: formatRateLimit([...decision.fields.states]),
  };
}

function refusal(decision: Decision): ApiError | undefined {
  if (decision.verdict === 'admitted') return undefined;
  const headers = { 'Retry-After': formatHttpDate(decision.retryAtMs), 'Cache-Control': 'no-store' };
  if (decision.verdict === 'banned') {
    return new ApiError(403, 'FORBIDDEN_BANNED', 'This API key is banned for sending requests while refused; retry after Retry-After.', headers);
  }
  const what = decision.window === 'address' ? 'requests without a valid key from this address' : `requests per ${decision.window} for this key`;
  return new ApiError(429, 'RATE_LIMITED', `Rate limit exceeded: ${decision.headers.limit} ${what}; retry after Retry-After.`, headers);
}

export function createHandler(ctx: HandlerContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const { clock, keys } = ctx.options;
  return async (req, res) => {
    try {
      const now = clock.now();
      res.setHeader('Date', formatHttpDate(now));
      const method = req.method ?? '';
      const target = parseTarget(req.url ?? '');
      const apiPath = target && (target.path === BASE_PATH || target.path.startsWith(`${BASE_PATH}/`)) ? target.path.slice(BASE_PATH.length) : undefined;
      const routes = now < SUNSET_MS ? ROUTES : ROUTES_AFTER_SUNSET;
      if ((method === 'GET' || method === 'HEAD') && apiPath !== undefined && routes.includes(PET) && PET.pattern.test(apiPath)) {
        res.setHeader(HEADERS.deprecation, formatDeprecation(DEPRECATED_SINCE_MS));
        res.setHeader(HEADERS.sunset, formatHttpDate(SUNSET_MS));
      }
      const token = bearerToken(req.headers.authorization);
      const plan = token === undefined ? undefined : keys.get(token);
      const decision =
        token !== undefined && plan !== undefined ? await ctx.limiter.forKey(token, plan) : ctx.limiter.forAddress(req.socket.remoteAddress ?? '');
      // Remaining as of the answer: the answer is dated when it is built, with the headers it carries.
      if (ctx.options.remaining === 'answer') res.setHeader('Date', formatHttpDate(clock.now()));
      for (const [name, value] of Object.entries(rateLimitHeaders(decision))) res.setHeader(name, value);
      const refused = refusal(decision);
      if (refused) throw refused;
      if (req.headers.host === undefined && (req.httpVersionMajor > 1 || req.httpVersionMinor >= 1)) {
        throw new ApiError(400, 'BAD_REQUEST', 'An HTTP/1.1 request must carry Host (RFC 9112 §3.2).');
      }
      if (apiPath === undefined) throw notFound(`Nothing is served at ${JSON.stringify(target?.path ?? req.url)}; the API is under ${BASE_PATH}.`);
      if (plan === undefined) {
        const why = req.headers.authorization === undefined ? 'is missing' : token === undefined ? 'is not a Bearer token' : 'names no known API key';
        throw new ApiError(401, 'UNAUTHORIZED', `The Authorization header ${why}; send "Authorization: Bearer <API key>".`, {
          'WWW-Authenticate': 'Bearer realm="pets"',
        });
      }
      for (const route of routes) {
        const match = route.pattern.exec(apiPath);
        if (!match) continue;
        const allow = Object.keys(route.operations).join(', ');
        if (method === 'OPTIONS') return sendEmpty(res, 204, { Allow: allow });
        const operation = Object.prototype.hasOwnProperty.call(route.operations, method) ? route.operations[method] : undefined;
        if (!operation) throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${BASE_PATH}${apiPath}; use ${allow}.`, { Allow: allow });
        return await operation({ req, res, ctx, query: target!.query, params: match.slice(1) });
      }
      throw notFound(`Nothing is served at ${JSON.stringify(target!.path)}.`);
    } catch (error) {
      const apiError = error instanceof ApiError ? error : new ApiError(500, 'INTERNAL_ERROR', 'The server failed to answer this request.');
      // An unread remainder of the body cannot be skipped safely; the connection goes with it.
      if (apiError.status === 413) res.setHeader('Connection', 'close');
      sendError(res, apiError);
    }
  };
}
