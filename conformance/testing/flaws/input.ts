// Flaws in input handling, the kind only generated inputs find: the fixed checks send a handful of
// plain requests and pass every one of these; the generated phases (the one named as `foundBy`)
// catch each. flaws.test.ts shows both and prints the score.
import { PET_STATUSES } from '../../../spec/rules/contract.js';
import type { Flaw } from './flaw.ts';
import type { ProxyRequest, ProxyResponse } from './proxy.ts';
import { operationOf, withoutHeaders, withQuery } from './rewrite.ts';

const STATUSES: readonly string[] = PET_STATUSES;

function body(req: ProxyRequest): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(req.body) as unknown;
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function withBody(req: ProxyRequest, next: Record<string, unknown>): ProxyRequest {
  return { ...req, body: JSON.stringify(next) };
}

/** The server's own answer turned into a 500 with an Error body (its rate-limit headers kept). */
function serverError(res: ProxyResponse): ProxyResponse {
  return {
    ...res,
    status: 500,
    headers: { ...res.headers, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify({ code: 'internal_error', message: 'An unexpected error occurred.', status: 500 }),
  };
}

const creating = (req: ProxyRequest) => operationOf(req) === 'createPet';

export const INPUT_FLAWS: readonly Flaw[] = [
  {
    id: 'name-non-ascii-500',
    area: 'server errors',
    description: 'createPet answers 500 when the name holds a character outside ASCII',
    caughtBy: 'errors.no-server-error',
    foundBy: 'coverage',
    response: (res, req) => {
      const name = creating(req) ? body(req)?.name : undefined;
      return typeof name === 'string' && /[^\x00-\x7f]/.test(name) ? serverError(res) : res;
    },
  },
  {
    id: 'categoryid-fraction-accepted',
    area: 'types',
    description: 'A categoryId with a fraction (1.5) is accepted, rounded down',
    caughtBy: 'input.invalid-rejected',
    foundBy: 'coverage',
    request: (req) => {
      const b = creating(req) ? body(req) : undefined;
      return b && typeof b.categoryId === 'number' && !Number.isInteger(b.categoryId) ? withBody(req, { ...b, categoryId: Math.floor(b.categoryId) }) : req;
    },
  },
  {
    id: 'last-status-refused',
    area: 'types',
    description: `createPet refuses the status "${STATUSES.at(-1)}" with 400, as if it were not a PetStatus`,
    caughtBy: 'input.valid-accepted',
    foundBy: 'coverage',
    request: (req) => {
      const b = creating(req) ? body(req) : undefined;
      return b && b.status === STATUSES.at(-1) ? withBody(req, { ...b, status: `${String(b.status)}-refused` }) : req;
    },
  },
  {
    id: 'other-methods-500',
    area: 'methods',
    description: 'PUT, PATCH and DELETE are answered 500 instead of 405',
    caughtBy: 'errors.no-server-error',
    foundBy: 'coverage',
    response: (res, req) => (['PUT', 'PATCH', 'DELETE'].includes(req.method) ? serverError(res) : res),
  },
  {
    id: 'no-allow-on-405',
    area: 'methods',
    description: '405 without the Allow header',
    caughtBy: 'methods.405',
    foundBy: 'coverage',
    response: (res) => (res.status === 405 ? withoutHeaders(res, 'allow') : res),
  },
  {
    id: 'charset-refused',
    area: 'media types',
    description: 'A body sent as "application/json; charset=utf-8" is refused with 415',
    caughtBy: 'media.json-variants',
    foundBy: 'coverage',
    request: (req) =>
      creating(req) && /;\s*charset=utf-8/i.test(req.headers['content-type'] ?? '')
        ? { ...req, headers: { ...req.headers, 'content-type': 'text/plain' } }
        : req,
  },
  {
    id: 'media-type-case-sensitive',
    area: 'media types',
    description: 'The media type is compared case-sensitively: "APPLICATION/JSON" is refused with 415',
    caughtBy: 'media.json-variants',
    foundBy: 'coverage',
    request: (req) => {
      const type = req.headers['content-type'] ?? '';
      return creating(req) && type !== type.toLowerCase() ? { ...req, headers: { ...req.headers, 'content-type': 'text/plain' } } : req;
    },
  },
  {
    id: 'malformed-json-500',
    area: 'media types',
    description: 'A body that is not JSON is answered 500',
    caughtBy: 'media.not-json-refused',
    foundBy: 'coverage',
    response: (res, req) =>
      creating(req) && res.status === 400 && req.body.trim() !== '' && body(req) === undefined && !/^\s*(\[|"|-?\d|null|true|false)/.test(req.body)
        ? serverError(res)
        : res,
  },
  {
    id: 'text-plain-accepted',
    area: 'media types',
    description: 'A body sent as text/plain is read as JSON and the pet created',
    caughtBy: 'media.refusals',
    foundBy: 'coverage',
    request: (req) =>
      creating(req) && /^text\/plain/i.test(req.headers['content-type'] ?? '')
        ? { ...req, headers: { ...req.headers, 'content-type': 'application/json' } }
        : req,
  },
  {
    id: 'unknown-encoding-ignored',
    area: 'media types',
    description: 'An unknown Content-Encoding is ignored and the body read as it is',
    caughtBy: 'media.refusals',
    foundBy: 'coverage',
    request: (req) => {
      const coding = (req.headers['content-encoding'] ?? '').toLowerCase();
      if (!coding || ['gzip', 'deflate', 'identity'].includes(coding)) return req;
      const { 'content-encoding': _dropped, ...headers } = req.headers;
      return { ...req, headers };
    },
  },
  {
    id: 'limit-word-ignored',
    area: 'limit and filter',
    description: 'A limit that is not a number is ignored: the default page is served',
    caughtBy: 'input.invalid-rejected',
    foundBy: 'coverage',
    request: (req) => (operationOf(req) === 'listPets' && /[?&]limit=[^&]*[^-\d&][^&]*(&|$)/.test(req.url) ? withQuery(req, (q) => q.delete('limit')) : req),
  },
  {
    id: 'categoryid-int32-500',
    area: 'boundaries',
    description: 'A categoryId above 2^31 − 1 is answered 500 (a 32-bit column)',
    caughtBy: 'errors.no-server-error',
    foundBy: 'coverage',
    response: (res, req) => {
      const id = creating(req) ? body(req)?.categoryId : undefined;
      return res.status === 201 && typeof id === 'number' && id > 2 ** 31 - 1 ? serverError(res) : res;
    },
  },
  {
    id: 'name-length-off-by-one',
    area: 'boundaries',
    description: 'A name of exactly 100 characters is refused (the bound is checked as < 100)',
    caughtBy: 'input.decision-valid-accepted',
    // The second implementation has no upper bound of its own: the longer name is stored, and comes back.
    onSecond: 'stateful.create-get',
    foundBy: 'coverage',
    request: (req) => {
      const b = creating(req) ? body(req) : undefined;
      return b && typeof b.name === 'string' && [...b.name].length === 100 ? withBody(req, { ...b, name: `${b.name}x` }) : req;
    },
  },
  {
    id: 'truncates-long-names',
    area: 'persistence',
    description: 'Names are stored cut to 50 characters, and the 201 says so',
    caughtBy: 'stateful.create-get',
    foundBy: 'stateful',
    request: (req) => {
      const b = creating(req) ? body(req) : undefined;
      return b && typeof b.name === 'string' && [...b.name].length > 50 ? withBody(req, { ...b, name: [...b.name].slice(0, 50).join('') }) : req;
    },
  },
  {
    id: 'refused-yet-stored',
    area: 'persistence',
    description: 'A body with a status outside PetStatus is answered 400, but the pet is stored (as the first status)',
    caughtBy: 'input.invalid-not-stored',
    foundBy: 'coverage',
    request: (req) => {
      const b = creating(req) ? body(req) : undefined;
      if (!b || typeof b.status !== 'string' || STATUSES.includes(b.status) || typeof b.name !== 'string' || typeof b.categoryId !== 'number') return req;
      return { ...withBody(req, { ...b, status: STATUSES[0] }), headers: { ...req.headers, 'x-flaw-refuse': '1' } };
    },
    response: (res, req) =>
      req.headers['x-flaw-refuse'] && res.status === 201
        ? { ...res, status: 400, body: JSON.stringify({ code: 'invalid_body', message: `"status" must be one of [${STATUSES.join(', ')}]`, status: 400 }) }
        : res,
  },
];
