// Plan rate limits for API keys, a per-address limit for requests without a valid key, and
// temporary bans, with truthful headers on every response. Every request is decided by one
// atomic store call (one Redis round trip):
//   onPostAuth     an authenticated request: its address must not be over its allowance for
//                  requests without a key (so a blocked key guesser learns nothing from a valid
//                  key either), then it is counted against its key, before any handler runs;
//   onPreResponse  whatever was not decided yet is decided now: a 401 counts against the address,
//                  a 404 for an unknown path or a 405/413/415 against the key it carried (or the
//                  address); a refusal replaces the response with a 429.
import type { Plugin, Request, ResponseObject, ResponseToolkit, Server } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import type { Clock } from '../clock.ts';
import { apiError, errorBody } from '../errors.ts';
import type { ApiKey, KeyRing } from '../keys.ts';
import type { BanOptions, ResolvedRateLimitOptions } from '../options.ts';
import { apiKeyOf, bearerToken } from './auth.ts';
import { notePetsVersion } from '../pets/version.ts';
import {
  FailoverStore,
  MemoryStore,
  RedisStore,
  banOrNull,
  adminPartition,
  asRefusal,
  clientAddress,
  ipPartition,
  ipPartitionId,
  trustedRanges,
  type ForwardingHeader,
  type TrustProxy,
  keyPartition,
  verdict,
  type BanSpec,
  type ConsumeRequest,
  type ConsumeResult,
  type LimiterStore,
  type Partition,
  type Verdict,
} from '../rate-limit/index.ts';

export const RATE_LIMIT_PLUGIN = 'rate-limit';

export interface RateLimitPluginOptions {
  rateLimit: ResolvedRateLimitOptions;
  /** Which proxies' forwarding headers are believed when finding the client's address. */
  trustProxy: TrustProxy;
  /** The header those proxies write; the other one is never read. */
  trustProxyHeader: ForwardingHeader;
  /** Share the limiter state through this Redis; without it, each instance counts alone in memory. */
  redisUrl?: string;
  clock: Clock;
  keys: KeyRing;
}

/** What the admin API and tests reach through `server.plugins['rate-limit']`. */
export interface RateLimitApi {
  readonly store: LimiterStore;
  readonly options: ResolvedRateLimitOptions;
}

interface RequestState {
  verdict?: Verdict;
  /** Set by the faults plugin: answer this request with the 429 its key would get, counting nothing. */
  forceRefusal?: boolean;
  /** Set here when forceRefusal turned an admission into the 429: the fault was really injected. */
  refusalForced?: boolean;
}

/**
 * Route setting `options.plugins['rate-limit']`: `false` exempts a route; `'admin'` (the admin API)
 * does not count a call made with the admin token, but refuses it while the address is refused, and
 * counts a failed attempt against the address as a failed API key is.
 */
declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    'rate-limit'?: false | 'admin';
  }
  interface PluginsStates {
    'rate-limit'?: RequestState;
  }
  interface PluginProperties {
    /** Absent when rate limiting is disabled. */
    'rate-limit'?: RateLimitApi;
  }
}

function toBan(options: BanOptions): BanSpec | null {
  return banOrNull({ threshold: options.threshold, periodMs: options.periodSeconds * 1000, durationMs: options.durationSeconds * 1000 });
}

function createStore(server: Server, options: ResolvedRateLimitOptions, clock: Clock, redisUrl: string | undefined): LimiterStore {
  if (!redisUrl) return new MemoryStore(clock);
  const redis = new RedisStore({
    url: redisUrl,
    prefix: options.redisPrefix,
    commandTimeoutMs: options.redisCommandTimeoutMs,
    connectTimeoutMs: options.redisConnectTimeoutMs,
  });
  return new FailoverStore(redis, new MemoryStore(clock), {
    onEvent(event) {
      if (event.type === 'fallback') {
        server.log(
          ['rate-limit', 'redis', 'warn'],
          `Redis unavailable (${event.error?.message ?? 'not connected'}): limiting per instance in memory until it returns`,
        );
      } else {
        server.log(['rate-limit', 'redis', 'info'], 'Redis is back: limits are shared again');
      }
    },
  });
}

