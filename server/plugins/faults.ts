// Fault injection for client testing (--faults), with Prism's convention: `Prefer: code=<status>`
// answers any status the operation documents, `example=<name>` a named example of it, `delay=<ms>`
// holds the answer; or faults the admin API schedules for a key's next requests, so a client is tested
// as it sends. An injected 429 is the limiter's own, the one the key would get, so it looks exactly
// like a real one and, like one, counts nothing. A Prefer the server cannot honour is 400, uncounted.
import type { Plugin, Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { DocumentedResponse } from '../contract.ts';
import { apiError } from '../errors.ts';
import type { KeyRing } from '../keys.ts';
import { apiKeyOf, bearerToken } from './auth.ts';
import { rejectInvalid } from './errors.ts';
import { andThen, RATE_LIMIT_PLUGIN, type Limiter } from '../rate-limit/limiter.ts';
import { INJECTABLE_CODES, isInjectable, requestedFault, type Fault } from '../../lib/prefer.ts';
import { INJECTED_ANSWERS, LOWER_HEADERS } from '../../spec/rules/contract.js';
import type { OperationId } from '../../spec/contract-types.ts';
import type { Json } from '../../lib/openapi.ts';

export const FAULTS_PLUGIN = 'faults';

interface Scheduled extends Fault {
  remaining: number;
}

export interface FaultsOptions {
  keys: KeyRing;
  /** Whose 429 an injected one is: the key's own, as the limiter would answer it. */
  limiter: Limiter;
  /** Each operation's documented responses: what `code=` and `example=` may name. */
  responses: Readonly<Record<OperationId, readonly DocumentedResponse[]>>;
  /** Each key's label (spec/rules/redact.js) by keyId: how the admin API names a key. */
  labels: ReadonlyMap<string, string>;
  /** The admin API's auth strategy, when the admin API is on: the scheduling routes use it. */
  adminStrategy?: string;
  /** Longest delay a request may ask for. */
  maxDelayMs: number;
}

/** A documented answer chosen by `code=` or `example=`: its status, body and headers. */
interface Documented {
  status: number;
  body: Json;
  headers: Record<string, string>;
}

/** A request's fault: what it asked for, the code really answered in its place, or why it cannot be had. */
interface RequestFault extends Fault {
  injectedCode?: number;
  documented?: Documented;
  rejected?: string;
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

const statusList = (responses: readonly DocumentedResponse[]) => responses.map((r) => r.status).join(', ');

/**
 * What `code=` and `example=` ask of an operation, as Prism answers them: the documented response of
 * that status (its named example, else its first), or the first response holding that example. A
 * string says why it cannot be had. The x-fault-injection codes keep their own answers everywhere.
 */
export function documentedAnswer(fault: Fault, operation: OperationId | undefined, responses: readonly DocumentedResponse[]): Documented | string | undefined {
  const { code, example } = fault;
  if (code === undefined && example === undefined) return undefined;
  if (isInjectable(code)) {
    return example === undefined ? undefined : `Prefer: example= cannot be combined with code=${code}, whose answer is the injected one (X-Fault-Injected).`;
  }
  if (!operation)
    return `Prefer: code= and example= name the answers of an operation; ${code === undefined ? 'this path has none' : `code=${code} is not one here`}.`;
  const candidates = code === undefined ? responses : responses.filter((r) => r.status === code);
  if (candidates.length === 0) {
    return `Prefer: code=${code} is not a status ${operation} documents (it documents ${statusList(responses)}; ${INJECTABLE_CODES.join(', ')} are injected everywhere).`;
  }
  for (const response of candidates) {
    const chosen = example === undefined ? response.examples[0] : response.examples.find((e) => e.name === example);
    if (chosen) return { status: response.status, body: chosen.value, headers: response.headers };
  }
  const names = candidates.flatMap((r) => r.examples.flatMap((e) => (e.name ? [e.name] : [])));
  if (example === undefined) return `Prefer: code=${code} of ${operation} documents no example to answer with.`;
  return `Prefer: example=${example} is not an example ${code === undefined ? `of ${operation}` : `of ${operation}'s ${code}`} (${names.length > 0 ? `it has ${names.join(', ')}` : 'it names none'}).`;
}

export const faultsPlugin: Plugin<FaultsOptions> = {
  name: FAULTS_PLUGIN,
  version: '1.0.0',
  register(server, { keys, limiter, responses, labels, adminStrategy, maxDelayMs }) {
    const schedule = new Map<string, Scheduled[]>();

    /** The fault of a request: its Prefer header, else the next one scheduled for its key. */
    const faultOf = (request: Request): Fault | string | undefined => {
      const preferred = requestedFault(request.headers, maxDelayMs);
      if (typeof preferred === 'string' || Object.keys(preferred).length > 0) return preferred;
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
      if (!fault) return h.continue;
      if (typeof fault === 'string') {
        request.plugins[FAULTS_PLUGIN] = { rejected: fault };
        return h.continue;
      }
      const operation = request.route.settings.id as OperationId | undefined;
      const documented = documentedAnswer(fault, operation, operation ? (responses[operation] ?? []) : []);
      if (typeof documented === 'string') request.plugins[FAULTS_PLUGIN] = { rejected: documented };
      else request.plugins[FAULTS_PLUGIN] = { ...fault, ...(documented ? { documented } : {}) };
      return h.continue;
    });

    // Where the limiter would decide the request, before it counts it. A Prefer that cannot be had is
    // a harness's mistake, not traffic: 400 with the key's window as it stands, counting nothing (or
    // the key's real 429 if it is refused anyway). A 429 is the key's own, counting nothing, decided
    // as the request's verdict (so it is not counted after).
    server.ext(
      'onPostAuth',
      (request, h) => {
        const fault = request.plugins[FAULTS_PLUGIN];
        const key = fault && (fault.rejected !== undefined || fault.code === 429) ? apiKeyOf(request) : undefined;
        if (fault?.rejected !== undefined) {
          const probed = key ? limiter.probe(request, key) : undefined;
          return andThen(probed, (decided) => {
            if (decided && !decided.admitted) throw limiter.refusal(decided);
            throw apiError('bad_request', fault.rejected!);
          });
        }
        if (!key) return h.continue;
        return andThen(limiter.refusalFor(request, key), ({ error, injected }) => {
          if (injected) fault!.injectedCode = 429;
          throw error;
        });
      },
      { before: [RATE_LIMIT_PLUGIN] },
    );

    // After the request is authenticated and counted: a 500, a 503 or a documented answer is an
    // answer like any other. A request refused before it (401, a real 429, a 400) never reaches this.
    server.ext('onPreHandler', (request, h) => {
      const fault = request.plugins[FAULTS_PLUGIN];
      const code = fault?.code;
      if (fault?.documented) {
        const { status, body, headers } = fault.documented;
        fault.injectedCode = status;
        const response = h
          .response(body as object)
          .code(status)
          .type('application/json');
        for (const [name, value] of Object.entries(headers)) response.header(name, value);
        return response.takeover();
      }
      if (code === 503 || code === 500) fault!.injectedCode = code;
      if (code === 503)
        throw apiError(INJECTED_ANSWERS[503].code, INJECTED_ANSWERS[503].message, { [LOWER_HEADERS.retryAfter]: INJECTED_ANSWERS[503].retryAfter });
      if (code === 500) throw apiError(INJECTED_ANSWERS[500].code, INJECTED_ANSWERS[500].message);
      return h.continue;
    });

    // X-Fault-Injected names what this answer really got: a code only where it replaced the answer.
    server.ext('onPreResponse', async (request, h) => {
      const fault = request.plugins[FAULTS_PLUGIN];
      if (!fault || fault.rejected !== undefined) return h.continue;
      if (fault.delayMs) await new Promise((resolve) => setTimeout(resolve, fault.delayMs));
      const injected = [fault.injectedCode ? `code=${fault.injectedCode}` : '', fault.delayMs ? `delay=${fault.delayMs}` : ''].filter(Boolean);
      if (injected.length === 0) return h.continue;
      const response = request.response;
      if ('isBoom' in response && response.isBoom) response.output.headers[LOWER_HEADERS.faultInjected] = injected.join(', ');
      else (response as ResponseObject).header(LOWER_HEADERS.faultInjected, injected.join(', '));
      return h.continue;
    });

    if (adminStrategy) server.route(scheduleRoutes(schedule, keys, labels, adminStrategy));
  },
};

/** The admin API's routes that schedule faults for a key's next requests, list them and clear them. */
function scheduleRoutes(schedule: Map<string, Scheduled[]>, keys: KeyRing, labels: ReadonlyMap<string, string>, adminStrategy: string): ServerRoute[] {
  const adminRoute = { auth: adminStrategy, plugins: { [RATE_LIMIT_PLUGIN]: 'admin' as const } };
  const labelOf = (keyId: string) => labels.get(keyId) ?? keyId;
  const listed = (queue: Scheduled[]) => queue.map(({ remaining, ...f }) => ({ ...f, remaining }));
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
          return h.response({ key: labelOf(key.keyId), scheduled: listed(queue) }).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/__admin/faults',
      options: { ...adminRoute, handler: () => Object.fromEntries([...schedule].map(([keyId, queue]) => [labelOf(keyId), listed(queue)])) },
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
