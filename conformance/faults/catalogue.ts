// Deliberately broken implementations: the reference server behind a proxy that breaks exactly one
// behaviour. Each names the check that must catch it; faults.test.ts runs the kit against every one.
import { PET_STATUSES } from '../../spec/rules/contract.js';
import { parseInteger } from '../../spec/rules/fields.js';
import type { FaultBehaviour, ProxyRequest, ProxyResponse } from './proxy.ts';

const STATUSES: readonly string[] = PET_STATUSES;

export interface Fault extends FaultBehaviour {
  id: string;
  area: string;
  description: string;
  /** The check that must report it. */
  caughtBy: string;
  /** A should-level check: the run fails only with --strict. */
  strict?: boolean;
  /** The fault only shows when the kit exhausts a window. */
  needsRateLimitKey?: boolean;
  /** The fault only shows when the kit repeats requests after a 429 (--ban-check). */
  needsBanCheck?: boolean;
}

type Op = 'listPets' | 'createPet' | 'getPet';

export function operationOf(req: ProxyRequest): Op | undefined {
  const path = req.url.split('?')[0] ?? '';
  if (/\/pets\/?$/.test(path)) return req.method === 'POST' ? 'createPet' : req.method === 'GET' ? 'listPets' : undefined;
  if (/\/pets\/[^/]+$/.test(path) && req.method === 'GET') return 'getPet';
  return undefined;
}

function mapJson(res: ProxyResponse, fn: (body: unknown) => unknown): ProxyResponse {
  try {
    return { ...res, body: JSON.stringify(fn(JSON.parse(res.body))) };
  } catch {
    return res;
  }
}

/** Applies fn to every pet in a Pet or Pets body. */
function mapPets(res: ProxyResponse, fn: (pet: Record<string, unknown>) => Record<string, unknown>): ProxyResponse {
  if (res.status >= 300) return res;
  return mapJson(res, (body) => (Array.isArray(body) ? body.map((p) => fn(p as Record<string, unknown>)) : body && typeof body === 'object' ? fn(body as Record<string, unknown>) : body));
}

function mapErrors(res: ProxyResponse, fn: (error: Record<string, unknown>) => Record<string, unknown>): ProxyResponse {
  if (res.status < 400) return res;
  return mapJson(res, (body) => (body && typeof body === 'object' && !Array.isArray(body) ? fn(body as Record<string, unknown>) : body));
}

function withQuery(req: ProxyRequest, edit: (q: URLSearchParams) => void): ProxyRequest {
  const [path, query = ''] = req.url.split('?');
  const params = new URLSearchParams(query);
  edit(params);
  const q = params.toString();
  return { ...req, url: q ? `${path}?${q}` : path! };
}

function withoutHeaders(res: ProxyResponse, ...names: string[]): ProxyResponse {
  const headers = { ...res.headers };
  for (const n of names) delete headers[n];
  return { ...res, headers };
}

/** A rate-limit header the fault rewrites, when the server sent it as an integer. */
function num(res: ProxyResponse, name: string): number | undefined {
  return parseInteger(res.headers[name]) ?? undefined;
}

const FAKE_CREATE = 'x-fault-fake-create';

/** The first valid key the kit used, remembered so auth faults can substitute it. */
function rememberKey(req: ProxyRequest, memory: Map<string, unknown>): void {
  const auth = req.headers.authorization;
  if (auth && /^Bearer test-/.test(auth) && !memory.has('key')) memory.set('key', auth);
}

