// Rate limiting's hooks: the limiter (rate-limit/limiter.ts) decides, this plugin only asks it at
// the two points of a request's life where it must, and puts its headers on the response:
//   onPostAuth     an authenticated request is decided before any handler runs; a refusal is thrown;
//   onPreResponse  whatever was not decided yet is decided now, and a refusal replaces the response.
import type { Plugin, Request, ResponseObject, ResponseToolkit } from '@hapi/hapi';
import { errorBody } from '../errors.ts';
import type { ResolvedRateLimitOptions } from '../options.ts';
import { andThen, RATE_LIMIT_PLUGIN, type Limiter } from '../rate-limit/limiter.ts';
import type { Counters, Verdict } from '../rate-limit/index.ts';

export { RATE_LIMIT_PLUGIN };

export interface RateLimitPluginOptions {
  /** Built by server.ts, which also hands it to the faults plugin. */
  limiter: Limiter;
}

/** What the admin API and tests reach through `server.plugins['rate-limit']`. */
export interface RateLimitApi {
  readonly counters: Counters;
  readonly options: ResolvedRateLimitOptions;
  readonly limiter: Limiter;
}

declare module '@hapi/hapi' {
  interface PluginProperties {
    /** Absent when rate limiting is disabled. */
    'rate-limit'?: RateLimitApi;
  }
}

export const rateLimitPlugin: Plugin<RateLimitPluginOptions> = {
  name: RATE_LIMIT_PLUGIN,
  version: '1.0.0',
  register(server, { limiter }) {
    const { counters } = limiter;
    if (!counters) return;
    server.expose('counters', counters);
    server.expose('options', limiter.options);
    server.expose('limiter', limiter);
    server.ext('onPreStart', () => limiter.start());
    server.ext('onPostStop', () => limiter.close());

    server.ext('onPostAuth', (request, h) => {
      const deciding = limiter.admit(request);
      if (!deciding) return h.continue;
      return andThen(deciding, (decided) => {
        if (!decided.admitted) throw limiter.refusal(decided);
        return h.continue;
      });
    });

    server.ext('onPreResponse', (request, h) => {
      const earlier = limiter.verdictOf(request);
      if (earlier) return withHeaders(request, h, earlier);
      const deciding = limiter.settle(request);
      if (!deciding) return h.continue;
      return andThen(deciding, (decided) => (decided.admitted ? withHeaders(request, h, decided) : refused(h, decided)));
    });

    function withHeaders(request: Request, h: ResponseToolkit, decided: Verdict) {
      const response = request.response;
      const headers = limiter.headersFor(request, decided);
      // No response: the client went away.
      if (!response || !headers) return h.continue;
      // The names are lower case and new on this response: set them as response.header() would, without its checks.
      Object.assign('isBoom' in response && response.isBoom ? response.output.headers : (response as ResponseObject).headers, headers);
      return h.continue;
    }

    /**
     * The limiter's refusal in place of the response. Not a Boom: a Boom returned here would end the
     * onPreResponse chain, and the plugins after this one (deprecation headers) must still see it.
     */
    function refused(h: ResponseToolkit, decided: Verdict) {
      const error = limiter.refusal(decided);
      const response = h.response(errorBody(error)).code(429).type('application/json');
      Object.assign(response.headers, error.output.headers);
      return response;
    }
  },
};
