// Fault injection for client testing (--faults): Prism's `Prefer: code=429|503, delay=<ms>`, or faults
// the admin API schedules for a key's next requests, so a client is tested as it sends. An injected
// 429 is the limiter's own, the one the key would get, so it looks exactly like a real one and, like
// one, counts nothing.
import type { Plugin, Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { apiError } from '../errors.ts';
import type { KeyRing } from '../keys.ts';
import { apiKeyOf, bearerToken } from './auth.ts';
import { rejectInvalid } from './errors.ts';
import { andThen, RATE_LIMIT_PLUGIN, type Limiter } from '../rate-limit/limiter.ts';
import { INJECTABLE_CODES, requestedFault, type Fault } from '../../lib/prefer.ts';
import { INJECTED_ANSWERS, LOWER_HEADERS } from '../../spec/rules/contract.js';

export const FAULTS_PLUGIN = 'faults';

interface Scheduled extends Fault {
  remaining: number;
}

export interface FaultsOptions {
  keys: KeyRing;
  /** Whose 429 an injected one is: the key's own, as the limiter would answer it. */
  limiter: Limiter;
  /** The admin API's auth strategy, when the admin API is on: the scheduling routes use it. */
  adminStrategy?: string;
  /** Longest delay a request may ask for. */
  maxDelayMs: number;
}

/** A request's fault: what it asked for, and the code really answered in its place, if any. */
interface RequestFault extends Fault {
  injectedCode?: Fault['code'];
}

declare module '@hapi/hapi' {
  interface PluginsStates {
    faults?: RequestFault;
  }
}

const scheduleSchema = Joi.object({
  key: Joi.string().required(),
  code: Joi.valid(...INJECTABLE_CODES),
  delayMs: Joi.number().integer().min(0),
  count: Joi.number().integer().min(1).max(10_000).default(1),
})
  .or('code', 'delayMs')
  .required();

export const faultsPlugin: Plugin<FaultsOptions> = {
  name: FAULTS_PLUGIN,
  version: '1.0.0',
  register(server, { keys, limiter, adminStrategy, maxDelayMs }) {
    const schedule = new Map<string, Scheduled[]>();

    /** The fault of a request: its Prefer header, else the next one scheduled for its key. */
    const faultOf = (request: Request): Fault | string | undefined => {
      const preferred = requestedFault(request.headers, maxDelayMs);
      if (typeof preferred === 'string' || preferred.code !== undefined || preferred.delayMs !== undefined) return preferred;
      const token = bearerToken(request.headers.authorization);
      const key = token ? keys.lookup(token) : undefined;
      const queue = key ? schedule.get(key.keyId) : undefined;
      const next = queue?.[0];
      if (!next) return undefined;
      if (--next.remaining === 0) queue!.shift();
      return { ...(next.code ? { code: next.code } : {}), ...(next.delayMs !== undefined ? { delayMs: next.delayMs } : {}) };
    };

    server.ext('onPreAuth', (request, h) => {
      if (request.route.path.startsWith('/__admin') || (request.route.settings.auth as unknown) === false) return h.continue;
      const fault = faultOf(request);
      if (typeof fault === 'string') throw apiError('bad_request', fault);
      if (!fault) return h.continue;
      request.plugins[FAULTS_PLUGIN] = fault;
      return h.continue;
    });

    // A 429 is asked of the limiter where it would decide the request, before it counts it: the
    // key's own 429, counting nothing, decided as the request's verdict (so it is not counted after).
    server.ext(
      'onPostAuth',
      (request, h) => {
        const fault = request.plugins[FAULTS_PLUGIN];
        const key = fault?.code === 429 ? apiKeyOf(request) : undefined;
        if (!key) return h.continue;
        return andThen(limiter.refusalFor(request, key), ({ error, injected }) => {
          if (injected) fault!.injectedCode = 429;
          throw error;
        });
      },
      { before: [RATE_LIMIT_PLUGIN] },
    );

    // After the request is authenticated and counted: a 500 or 503 is an answer like any other.
    // A request refused before it (401, a real 429, a 400) never reaches this: its code is not injected.
    server.ext('onPreHandler', (request, h) => {
      const fault = request.plugins[FAULTS_PLUGIN];
      const code = fault?.code;
      if (code === 503 || code === 500) fault!.injectedCode = code;
      if (code === 503)
        throw apiError(INJECTED_ANSWERS[503].code, INJECTED_ANSWERS[503].message, { [LOWER_HEADERS.retryAfter]: INJECTED_ANSWERS[503].retryAfter });
      if (code === 500) throw apiError(INJECTED_ANSWERS[500].code, INJECTED_ANSWERS[500].message);
      return h.continue;
    });

    // X-Fault-Injected names what this answer really got: a code only where it replaced the answer.
    server.ext('onPreResponse', async (request, h) => {
      const fault = request.plugins[FAULTS_PLUGIN];
      if (!fault) return h.continue;
      if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      const injected = [fault.injectedCode ? `code=${fault.injectedCode}` : '', fault.delayMs ? `delay=${fault.delayMs}` : ''].filter(Boolean);
      if (injected.length === 0) return h.continue;
      const response = request.response;
      if ('isBoom' in response && response.isBoom) response.output.headers[LOWER_HEADERS.faultInjected] = injected.join(', ');
      else (response as ResponseObject).header(LOWER_HEADERS.faultInjected, injected.join(', '));
      return h.continue;
    });

    if (adminStrategy) server.route(scheduleRoutes(schedule, keys, adminStrategy));
  },
};

/** The admin API's routes that schedule faults for a key's next requests, list them and clear them. */
function scheduleRoutes(schedule: Map<string, Scheduled[]>, keys: KeyRing, adminStrategy: string): ServerRoute[] {
  const adminRoute = { auth: adminStrategy, plugins: { [RATE_LIMIT_PLUGIN]: 'admin' as const } };
  return [
    {
      method: 'POST',
      path: '/__admin/faults',
      options: {
        ...adminRoute,
        validate: { payload: scheduleSchema, failAction: rejectInvalid('invalid_body') },
        handler(request: Request, h: ResponseToolkit) {
          const { key: token, count, ...fault } = request.payload as Fault & { key: string; count: number };
          const key = keys.lookup(token);
          if (!key) throw apiError('invalid_body', '"key" is not a key this server knows.');
          const queue = schedule.get(key.keyId) ?? [];
          queue.push({ ...fault, remaining: count });
          schedule.set(key.keyId, queue);
          return h.response({ keyId: key.keyId, scheduled: queue.map(({ remaining, ...f }) => ({ ...f, remaining })) }).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/__admin/faults',
      options: { ...adminRoute, handler: () => Object.fromEntries([...schedule].map(([keyId, queue]) => [keyId, queue])) },
    },
    {
      method: 'DELETE',
      path: '/__admin/faults',
      options: {
        ...adminRoute,
        handler(_request: Request, h: ResponseToolkit) {
          schedule.clear();
          return h.response().code(204);
        },
      },
    },
  ];
}