export const FAULTS: readonly Fault[] = [
  {
    id: 'create-answers-200',
    area: 'status codes',
    description: 'createPet answers 200 instead of 201',
    caughtBy: 'create.201',
    response: (res, req) => (operationOf(req) === 'createPet' && res.status === 201 ? { ...res, status: 200 } : res),
  },
  {
    id: 'unknown-pet-200',
    area: 'status codes',
    description: 'getPet of an unknown id answers 200 with a made-up pet',
    caughtBy: 'get.404',
    response: (res, req) =>
      operationOf(req) === 'getPet' && res.status === 404
        ? { ...res, status: 200, body: JSON.stringify({ id: Number(req.url.split('/').pop()), name: 'Ghost', categoryId: 1, status: STATUSES[0] }) }
        : res,
  },
  {
    id: 'drops-id',
    area: 'body shape',
    description: 'Pets are returned without their id',
    caughtBy: 'list.200',
    response: (res) => mapPets(res, ({ id: _id, ...rest }) => rest),
  },
  {
    id: 'wrapped-list',
    area: 'body shape',
    description: 'listPets wraps the array in an object ({ "pets": [...] })',
    caughtBy: 'list.200',
    response: (res, req) => (operationOf(req) === 'listPets' && res.status === 200 ? mapJson(res, (pets) => ({ pets })) : res),
  },
  {
    id: 'categoryid-string',
    area: 'types',
    description: 'categoryId is returned as a string',
    caughtBy: 'create.201',
    response: (res) => mapPets(res, (p) => ({ ...p, categoryId: String(p.categoryId) })),
  },
  {
    id: 'status-capitalised',
    area: 'types',
    description: 'status is returned outside the enumeration ("Available")',
    caughtBy: 'list.200',
    response: (res) => mapPets(res, (p) => ({ ...p, status: typeof p.status === 'string' ? p.status[0]!.toUpperCase() + p.status.slice(1) : p.status })),
  },
  {
    id: 'error-without-status',
    area: 'error bodies',
    description: 'Error bodies lack the status field',
    caughtBy: 'schema.every-response',
    response: (res) => mapErrors(res, ({ status: _s, ...rest }) => rest),
  },
  {
    id: 'error-status-mismatch',
    area: 'error bodies',
    description: 'Error bodies always say status 400',
    caughtBy: 'errors.status-field',
    response: (res) => mapErrors(res, (e) => ({ ...e, status: 400 })),
  },
  {
    id: 'not-found-text',
    area: 'error bodies',
    description: 'The 404 is text/plain "Not Found", not an Error body',
    caughtBy: 'get.404',
    response: (res) => (res.status === 404 ? { ...res, headers: { ...res.headers, 'content-type': 'text/plain' }, body: 'Not Found' } : res),
  },
  {
    id: 'no-www-authenticate',
    area: 'auth',
    description: '401 without WWW-Authenticate',
    caughtBy: 'auth.www-authenticate',
    strict: true,
    response: (res) => (res.status === 401 ? withoutHeaders(res, 'www-authenticate') : res),
  },
  {
    id: 'no-key-admitted',
    area: 'auth',
    description: 'A request without Authorization is served (200 without a key)',
    caughtBy: 'auth.401-missing',
    request: (req, { memory }) => {
      rememberKey(req, memory);
      return req.headers.authorization === undefined && memory.has('key') ? { ...req, headers: { ...req.headers, authorization: memory.get('key') as string } } : req;
    },
  },
  {
    id: 'any-key-admitted',
    area: 'auth',
    description: 'An unknown bearer key is accepted',
    caughtBy: 'auth.401-unknown-key',
    request: (req, { memory }) => {
      rememberKey(req, memory);
      const auth = req.headers.authorization;
      return auth && /^Bearer conformance-unknown-/.test(auth) && memory.has('key') ? { ...req, headers: { ...req.headers, authorization: memory.get('key') as string } } : req;
    },
  },
  {
    id: 'basic-scheme-accepted',
    area: 'auth',
    description: 'The key is accepted under the Basic scheme',
    caughtBy: 'auth.401-scheme',
    request: (req) => {
      const m = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
      if (!m) return req;
      const key = Buffer.from(m[1]!, 'base64').toString('utf8').replace(/:$/, '');
      return { ...req, headers: { ...req.headers, authorization: `Bearer ${key}` } };
    },
  },
  {
    id: 'accepts-unknown-status',
    area: 'validation',
    description: 'createPet accepts a status outside PetStatus (stores it as the first PetStatus)',
    caughtBy: 'create.400-invalid',
    request: (req) => {
      if (operationOf(req) !== 'createPet') return req;
      try {
        const body = JSON.parse(req.body) as Record<string, unknown>;
        if (typeof body.status === 'string' && !STATUSES.includes(body.status)) {
          return { ...req, body: JSON.stringify({ ...body, status: STATUSES[0] }) };
        }
      } catch {
        // leave malformed bodies alone
      }
      return req;
    },
  },
  {
    id: 'ignores-limit',
    area: 'limit and filter',
    description: 'listPets ignores limit',
    caughtBy: 'list.limit',
    request: (req) => (operationOf(req) === 'listPets' ? withQuery(req, (q) => q.delete('limit')) : req),
  },
  {
    id: 'ignores-status',
    area: 'limit and filter',
    description: 'listPets ignores the status filter',
    caughtBy: 'list.status-filter',
    request: (req) => (operationOf(req) === 'listPets' ? withQuery(req, (q) => q.delete('status')) : req),
  },
  {
    id: 'loses-created-pets',
    area: 'persistence',
    description: 'createPet answers 201 but stores nothing',
    caughtBy: 'create.retrievable',
    // A valid create is turned into a harmless list request (for genuine rate-limit headers), then
    // answered as if the pet had been stored.
    request: (req) => {
      if (operationOf(req) !== 'createPet') return req;
      try {
        const body = JSON.parse(req.body) as Record<string, unknown>;
        if (typeof body.name !== 'string' || typeof body.categoryId !== 'number' || typeof body.status !== 'string' || !STATUSES.includes(body.status)) return req;
        return { ...req, method: 'GET', url: req.url.replace(/\/pets\/?$/, '/pets?limit=1'), body: '', headers: { ...req.headers, [FAKE_CREATE]: req.body } };
      } catch {
        return req;
      }
    },
    response: (res, req, { memory }) => {
      const sent = req.headers[FAKE_CREATE];
      if (sent === undefined || res.status !== 200) return res;
      const n = ((memory.get('n') as number | undefined) ?? 0) + 1;
      memory.set('n', n);
      return { ...res, status: 201, body: JSON.stringify({ ...(JSON.parse(sent) as object), id: 900_000 + n }) };
    },
  },
  {
    id: 'create-drops-status',
    area: 'persistence',
    description: 'createPet ignores the status sent',
    caughtBy: 'create.echo',
    request: (req) => {
      if (operationOf(req) !== 'createPet') return req;
      try {
        const { status: _s, ...rest } = JSON.parse(req.body) as Record<string, unknown>;
        return typeof rest.name === 'string' && typeof rest.categoryId === 'number' ? { ...req, body: JSON.stringify(rest) } : req;
      } catch {
        return req;
      }
    },
  },
  {
    id: 'limit-zero-accepted',
    area: 'limit and filter',
    description: 'limit=0 is served as limit=1 instead of being refused',
    caughtBy: 'list.limit-bounds',
    strict: true,
    request: (req) => (operationOf(req) === 'listPets' && /[?&]limit=0(&|$)/.test(req.url) ? withQuery(req, (q) => q.set('limit', '1')) : req),
  },
  {
    id: 'next-link-repeats',
    area: 'limit and filter',
    description: 'Link rel="next" points back at the first page',
    caughtBy: 'list.next-link',
    response: (res) => {
      const link = res.headers.link;
      return link ? { ...res, headers: { ...res.headers, link: link.replace(/([?&])cursor=[^&>]*&?/, '$1') } } : res;
    },
  },
  {
    id: 'no-rate-limit-headers',
    area: 'rate-limit headers',
    description: 'Responses lack X-RateLimit-Limit/Remaining/Reset',
    caughtBy: 'headers.rate-limit',
    response: (res) => withoutHeaders(res, 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'),
  },
  {
    id: 'ietf-fields-malformed',
    area: 'rate-limit headers',
    description: 'RateLimit is not a structured field ("minute=12")',
    caughtBy: 'ratelimit.ietf-fields',
    strict: true,
    response: (res) => (res.headers.ratelimit ? { ...res, headers: { ...res.headers, ratelimit: `minute=${res.headers['x-ratelimit-remaining'] ?? 0}` } } : res),
  },
  {
    id: 'limit-varies',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Limit changes from one response to the next',
    caughtBy: 'ratelimit.limit-constant',
    needsRateLimitKey: true,
    response: (res, _req, { count }) => {
      const limit = num(res, 'x-ratelimit-limit');
      return limit === undefined || count % 7 !== 0 ? res : { ...res, headers: { ...res.headers, 'x-ratelimit-limit': String(limit + 1) } };
    },
  },
  {
    id: 'remaining-sticks',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Remaining never falls below the first value sent',
    caughtBy: 'ratelimit.remaining-decrements',
    needsRateLimitKey: true,
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization ?? '';
      const remaining = num(res, 'x-ratelimit-remaining');
      if (remaining === undefined || res.status === 429) return res;
      const first = (memory.get(auth) as number | undefined) ?? remaining;
      memory.set(auth, first);
      return { ...res, headers: { ...res.headers, 'x-ratelimit-remaining': String(first) } };
    },
  },
  {
    id: 'reset-moves',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Reset moves forward with every request',
    caughtBy: 'ratelimit.reset-stable',
    needsRateLimitKey: true,
    response: (res, _req, { count }) => {
      const reset = num(res, 'x-ratelimit-reset');
      return reset === undefined ? res : { ...res, headers: { ...res.headers, 'x-ratelimit-reset': String(reset + count) } };
    },
  },
  {
    id: 'reset-in-milliseconds',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Reset is sent in milliseconds',
    caughtBy: 'ratelimit.reset-future',
    needsRateLimitKey: true,
    response: (res) => {
      const reset = num(res, 'x-ratelimit-reset');
      return reset === undefined ? res : { ...res, headers: { ...res.headers, 'x-ratelimit-reset': String(reset * 1000) } };
    },
  },
  {
    id: 'over-admits',
    area: 'rate-limit enforcement',
    description: 'Two requests past the limit are still served',
    caughtBy: 'ratelimit.exhaustion-exact',
    needsRateLimitKey: true,
    response: (res, _req, { memory }) => {
      const served = (memory.get('served') as number | undefined) ?? 0;
      if (res.status !== 429 || served >= 2) return res;
      memory.set('served', served + 1);
      const headers = withoutHeaders(res, 'retry-after', 'cache-control').headers;
      return { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: '[]' };
    },
  },
  {
    id: 'serves-during-refusal',
    area: 'rate-limit enforcement',
    description: 'The fifth request repeated after a 429 is served before Retry-After',
    caughtBy: 'ratelimit.refused-until-retry',
    needsRateLimitKey: true,
    needsBanCheck: true,
    response: (res, _req, { memory }) => {
      if (res.status !== 429) return res;
      const refusals = ((memory.get('refusals') as number | undefined) ?? 0) + 1;
      memory.set('refusals', refusals);
      return refusals === 6 ? { status: 200, headers: { ...withoutHeaders(res, 'retry-after').headers, 'content-type': 'application/json' }, body: '[]' } : res;
    },
  },
  {
    id: 'ban-never-lifts',
    area: 'rate-limit enforcement',
    description: 'A ban goes on refusing after the Retry-After it announced',
    caughtBy: 'ratelimit.ban-lifts',
    needsRateLimitKey: true,
    needsBanCheck: true,
    response: (res, _req, { memory }) => {
      const retry = Number(res.headers['retry-after']);
      if (res.status === 429 && retry > 120) memory.set('banned', true);
      if (res.status === 200 && memory.get('banned') === true) {
        const refusal = { ...res, status: 429, headers: { ...res.headers, 'retry-after': '600', 'x-ratelimit-remaining': '0' } };
        return { ...refusal, body: JSON.stringify({ code: 'key_banned', message: 'Banned.', status: 429 }) };
      }
      return res;
    },
  },
  {
    id: 'remaining-not-zero-on-429',
    area: 'rate-limit enforcement',
    description: 'A 429 says one request remains',
    caughtBy: 'ratelimit.429',
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 ? { ...res, headers: { ...res.headers, 'x-ratelimit-remaining': '1' } } : res),
  },
  {
    id: '429-cacheable',
    area: 'rate-limit enforcement',
    description: '429 without Cache-Control: no-store',
    caughtBy: 'ratelimit.429-no-store',
    strict: true,
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 ? withoutHeaders(res, 'cache-control') : res),
  },
  {
    id: 'retry-after-missing',
    area: 'Retry-After',
    description: '429 without Retry-After',
    caughtBy: 'ratelimit.429',
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 ? withoutHeaders(res, 'retry-after') : res),
  },
  {
    id: 'retry-after-fraction',
    area: 'Retry-After',
    description: 'Retry-After as a fraction of seconds ("41.5")',
    caughtBy: 'ratelimit.retry-after-valid',
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 && res.headers['retry-after'] ? { ...res, headers: { ...res.headers, 'retry-after': `${Math.max(0, Number(res.headers['retry-after']) - 1)}.5` } } : res),
  },
  {
    id: 'retry-after-inconsistent',
    area: 'Retry-After',
    description: 'Retry-After ten minutes past X-RateLimit-Reset',
    caughtBy: 'ratelimit.retry-after-consistent',
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 && res.headers['retry-after'] ? { ...res, headers: { ...res.headers, 'retry-after': String(Number(res.headers['retry-after']) + 600) } } : res),
  },
  {
    id: 'retry-after-zero',
    area: 'Retry-After',
    description: 'Retry-After: 0 while the window is still closed',
    caughtBy: 'ratelimit.readmitted',
    needsRateLimitKey: true,
    response: (res) => (res.status === 429 ? { ...res, headers: { ...res.headers, 'retry-after': '0' } } : res),
  },
  {
    id: 'no-deprecation-header',
    area: 'deprecation',
    description: 'getPet without the Deprecation header',
    caughtBy: 'deprecation.header',
    strict: true,
    response: (res) => withoutHeaders(res, 'deprecation'),
  },
  {
    id: 'sunset-wrong-date',
    area: 'deprecation',
    description: 'Sunset names 5 December 2029, a year early',
    caughtBy: 'deprecation.sunset',
    strict: true,
    response: (res) => (res.headers.sunset ? { ...res, headers: { ...res.headers, sunset: 'Wed, 05 Dec 2029 00:00:00 GMT' } } : res),
  },
  {
    id: 'deprecation-everywhere',
    area: 'deprecation',
    description: 'listPets also claims to be deprecated',
    caughtBy: 'deprecation.scope',
    strict: true,
    response: (res, req) => (operationOf(req) === 'listPets' ? { ...res, headers: { ...res.headers, deprecation: '@1767225600' } } : res),
  },
];

/** Not a fault: Retry-After as an HTTP-date is valid RFC 9110, so it must pass (with a should warning). */
export const RETRY_AFTER_AS_DATE: FaultBehaviour = {
  response: (res) => {
    if (res.status !== 429 || !res.headers['retry-after']) return res;
    const reset = Number(res.headers['x-ratelimit-reset']);
    return { ...res, headers: { ...res.headers, 'retry-after': new Date(reset * 1000).toUTCString() } };
  },
};
