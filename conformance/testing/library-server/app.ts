// The Express application: the rate limits first (every answer, a 401 included, carries the window it
// was counted in), then the key, then the routes under /v1. Handlers are thin; pets.ts decides.
import express, { type NextFunction, type Request, type Response } from 'express';
import { BASE_PATH, DEPRECATIONS } from '../../../spec/rules/contract.js';
import { formatDeprecation, formatHttpDate, formatSunset } from '../../../spec/rules/fields.js';
import { formatLinks } from '../../../spec/rules/link.js';
import { ApiError, badRequest, fromThrown, notFound, sendError } from './errors.ts';
import { planOf, rateLimits } from './limits.ts';
import type { ResolvedOptions } from './options.ts';
import { parseListQuery, toNewPet, type PetStore } from './pets.ts';

/** Our own deprecation date for getPet; the specification names only the removal day. */
export const DEPRECATED_SINCE_MS = Date.UTC(2025, 5, 1);
export const SUNSET_MS = Date.parse(DEPRECATIONS.getPet.sunset);

function requireKey(options: ResolvedOptions) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (planOf(req, options) !== undefined) return next();
    res.set('WWW-Authenticate', 'Bearer realm="adoption-store"');
    sendError(res, new ApiError(401, 'unauthorized', 'A valid API key is required: Authorization: Bearer <key>.'));
  };
}

function methodNotAllowed(allow: string) {
  return (req: Request, res: Response) => {
    res.set('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    sendError(res, new ApiError(405, 'method-not-allowed', `This path serves ${allow}.`));
  };
}

function petRoutes(store: PetStore): express.Router {
  const router = express.Router();
  router
    .route('/pets')
    .get((req, res) => {
      const query = parseListQuery(req.query);
      const page = store.list(query);
      if (page.more) {
        const next = new URLSearchParams({ offset: String(query.offset + query.limit), limit: String(query.limit) });
        if (query.status !== undefined) next.set('status', query.status);
        res.set('Link', formatLinks([{ target: `${BASE_PATH}/pets?${next}`, params: { rel: 'next' } }]));
      }
      res.json(page.pets);
    })
    .post(express.json(), (req, res) => {
      if (!req.is('application/json')) throw new ApiError(415, 'unsupported-media-type', 'The body must be application/json.');
      const pet = store.add(toNewPet(req.body));
      res.status(201).location(`${BASE_PATH}/pets/${pet.id}`).json(pet);
    })
    .all(methodNotAllowed('GET, HEAD, POST'));
  router
    .route('/pets/:petId')
    .get((req, res) => {
      if (Date.now() >= SUNSET_MS) throw new ApiError(410, 'gone', 'GET /pets/{petId} was removed; use GET /pets?status=… instead.');
      res.set({ Deprecation: formatDeprecation(DEPRECATED_SINCE_MS), Sunset: formatSunset(SUNSET_MS) });
      const raw = req.params.petId ?? '';
      if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw badRequest('petId must be a positive integer.');
      const pet = store.get(Number(raw));
      if (!pet) throw notFound(`No pet has id ${raw}.`);
      res.json(pet);
    })
    .all(methodNotAllowed('GET, HEAD'));
  return router;
}

export function createApp(options: ResolvedOptions, store: PetStore): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers the limiters never see (a ban's are set there) still tell the time Date.now tells.
  app.use((_req, res, next) => {
    res.set('Date', formatHttpDate(Date.now()));
    next();
  });
  app.use(...rateLimits(options));
  app.use(BASE_PATH, requireKey(options), petRoutes(store));
  app.use((req) => {
    throw notFound(`Nothing is served at ${req.method} ${req.path}.`);
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const refusal = fromThrown(error);
    if (res.headersSent) return void res.end();
    sendError(res, refusal);
  });
  return app;
}
