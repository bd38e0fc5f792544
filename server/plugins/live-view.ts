// The live view of the clients (lib/live), from the client report's recorder, on with the admin API.
// The page is a shell served without the token; it sends the token from the URL fragment or its form
// as a header on fetch(), since an EventSource cannot and a URL would leak it (server/README.md,
// Watching your client live). The events route is an admin route like any other.
import type { Plugin } from '@hapi/hapi';
import type { ClientReport } from '../../judge/client-obligations.ts';
import { brokenObligations } from '../../judge/client-obligations.ts';
import type { Clock } from '../clock.ts';
import { DEFAULT_MAX_WATCHERS, LiveFeed } from '../../lib/live/feed.ts';
import { LIVE_PAGE_CSP, livePage } from '../../lib/live/page.ts';
import { pickLabels } from '../../lib/live/ranks.ts';
import { boundedFindings, windowState, type LiveKey, type LiveSource } from '../../lib/live/source.ts';
import { ADMIN_PREFIX } from './admin.ts';
import { CLIENT_REPORT_PLUGIN } from './client-report.ts';
import { RATE_LIMIT_PLUGIN } from './rate-limit.ts';

export const LIVE_VIEW_PATH = `${ADMIN_PREFIX}/live`;

export interface LiveViewPluginOptions {
  clock: Clock;
  adminStrategy: string;
  /** Watchers at once; one more is answered 503 with Retry-After. */
  maxWatchers?: number;
}

/** A client as the page shows it: the recorder judges the client only, so every finding is the client's. */
function liveKeyOf(client: ClientReport, nowMs: number): LiveKey {
  return {
    key: client.key,
    requests: client.requests,
    refused: client.refused,
    ...windowState(client.timeline, nowMs),
    ...boundedFindings(brokenObligations(client).map((b) => ({ side: 'client' as const, ...b }))),
    client: { ready: client.ready, warnings: client.warnings },
    timeline: { key: client.key, points: client.timeline, title: `Requests of ${client.key} (${client.plan})` },
  };
}

export const liveViewPlugin: Plugin<LiveViewPluginOptions> = {
  name: 'live-view',
  version: '1.0.0',
  dependencies: [CLIENT_REPORT_PLUGIN],
  register(server, { clock, adminStrategy, maxWatchers = DEFAULT_MAX_WATCHERS }) {
    const { recorder, subscribe } = server.plugins[CLIENT_REPORT_PLUGIN]!;
    // Keys are chosen from the recorder's counters; only a key shown is reported, timeline and all.
    const source: LiveSource = {
      now: () => clock.now(),
      list: (query) => ({ ...pickLabels(recorder.ranks(), query), total: recorder.size }),
      key: (label) => {
        const client = recorder.reportByLabel(label);
        return client ? liveKeyOf(client, clock.now()) : undefined;
      },
      subscribe: (listener) => subscribe(listener),
    };
    const feed = new LiveFeed({ source, maxWatchers });
    const page = livePage({ title: 'Live view of the clients', eventsUrl: `${LIVE_VIEW_PATH}/events`, token: true });
    // Before the listener stops: an open stream would otherwise hold stop() until its timeout.
    server.ext('onPreStop', () => feed.close());

    server.route([
      {
        method: 'GET',
        path: LIVE_VIEW_PATH,
        options: {
          auth: false,
          plugins: { [RATE_LIMIT_PLUGIN]: false },
          handler: (_request, h) =>
            h
              .response(page)
              .type('text/html; charset=utf-8')
              .header('content-security-policy', LIVE_PAGE_CSP)
              .header('cache-control', 'no-store')
              .header('referrer-policy', 'no-referrer'),
        },
      },
      {
        method: 'GET',
        path: `${LIVE_VIEW_PATH}/events`,
        options: {
          auth: adminStrategy,
          plugins: { [RATE_LIMIT_PLUGIN]: 'admin' },
          handler: (request, h) => {
            feed.connect(request.raw.req, request.raw.res);
            return h.abandon;
          },
        },
      },
    ]);
  },
};
