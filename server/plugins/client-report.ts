// Records how each API key's client behaves (client-report/recorder.ts) and serves the report at
// GET /__admin/clients. On with the admin API, since only the admin API can read it.
import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import { ClientRecorder } from '../client-report/recorder.ts';
import type { Clock } from '../clock.ts';
import { apiKeyOf } from './auth.ts';
import { RATE_LIMIT_PLUGIN } from './rate-limit.ts';

export interface ClientReportOptions {
  clock: Clock;
  adminStrategy: string;
  /** operationIds the contract marks deprecated. */
  deprecated: readonly string[];
  /** The raw keys, to show a key's first characters in the report. */
  labels: ReadonlyMap<string, string>;
}

function answerOf(request: Request): { status: number; code?: string; retryAfter?: string } {
  const response = request.response;
  if ('isBoom' in response && response.isBoom) {
    const payload = response.output.payload as { code?: string };
    const retryAfter = response.output.headers['retry-after'] ?? response.output.headers['Retry-After'];
    return { status: response.output.statusCode, ...(payload.code ? { code: payload.code } : {}), ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}) };
  }
  const plain = response as ResponseObject;
  const source = plain.source as { code?: unknown } | null;
  const retryAfter = plain.headers['retry-after'];
  return { status: plain.statusCode, ...(typeof source?.code === 'string' ? { code: source.code } : {}), ...(retryAfter !== undefined ? { retryAfter: String(retryAfter) } : {}) };
}

export const clientReportPlugin: Plugin<ClientReportOptions> = {
  name: 'client-report',
  version: '1.0.0',
  register(server, { clock, adminStrategy, deprecated, labels }) {
    const recorder = new ClientRecorder(deprecated);
    server.ext(
      'onPreResponse',
      (request, h) => {
        const key = apiKeyOf(request);
        if (!key || !request.response) return h.continue;
        const { status, code, retryAfter } = answerOf(request);
        recorder.observe({
          atMs: clock.now(),
          keyId: key.keyId,
          plan: key.plan,
          label: labels.get(key.keyId) ?? key.keyId,
          status,
          ...(code ? { code } : {}),
          ...(retryAfter !== undefined && /^\d+$/.test(retryAfter) ? { retryAfterSeconds: Number(retryAfter) } : {}),
          ...(request.route.settings.id ? { operationId: request.route.settings.id } : {}),
        });
        return h.continue;
      },
      { after: [RATE_LIMIT_PLUGIN] },
    );
    server.route({
      method: 'GET',
      path: '/__admin/clients',
      options: { auth: adminStrategy, plugins: { [RATE_LIMIT_PLUGIN]: 'admin' }, handler: () => ({ generatedAt: new Date(clock.now()).toISOString(), clients: recorder.report() }) },
    });
    server.route({
      method: 'DELETE',
      path: '/__admin/clients',
      options: {
        auth: adminStrategy,
        plugins: { [RATE_LIMIT_PLUGIN]: 'admin' },
        handler: (_request, h) => {
          recorder.reset();
          return h.response().code(204);
        },
      },
    });
  },
};
