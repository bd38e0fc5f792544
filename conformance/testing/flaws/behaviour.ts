// Flaws in what the specification asks of every implementation: status codes, body shapes and
// types, error bodies, authentication, validation, limit and filter, persistence, deprecation.
import { LOWER_HEADERS, PET_STATUSES } from '../../../spec/rules/contract.js';
import { formatDeprecation, parseHttpDate } from '../../../spec/rules/fields.js';
import type { Flaw } from './flaw.ts';
import type { ProxyRequest } from './proxy.ts';
import { mapErrors, mapJson, mapPets, operationOf, withoutHeaders, withQuery } from './rewrite.ts';

const STATUSES: readonly string[] = PET_STATUSES;

const FAKE_CREATE = 'x-flaw-fake-create';

/** The first valid key the kit used, remembered so auth flaws can substitute it. */
function rememberKey(req: ProxyRequest, memory: Map<string, unknown>): void {
  const auth = req.headers.authorization;
  // The kit's preflight sends its key first: the first bearer key that is not the kit's made-up one.
  if (auth && /^Bearer /.test(auth) && !/^Bearer conformance-unknown-/.test(auth) && !memory.has('key')) memory.set('key', auth);
}

export const BEHAVIOUR_FLAWS: readonly Flaw[] = [
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
    response: (res) => (res.status === 401 ? withoutHeaders(res, 'www-authenticate') : res),
  },
  {
    id: 'no-key-admitted',
    area: 'auth',
    description: 'A request without Authorization is served (200 without a key)',
    caughtBy: 'auth.401-missing',
    request: (req, { memory }) => {
      rememberKey(req, memory);
      return req.headers.authorization === undefined && memory.has('key')
        ? { ...req, headers: { ...req.headers, authorization: memory.get('key') as string } }
        : req;
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
      return auth && /^Bearer conformance-unknown-/.test(auth) && memory.has('key')
        ? { ...req, headers: { ...req.headers, authorization: memory.get('key') as string } }
        : req;
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
        if (typeof body.name !== 'string' || typeof body.categoryId !== 'number' || typeof body.status !== 'string' || !STATUSES.includes(body.status))
          return req;
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
    // The second implementation's default is the status create.echo sends: a pet of every status shows it.
    onSecond: 'stateful.create-get',
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
    description: 'limit=0 is served as if no limit had been sent (the default page), neither refused nor clamped',
    caughtBy: 'list.limit-bounds',
    // The second implementation declares that it clamps: serving the default breaks its declaration.
    onSecond: 'choices.declared',
    request: (req) => (operationOf(req) === 'listPets' && /[?&]limit=0(&|$)/.test(req.url) ? withQuery(req, (q) => q.delete('limit')) : req),
  },
  {
    id: 'next-link-repeats',
    area: 'limit and filter',
    description: 'Link rel="next" points back at the first page',
    caughtBy: 'list.next-link',
    response: (res) => {
      const link = res.headers.link;
      // Whatever says where the next page starts (a cursor, a page, an offset) is taken out.
      return link ? { ...res, headers: { ...res.headers, link: link.replace(/([?&])(cursor|page|offset|after)=[^&>]*&?/g, '$1') } } : res;
    },
  },
  {
    id: 'no-deprecation-header',
    area: 'deprecation',
    description: 'getPet without the Deprecation header',
    caughtBy: 'deprecation.header',
    response: (res) => withoutHeaders(res, LOWER_HEADERS.deprecation),
  },
  {
    id: 'deprecation-in-future',
    area: 'deprecation',
    description: 'getPet\'s Deprecation names a day a month after the response ("will be deprecated"), though the specification says it is',
    caughtBy: 'deprecation.date-past',
    response: (res) => {
      if (!res.headers[LOWER_HEADERS.deprecation]) return res;
      // A month after every clock the kit may read: the response's Date and this machine's.
      const now = Math.max(Date.now(), parseHttpDate(res.headers.date, Date.now()) ?? 0);
      return { ...res, headers: { ...res.headers, [LOWER_HEADERS.deprecation]: formatDeprecation(now + 30 * 86_400_000) } };
    },
  },
  {
    id: 'sunset-wrong-date',
    area: 'deprecation',
    description: 'Sunset names 5 December 2029, a year before the removal day the specification states',
    caughtBy: 'deprecation.sunset-day',
    response: (res) =>
      res.headers[LOWER_HEADERS.sunset] ? { ...res, headers: { ...res.headers, [LOWER_HEADERS.sunset]: 'Wed, 05 Dec 2029 00:00:00 GMT' } } : res,
  },
  {
    id: 'no-sunset-header',
    area: 'deprecation',
    description: 'getPet without the Sunset header',
    caughtBy: 'deprecation.sunset',
    response: (res) => withoutHeaders(res, LOWER_HEADERS.sunset),
  },
  {
    id: 'deprecation-everywhere',
    area: 'deprecation',
    description: 'listPets also claims to be deprecated',
    caughtBy: 'deprecation.scope',
    response: (res, req) => (operationOf(req) === 'listPets' ? { ...res, headers: { ...res.headers, [LOWER_HEADERS.deprecation]: '@1767225600' } } : res),
  },
];
