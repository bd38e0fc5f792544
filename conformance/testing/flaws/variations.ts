// Flaws in how a server meets the variations real clients send (checks/variations.ts); only the
// coverage phase finds them. Both implementations serve HEAD as GET, so the HEAD flaws forward HEAD
// as it came and break one thing in its answer (Node sends no content after a HEAD answer).
import { LIST_LIMIT, LOWER_HEADERS, PET_STATUSES } from '../../../spec/rules/contract.js';
import type { Flaw } from './flaw.ts';
import type { FlawState, ProxyRequest, ProxyResponse } from './proxy.ts';
import { operationOf, remembered, withoutHeaders } from './rewrite.ts';

const STATUSES: readonly string[] = PET_STATUSES;

/** The bearer tokens the implementation admitted (a 2xx), learned as they pass. */
function admitted(state: FlawState): Set<string> {
  return remembered(state.memory, 'admitted', () => new Set<string>());
}

function tokenOf(req: ProxyRequest): string | undefined {
  return /^\S+ +(\S+)$/.exec(req.headers.authorization ?? '')?.[1];
}

function learn(res: ProxyResponse, req: ProxyRequest, state: FlawState): ProxyResponse {
  const token = tokenOf(req);
  if (token !== undefined && res.status >= 200 && res.status < 300) admitted(state).add(token);
  return res;
}

function withoutAuthorization(req: ProxyRequest): ProxyRequest {
  const { authorization: _authorization, ...headers } = req.headers;
  return { ...req, headers };
}

/** Whether a request's input is one the specification refuses: a query, path id or body. */
function invalidInput(req: ProxyRequest): boolean {
  const op = operationOf(req);
  if (op === 'getPet') return !/^[0-9]+$/.test(req.url.split('?')[0]!.split('/').pop() ?? '');
  if (op === 'listPets') {
    const query = new URLSearchParams(req.url.split('?')[1] ?? '');
    const limit = query.get('limit');
    const status = query.get('status');
    if (limit !== null && (!/^[0-9]+$/.test(limit) || Number(limit) < LIST_LIMIT.minimum || Number(limit) > LIST_LIMIT.maximum)) return true;
    return status !== null && !STATUSES.includes(status);
  }
  if (op === 'createPet') {
    try {
      const body = JSON.parse(req.body) as Record<string, unknown> | null;
      return !body || typeof body !== 'object' || typeof body.name !== 'string' || !Number.isInteger(body.categoryId);
    } catch {
      return true;
    }
  }
  return false;
}

export const VARIATION_FLAWS: readonly Flaw[] = [
  {
    id: 'head-not-routed',
    area: 'client variations',
    description: 'HEAD is routed nowhere: every HEAD is answered 404, where GET answers 200 or 401',
    caughtBy: 'variations.head',
    foundBy: 'coverage',
    request: (req) => (req.method === 'HEAD' ? { status: 404, headers: { 'content-type': 'application/json' }, body: '' } : req),
  },
  {
    id: 'head-skips-auth',
    area: 'client variations',
    description: 'HEAD is served without a valid key (a HEAD route left outside authentication): 200 where GET answers 401',
    caughtBy: 'variations.head',
    foundBy: 'coverage',
    request: (req, state) => {
      if (req.method !== 'HEAD') return req;
      const token = tokenOf(req);
      const known = [...admitted(state)][0];
      return known !== undefined && (token === undefined || !admitted(state).has(token))
        ? { ...req, headers: { ...req.headers, authorization: `Bearer ${known}` } }
        : req;
    },
    response: learn,
  },
  {
    id: 'head-without-deprecation',
    area: 'client variations',
    description: 'HEAD answers of getPet lack Deprecation and Sunset (headers added by the GET handler only)',
    caughtBy: 'variations.head-headers',
    foundBy: 'coverage',
    response: (res, req) => (req.method === 'HEAD' ? withoutHeaders(res, LOWER_HEADERS.deprecation, LOWER_HEADERS.sunset) : res),
  },
  {
    id: 'head-405',
    area: 'client variations',
    description: 'HEAD is refused with 405 and Allow: GET (a router that matches methods exactly), though counted like any request',
    caughtBy: 'variations.head',
    foundBy: 'coverage',
    response: (res, req) => {
      if (req.method !== 'HEAD') return res;
      const refused = withoutHeaders(res, 'www-authenticate', LOWER_HEADERS.deprecation, LOWER_HEADERS.sunset, 'link', 'allow');
      return { ...refused, status: 405, headers: { ...refused.headers, allow: 'GET', 'content-type': 'application/json' }, body: '' };
    },
  },
  {
    id: 'scheme-case-sensitive',
    area: 'client variations',
    description: 'The scheme must be spelled "Bearer" exactly: bearer, BEARER with a valid key are answered 401',
    caughtBy: 'variations.scheme-case',
    foundBy: 'coverage',
    request: (req) => {
      const auth = req.headers.authorization ?? '';
      return /^bearer /i.test(auth) && !/^Bearer /.test(auth) ? withoutAuthorization(req) : req;
    },
  },
  {
    id: 'scheme-one-space',
    area: 'client variations',
    description: 'The key is read after exactly one space: "Bearer  <key>" (two spaces) is answered 401',
    caughtBy: 'variations.scheme-spaces',
    foundBy: 'coverage',
    request: (req) => (/^\S+ {2,}/.test(req.headers.authorization ?? '') ? withoutAuthorization(req) : req),
  },
  {
    id: 'key-case-insensitive',
    area: 'client variations',
    description: 'Keys are compared without regard to case: an upper-cased valid key is served',
    caughtBy: 'variations.key-case',
    foundBy: 'coverage',
    request: (req, state) => {
      const token = tokenOf(req);
      if (token === undefined || admitted(state).has(token)) return req;
      const real = [...admitted(state)].find((k) => k.toLowerCase() === token.toLowerCase());
      return real === undefined ? req : { ...req, headers: { ...req.headers, authorization: `Bearer ${real}` } };
    },
    response: learn,
  },
  {
    id: 'validates-before-auth',
    area: 'client variations',
    description: 'Input is validated before the key: an invalid query, id or body without a valid key is answered 400',
    caughtBy: 'variations.auth-first',
    foundBy: 'coverage',
    response: (res, req) => {
      if (res.status !== 401 || !invalidInput(req)) return res;
      const body = { code: 'invalid_parameter', message: 'The request is invalid.', status: 400 };
      return { ...withoutHeaders(res, 'www-authenticate'), status: 400, body: JSON.stringify(body) };
    },
  },
];
