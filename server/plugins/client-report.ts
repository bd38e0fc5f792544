// Records how each API key's client behaves (judge/client-obligations.ts) and serves the report at
// GET /__admin/clients. On with the admin API, since only the admin API can read it. It exposes the
// recorder and a hook told each key's label after each of its answers, for the live view (live-view.ts).
import type { Plugin, Request, ResponseObject } from '@hapi/hapi';
import { ClientRecorder } from '../../judge/client-obligations.ts';
import { Listeners } from '../../lib/live/source.ts';
import type { Clock } from '../clock.ts';
import { apiKeyOf } from './auth.ts';
import { FAULTS_PLUGIN } from './faults.ts';
import { RATE_LIMIT_PLUGIN } from './rate-limit.ts';
import type { HeaderMap } from '../../spec/rules/fields.js';
import { readSnapshot } from '../../spec/rules/snapshot.js';

export interface ClientReportOptions {
  clock: Clock;
  adminStrategy: string;
  /** operationIds the contract marks deprecated. */
  deprecated: readonly string[];
  /** The raw keys, to show a key's first characters in the report. */
  labels: ReadonlyMap<string, string>;
}

export const CLIENT_REPORT_PLUGIN = 'client-report';

/** What other plugins reach through `server.plugins['client-report']`. */
export interface ClientReportApi {
  recorder: ClientRecorder;
  /** `listener` hears a key's label after each answer to it is recorded; the returned function stops that. */
  subscribe(listener: (label: string) => void): () => void;
}

declare module '@hapi/hapi' {
  interface PluginProperties {
    'client-report'?: ClientReportApi;
  }
}

interface Answered {
  status: number;
  code?: string;
  /** Retry-After when it is delay-seconds. */
  retryAfterSeconds?: number;
  limit?: number;
  remaining?: number;
  reset?: number;
}

function answerOf(request: Request, nowMs: number): Answered {
  const response = request.response;
  const boom = 'isBoom' in response && response.isBoom;
  const headers = (boom ? response.output.headers : (response as ResponseObject).headers) as HeaderMap;
  const code = boom ? (response.output.payload as { code?: string }).code : ((response as ResponseObject).source as { code?: unknown } | null)?.code;
  const status = boom ? response.output.statusCode : (response as ResponseObject).statusCode;
  // The server's own answer: its Date is this clock, so the snapshot need not read it.
  const { retryAfter, limit, remaining, reset } = readSnapshot({ status, headers, receivedAtMs: nowMs }, { dateHeader: false });
  return {
    status,
    ...(typeof code === 'string' ? { code } : {}),
    ...(retryAfter.form === 'delay-seconds' ? { retryAfterSeconds: retryAfter.seconds } : {}),
    ...(limit !== null ? { limit } : {}),
    ...(remaining !== null ? { remaining } : {}),
    ...(reset !== null ? { reset } : {}),
  };
}

export const clientReportPlugin: Plugin<ClientReportOptions> = {
  name: CLIENT_REPORT_PLUGIN,
  version: '1.0.0',
  register(server, { clock, adminStrategy, deprecated, labels }) {
    const recorder = new ClientRecorder(deprecated);
    const listeners = new Listeners();
    server.expose('recorder', recorder);
    server.expose('subscribe', (listener: (label: string) => void) => listeners.add(listener));
    server.ext(
      'onPreResponse',
      (request, h) => {
        const key = apiKeyOf(request);
        if (!key || !request.response) return h.continue;
        const atMs = clock.now();
        const { status, code, retryAfterSeconds, limit, remaining, reset } = answerOf(request, atMs);
        const label = labels.get(key.keyId) ?? key.keyId;
        recorder.observe({
          atMs,
          keyId: key.keyId,
          plan: key.plan,
          label,
          status,
          ...(code ? { code } : {}),
          ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
          ...(request.route.settings.id ? { operationId: request.route.settings.id } : {}),
          ...(limit !== undefined ? { limit } : {}),
          ...(remaining !== undefined ? { remaining } : {}),
          ...(reset !== undefined ? { resetAtMs: reset * 1000 } : {}),
          ...(request.plugins[FAULTS_PLUGIN]?.injectedCode !== undefined ? { injected: true } : {}),
        });
        listeners.tell(label);
        return h.continue;
      },
      { after: [RATE_LIMIT_PLUGIN] },
    );
    server.route({
      method: 'GET',
      path: '/__admin/clients',
      options: {
        auth: adminStrategy,
        plugins: { [RATE_LIMIT_PLUGIN]: 'admin' },
        handler: () => ({ generatedAt: new Date(clock.now()).toISOString(), clients: recorder.report() }),
      },
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