export const rateLimitPlugin: Plugin<RateLimitPluginOptions> = {
  name: RATE_LIMIT_PLUGIN,
  version: '1.0.0',
  register(server, { rateLimit: options, redisUrl, clock, keys, trustProxy, trustProxyHeader }) {
    if (!options.enabled) return;

    const store = createStore(server, options, clock, redisUrl);
    server.expose('store', store);
    server.expose('options', options);
    const keyBan = toBan(options.ban);
    const ipBan = toBan(options.ip.ban);

    if (store instanceof FailoverStore && store.primary instanceof RedisStore) {
      const redis = store.primary;
      server.ext('onPreStart', async () => {
        if (!(await redis.connect())) {
          server.log(['rate-limit', 'redis', 'warn'], 'Redis unreachable at start: limiting per instance in memory until it answers');
        }
      });
    }
    server.ext('onPostStop', () => store.close());

    const stateOf = (request: Request): RequestState => (request.plugins[RATE_LIMIT_PLUGIN] ??= {});
    const exempt = (request: Request) => request.method === 'options' || request.route.settings.plugins?.[RATE_LIMIT_PLUGIN] === false;
    const isAdmin = (request: Request) => request.route.settings.plugins?.[RATE_LIMIT_PLUGIN] === 'admin';
    const ranges = Array.isArray(trustProxy) ? trustedRanges(trustProxy) : undefined;
    // Partitions are the same for every request of a key or an address: made once, not per request.
    // Keys are a fixed set; addresses are not, so theirs is a small cache that starts over when full.
    const keyPartitions = new Map<string, Partition>();
    const addressPartitions = new Map<string, Partition>();
    const addressOf = (request: Request): Partition => {
      const client = ipPartitionId(
        clientAddress(request.info.remoteAddress, request.headers as Record<string, string | undefined>, trustProxy, trustProxyHeader, ranges),
      );
      const admin = isAdmin(request);
      const cacheKey = admin ? `admin ${client}` : client;
      let partition = addressPartitions.get(cacheKey);
      if (!partition) {
        if (addressPartitions.size >= 4096) addressPartitions.clear();
        partition = (admin ? adminPartition : ipPartition)(client, options.ip.perMinute, ipBan);
        addressPartitions.set(cacheKey, partition);
      }
      return partition;
    };
    const partitionOf = (key: ApiKey): Partition => {
      let partition = keyPartitions.get(key.keyId);
      if (!partition) {
        partition = keyPartition(key.keyId, key.limits, keyBan);
        keyPartitions.set(key.keyId, partition);
      }
      return partition;
    };
    const asRequest = (partition: Partition, cost: 0 | 1): ConsumeRequest => ({
      partition: partition.id,
      windows: partition.windows,
      ban: partition.ban,
      cost,
    });

    /**
     * The store's answer, synchronously when the store can give it so (the memory store): a hook
     * that needs no promise costs hapi less (npm run bench). Redis answers asynchronously.
     */
    type Maybe<T> = T | Promise<T>;
    const then = <T, U>(value: Maybe<T>, next: (v: T) => U): Maybe<U> => (value instanceof Promise ? value.then(next) : next(value));
    const consumeAll = (requests: ConsumeRequest[]): Maybe<ConsumeResult[]> =>
      store instanceof MemoryStore ? store.consumeAllNow(requests) : store.consumeAll(requests);

    /**
     * A request with a valid key: first its address (probe only), then its key (counted). The
     * verdict is the first partition that did not admit, or the key's.
     */
    function decideKey(request: Request, key: ApiKey): Maybe<Verdict> {
      const address = addressOf(request);
      const own = partitionOf(key);
      const state = stateOf(request);
      const forced = state.forceRefusal === true;
      return then(consumeAll([asRequest(address, 0), asRequest(own, forced ? 0 : 1)]), ([first, second]) => {
        notePetsVersion(request, first!.petsVersion);
        if (second) {
          // A key refused anyway gets its real 429; only an admission turned into one is a fault.
          state.refusalForced = forced && second.outcome === 'admitted';
          return verdict(own.kind, state.refusalForced ? asRefusal(second) : second, clock.now(), forced ? 0 : 1, own.windows);
        }
        return verdict(address.kind, first!, clock.now(), 0, address.windows);
      });
    }

    function decideAddress(request: Request, cost: 0 | 1 = 1): Maybe<Verdict> {
      const address = addressOf(request);
      return then(consumeAll([asRequest(address, cost)]), ([result]) => {
        notePetsVersion(request, result!.petsVersion);
        return verdict(address.kind, result!, clock.now(), cost, address.windows);
      });
    }

    /** The key a request carries even where no authentication ran (unknown paths, auth-free routes). */
    function carriedKey(request: Request): ApiKey | undefined {
      const authenticated = apiKeyOf(request);
      if (authenticated) return authenticated;
      const token = bearerToken(request.headers.authorization);
      return token ? keys.lookup(token) : undefined;
    }

    const refusal = (v: Verdict): Boom => apiError(v.error!.code, v.error!.message, { ...v.headers });

    server.ext('onPostAuth', (request, h) => {
      if (exempt(request)) return h.continue;
      const key = apiKeyOf(request);
      const admin = isAdmin(request) && request.auth.isAuthenticated;
      if (!key && !admin) return h.continue;
      const state = stateOf(request);
      return then(key ? decideKey(request, key) : decideAddress(request, 0), (decided) => {
        state.verdict = decided;
        if (!decided.admitted) throw refusal(decided);
        return h.continue;
      });
    });

    server.ext('onPreResponse', (request, h) => {
      if (exempt(request)) return h.continue;
      const state = stateOf(request);
      if (state.verdict) return applyHeaders(request, h, state.verdict, undefined);
      // Not decided yet: the request stopped before onPostAuth, or its route has no auth. A failed
      // admin attempt counts against the address whatever token it carried.
      const key = isAdmin(request) ? undefined : carriedKey(request);
      return then(key ? decideKey(request, key) : decideAddress(request), (counted) => {
        state.verdict = counted;
        // Not a Boom: a Boom returned here would end the onPreResponse chain, and the plugins
        // after this one (deprecation headers) must still see the response.
        const replacement = counted.admitted
          ? undefined
          : h
              .response(errorBody(refusal(counted)))
              .code(429)
              .type('application/json');
        return applyHeaders(request, h, counted, replacement);
      });
    });

    function applyHeaders(request: Request, h: ResponseToolkit, decided: Verdict, replacement: ResponseObject | undefined) {
      const response = replacement ?? request.response;
      if (!response) return h.continue; // the client went away
      // A harness call made with the admin token is not API traffic: no rate-limit headers on it.
      if (!replacement && isAdmin(request) && request.auth.isAuthenticated && decided.admitted) return h.continue;
      const headers = decided.headers;
      // The names are lower case and new on this response: set them as response.header() would, without its checks.
      Object.assign('isBoom' in response && response.isBoom ? response.output.headers : (response as ResponseObject).headers, headers);
      return replacement ?? h.continue;
    }
  },
};
