// Deprecation (RFC 9745), Sunset (RFC 8594) and their Link relations on every response of a
// route whose own configuration says it is deprecated, and 410 Gone once its sunset has passed.
// A route opts in with one block: `options.plugins.deprecation = { since, sunset, successor }`.
import type { Plugin, Request, RequestRoute, ResponseObject } from '@hapi/hapi';
import Joi from 'joi';
import { formatDeprecation, formatSunset } from '../../spec/rules/fields.js';
import { formatLinks } from '../../spec/rules/link.js';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';
import type { Clock } from '../clock.ts';
import { apiError } from '../errors.ts';
import { RATE_LIMIT_PLUGIN } from './rate-limit.ts';

export const DEPRECATION_PLUGIN = 'deprecation';

export interface DeprecationRouteOptions {
  /** When the operation became deprecated (ISO 8601); sent as `Deprecation: @<epoch seconds>`. */
  since: string;
  /** When it stops working (ISO 8601); sent as an HTTP-date in `Sunset`. Never before `since`. */
  sunset: string;
  /** The operation to use instead, linked with rel="successor-version". */
  successor?: string;
  /** Human-readable notice, linked with rel="deprecation" and rel="sunset"; default: the plugin's. */
  link?: string;
}

declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    deprecation?: DeprecationRouteOptions;
  }
}

export interface DeprecationPluginOptions {
  clock: Clock;
  /** Where deprecated routes point for the details, unless a route names its own page. */
  link?: string;
}

/** The page the server itself serves about its deprecations (plugins/discovery.ts). */
export const DEPRECATIONS_PAGE = '/docs/deprecations';
const DEFAULT_LINK = DEPRECATIONS_PAGE;

const routeSchema = Joi.object({
  since: Joi.date().iso().required(),
  sunset: Joi.date().iso().min(Joi.ref('since')).required(),
  successor: Joi.string().min(1),
  link: Joi.string().uri(),
});

interface Notice {
  sinceMs: number;
  sunsetMs: number;
  headers: Record<string, string>;
  /** The same, as pairs: walked on every response of the route. */
  entries: ReadonlyArray<readonly [string, string]>;
  gone: string;
}

/** Header values for one route's settings; pure, for the tests. */
export function deprecationHeaders(settings: DeprecationRouteOptions, defaultLink: string): Record<string, string> {
  const link = settings.link ?? defaultLink;
  const links: Array<{ target: string; params: Record<string, string> }> = [
    { target: link, params: { rel: 'deprecation', type: 'text/html' } },
    { target: link, params: { rel: 'sunset', type: 'text/html' } },
    ...(settings.successor ? [{ target: settings.successor, params: { rel: 'successor-version' } }] : []),
  ];
  return {
    [LOWER_HEADERS.deprecation]: formatDeprecation(Date.parse(settings.since)),
    [LOWER_HEADERS.sunset]: formatSunset(Date.parse(settings.sunset)),
    [LOWER_HEADERS.link]: formatLinks(links),
  };
}

export const deprecationPlugin: Plugin<DeprecationPluginOptions> = {
  name: DEPRECATION_PLUGIN,
  version: '1.0.0',
  register(server, { clock, link = DEFAULT_LINK }) {
    const notices = new WeakMap<RequestRoute, Notice>();

    // Checked when the route is added, so a wrong date stops the server from being built.
    server.events.on('route', (route) => {
      const settings = route.settings.plugins?.[DEPRECATION_PLUGIN];
      if (!settings) return;
      const { error } = routeSchema.validate(settings);
      if (error) throw new Error(`Route ${route.method.toUpperCase()} ${route.path}: invalid deprecation settings: ${error.message}`);
      const sinceMs = Date.parse(settings.since);
      const sunsetMs = Date.parse(settings.sunset);
      const day = new Date(sunsetMs).toISOString().slice(0, 10);
      const instead = settings.successor ? `; use GET ${settings.successor} instead` : '';
      const headers = deprecationHeaders(settings, link);
      notices.set(route, {
        sinceMs,
        sunsetMs,
        headers,
        entries: Object.entries(headers),
        gone: `${route.method.toUpperCase()} ${route.path} was removed on ${day}, its announced sunset date${instead}.`,
      });
    });
    const noticeOf = (request: Request) => notices.get(request.route);

    // After authentication and rate limiting, so a removed operation still needs a key and counts.
    server.ext(
      'onPostAuth',
      (request, h) => {
        const notice = noticeOf(request);
        if (notice && clock.now() >= notice.sunsetMs) throw apiError('operation_sunset', notice.gone);
        return h.continue;
      },
      { after: [RATE_LIMIT_PLUGIN] },
    );

    // After the rate limiter, which may have replaced the response with a 429.
    server.ext(
      'onPreResponse',
      (request, h) => {
        const notice = noticeOf(request);
        if (!notice) return h.continue;
        const response = request.response;
        if ('isBoom' in response && response.isBoom) {
          const headers = response.output.headers;
          for (const [name, value] of Object.entries(notice.headers)) {
            // A Boom's headers keep whatever case their author used; links already there stay.
            const existing = Object.keys(headers).find((h) => h.toLowerCase() === name);
            const before = name === LOWER_HEADERS.link && existing ? headers[existing] : undefined;
            if (existing) delete headers[existing];
            headers[name] = before !== undefined ? `${String(before)}, ${value}` : value;
          }
        } else {
          // What response.header() does with { append } for Link and { override } for the others,
          // without its option objects and checks: the names are lower case (npm run bench, get).
          const own = (response as ResponseObject).headers as Record<string, string | string[] | number | undefined>;
          for (const [name, value] of notice.entries) {
            const before = name === LOWER_HEADERS.link ? own[LOWER_HEADERS.link] : undefined;
            own[name] = before ? `${String(before)}, ${value}` : value;
          }
        }
        return h.continue;
      },
      { after: [RATE_LIMIT_PLUGIN] },
    );
  },
};
