// The rate limiter as one service (server/README.md, Rate limits and bans): a request's partitions,
// the counters (only through their contract), its verdict, and the one 429 every refusal is built by,
// the fault plugin's included. One counters call decides a request: `admit` after authentication,
// before any handler; `settle`, as it ends, what was not decided then (a 401, a 405 or 413).
import type { Request } from '@hapi/hapi';
import type { Boom } from '@hapi/boom';
import type { Clock } from '../clock.ts';
import { apiError } from '../errors.ts';
import type { ApiKey, KeyRing } from '../keys.ts';
import type { BanOptions, ResolvedRateLimitOptions } from '../options.ts';
import { apiKeyOf, bearerToken } from '../plugins/auth.ts';
import { clientAddress, ipPartitionId, isLoopback, trustedRanges, type ForwardingHeader, type TrustProxy } from './client-ip.ts';
import type { ConsumeRequest, ConsumeResult, Counters, Maybe } from './counters.ts';
import { asRefusal, verdict, type Verdict } from './decision.ts';
import { openCounters, type CountersLog } from './open-counters.ts';
import { noteCarried } from './passenger.ts';
import { adminPartition, banOrNull, ipPartition, keyPartition, type BanSpec, type Partition } from './policy.ts';
import { INJECTED_ANSWERS, LOWER_HEADERS } from '../../spec/rules/contract.js';

/** The plugin's name, its route setting and its request state. */
export const RATE_LIMIT_PLUGIN = 'rate-limit';

/**
 * Route setting `options.plugins['rate-limit']`: `false` exempts a route; `'admin'` (the admin API)
 * does not count a call made with the admin token, but refuses it while the address is refused, and
 * counts a failed attempt against the address as a failed API key is. A request's state is its verdict.
 */
declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    'rate-limit'?: false | 'admin';
  }
  interface PluginsStates {
    'rate-limit'?: Verdict;
  }
}

export interface LimiterOptions {
  rateLimit: ResolvedRateLimitOptions;
  /** Which proxies' forwarding headers are believed when finding the client's address. */
  trustProxy: TrustProxy;
  /** The header those proxies write; the other one is never read. */
  trustProxyHeader: ForwardingHeader;
  /** Share the counts through this Redis; without it, this instance counts alone in memory. */
  redisUrl?: string | undefined;
  clock: Clock;
  keys: KeyRing;
  /** Where the shared counters' comings and goings are told. */
  log?: CountersLog;
  /** Count in these instead of the counters the options choose (tests). */
  counters?: Counters;
}

/** A 429 asked for by a fault: `injected` when it replaced an admission, not a refusal the key got anyway. */
export interface Refusal {
  readonly error: Boom;
  readonly injected: boolean;
}

export interface Limiter {
  /** The counters; absent when rate limiting is off (then nothing is decided). */
  readonly counters: Counters | undefined;
  readonly options: ResolvedRateLimitOptions;
  /** onPostAuth: the verdict of a request that authenticated, kept as its state; undefined when not decided here. */
  admit(request: Request): Maybe<Verdict> | undefined;
  /** The verdict already given to this request, if any. */
  verdictOf(request: Request): Verdict | undefined;
  /** onPreResponse: decides (and counts) a request not decided yet; undefined when it is exempt or rate limiting is off. */
  settle(request: Request): Maybe<Verdict> | undefined;
  /** The headers a response carries for its verdict; none on an admitted call made with the admin token. */
  headersFor(request: Request, decided: Verdict): Readonly<Record<string, string>> | undefined;
  /** The one 429: Error body, Retry-After and the rate-limit headers of a refused verdict. */
  refusal(decided: Verdict): Boom;
  /**
   * The 429 `key` would get, counting nothing and decided as the request's verdict: the key's real
   * refusal when it is refused anyway, else its first window shown exhausted (an injected fault).
   */
  refusalFor(request: Request, key: ApiKey): Maybe<Refusal>;
  /**
   * The verdict `key` has now, counting nothing, decided as the request's verdict: a request the
   * server refuses before it is API traffic (a Prefer it cannot honour) carries the window's state.
   */
  probe(request: Request, key: ApiKey): Maybe<Verdict> | undefined;
  /** Connects shared counters; counters that are not there yet are only logged (decisions fall back). */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** `next` of the counters' answer, synchronously when the answer is (see Counters.consumeAll). */
export function andThen<T, U>(value: Maybe<T>, next: (v: T) => U): Maybe<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

export function refusal(decided: Verdict): Boom {
  return apiError(decided.error!.code, decided.error!.message, { ...decided.headers });
}

/** An injected 429 while nothing is limited: no window to report, so no rate-limit headers either. */
const UNLIMITED_REFUSAL: Verdict = {
  admitted: false,
  headers: { [LOWER_HEADERS.retryAfter]: INJECTED_ANSWERS[429].retryAfter },
  error: { code: INJECTED_ANSWERS[429].code, message: INJECTED_ANSWERS[429].message },
};

/** The admin token from an address that does not gate it: admitted, counted nowhere, no headers (headersFor). */
const UNGATED_ADMIN: Verdict = { admitted: true, headers: {} };

/** A partition with the two requests its counters are ever asked: a probe (cost 0) and a count (cost 1). */
interface Counted {
  readonly partition: Partition;
  readonly probe: ConsumeRequest;
  readonly count: ConsumeRequest;
  /**
   * An address only: whether its allowance for requests without a valid key refuses valid keys and
   * the admin token too. Not for a loopback client unless `banLoopback`: a guesser on this machine
   * can read the key file, and the developer's own tools must not be locked out by a typo.
   */
  readonly gates: boolean;
}

const counted = (partition: Partition, gates = false): Counted => {
  const base = { partition: partition.id, windows: partition.windows, ban: partition.ban };
  return { partition, probe: { ...base, cost: 0 }, count: { ...base, cost: 1 }, gates };
};

function toBan(options: BanOptions): BanSpec | null {
  return banOrNull({ threshold: options.threshold, periodMs: options.periodSeconds * 1000, durationMs: options.durationSeconds * 1000 });
}

/** Addresses kept at most in the partition cache; a full cache starts over. */
export const ADDRESS_CACHE_SIZE = 4096;

const setting = (request: Request) => request.route.settings.plugins?.[RATE_LIMIT_PLUGIN];
const exempt = (request: Request) => request.method === 'options' || setting(request) === false;
const isAdmin = (request: Request) => setting(request) === 'admin';

/**
 * The partitions of a request: the same for every request of a key or an address, so made once,
 * not per request. Keys are a fixed set; addresses are not, so theirs is a small cache that starts
 * over when full.
 */
function partitions({ rateLimit, trustProxy, trustProxyHeader }: LimiterOptions) {
  const keyBan = toBan(rateLimit.ban);
  const ipBan = toBan(rateLimit.ip.ban);
  const ranges = Array.isArray(trustProxy) ? trustedRanges(trustProxy) : undefined;
  // Without trusted proxies the socket peer alone names the client: the cache is looked up by it
  // before anything is parsed, and only a new peer pays for finding its partition.
  const bySocket = trustProxy === false;
  const keys = new Map<string, Counted>();
  const addresses = new Map<string, Counted>();
  /** Loopback (the address counted against, after trusted proxies) is spared blocks and gates unless asked. */
  const strict = (address: string | undefined) => rateLimit.ip.banLoopback || !isLoopback(address);
  return {
    addressOf(request: Request): Counted {
      const admin = isAdmin(request);
      let seen: string;
      let client: string | undefined;
      if (bySocket) seen = request.info.remoteAddress ?? '';
      else {
        client = clientAddress(request.info.remoteAddress, request.headers as Record<string, string | undefined>, trustProxy, trustProxyHeader, ranges);
        // ::1 shares its /64 with addresses that are not loopback: the flag is part of the key.
        seen = `${strict(client) ? '' : 'lo '}${ipPartitionId(client)}`;
      }
      const cacheKey = admin ? `admin ${seen}` : seen;
      let found = addresses.get(cacheKey);
      if (!found) {
        if (addresses.size >= ADDRESS_CACHE_SIZE) addresses.clear();
        if (bySocket) client = seen || undefined;
        const gates = strict(client);
        const partition = (admin ? adminPartition : ipPartition)(ipPartitionId(client), rateLimit.ip.perMinute, gates ? ipBan : null);
        found = counted(partition, gates);
        addresses.set(cacheKey, found);
      }
      return found;
    },
    keyOf(key: ApiKey): Counted {
      let found = keys.get(key.keyId);
      if (!found) {
        found = counted(keyPartition(key.keyId, key.limits, keyBan));
        keys.set(key.keyId, found);
      }
      return found;
    },
  };
}

/** Rate limiting off: nothing is decided or counted, and a fault's 429 is the plain one. */
function unlimited(rateLimit: ResolvedRateLimitOptions): Limiter {
  return {
    counters: undefined,
    options: rateLimit,
    admit: () => undefined,
    verdictOf: () => undefined,
    settle: () => undefined,
    headersFor: () => undefined,
    refusal,
    refusalFor: () => ({ error: refusal(UNLIMITED_REFUSAL), injected: true }),
    probe: () => undefined,
    start: async () => {},
    close: async () => {},
  };
}

/** `result` of `part` as the request's verdict; `first` is the call's first answer, which has what rode on the call. */
function record(clock: Clock, request: Request, first: ConsumeResult, part: Counted, result: ConsumeResult, cost: 0 | 1): Verdict {
  noteCarried(request, first.carried);
  const decided = verdict(part.partition.kind, result, clock.now(), cost, part.partition.windows);
  request.plugins[RATE_LIMIT_PLUGIN] = decided;
  return decided;
}

/** The key a request carries even where no authentication ran (unknown paths, auth-free routes). */
function carriedKey(keys: KeyRing, request: Request): ApiKey | undefined {
  const authenticated = apiKeyOf(request);
  if (authenticated) return authenticated;
  const token = bearerToken(request.headers.authorization);
  return token ? keys.lookup(token) : undefined;
}

export function createLimiter(options: LimiterOptions): Limiter {
  const { rateLimit, clock, keys } = options;
  if (!rateLimit.enabled) return unlimited(rateLimit);
  const log = options.log ?? (() => {});
  const counters = options.counters ?? openCounters({ rateLimit, redisUrl: options.redisUrl, clock, log });
  const { addressOf, keyOf } = partitions(options);

  /** First the address (probe only) where it gates, then the key (counted): the first partition that did not admit decides, or the key. */
  function decideKey(request: Request, key: ApiKey): Maybe<Verdict> {
    const address = addressOf(request);
    const own = keyOf(key);
    if (!address.gates) return andThen(counters.consumeAll([own.count]), ([result]) => record(clock, request, result!, own, result!, 1));
    return andThen(counters.consumeAll([address.probe, own.count]), ([first, second]) =>
      second ? record(clock, request, first!, own, second, 1) : record(clock, request, first!, address, first!, 0),
    );
  }

  function decideAddress(request: Request, cost: 0 | 1): Maybe<Verdict> {
    const address = addressOf(request);
    return andThen(counters.consumeAll([cost ? address.count : address.probe]), ([result]) => record(clock, request, result!, address, result!, cost));
  }

  /**
   * The key's state read without counting (the address's first where it gates), recorded as the
   * request's verdict; `refuse` turns the key's admission into a refusal (an injected 429).
   */
  function probeKey<T>(request: Request, key: ApiKey, refuse: (mine: ConsumeResult) => boolean, then: (decided: Verdict, refused: boolean) => T): Maybe<T> {
    const address = addressOf(request);
    const own = keyOf(key);
    return andThen(counters.consumeAll(address.gates ? [address.probe, own.probe] : [own.probe]), (results) => {
      const first = results[0]!;
      const mine = address.gates ? results[1] : first;
      // A key refused anyway gets its real 429; only an admission turned into one is injected.
      const turned = mine !== undefined && refuse(mine);
      const decided = mine ? record(clock, request, first, own, turned ? asRefusal(mine) : mine, 0) : record(clock, request, first, address, first, 0);
      return then(decided, turned);
    });
  }

  return {
    counters,
    options: rateLimit,
    admit(request) {
      if (request.plugins[RATE_LIMIT_PLUGIN] || exempt(request)) return undefined;
      const key = apiKeyOf(request);
      if (key) return decideKey(request, key);
      if (!isAdmin(request) || !request.auth.isAuthenticated) return undefined;
      if (addressOf(request).gates) return decideAddress(request, 0);
      request.plugins[RATE_LIMIT_PLUGIN] = UNGATED_ADMIN;
      return UNGATED_ADMIN;
    },
    verdictOf: (request) => request.plugins[RATE_LIMIT_PLUGIN],
    settle(request) {
      if (request.plugins[RATE_LIMIT_PLUGIN] || exempt(request)) return request.plugins[RATE_LIMIT_PLUGIN];
      // A failed admin attempt counts against the address whatever token it carried.
      const key = isAdmin(request) ? undefined : carriedKey(keys, request);
      return key ? decideKey(request, key) : decideAddress(request, 1);
    },
    headersFor(request, decided) {
      // A harness call made with the admin token is not API traffic.
      return decided.admitted && isAdmin(request) && request.auth.isAuthenticated ? undefined : decided.headers;
    },
    refusal,
    refusalFor(request, key) {
      return probeKey(
        request,
        key,
        (mine) => mine.outcome === 'admitted',
        (decided, injected) => ({ error: refusal(decided), injected }),
      );
    },
    probe(request, key) {
      return probeKey(
        request,
        key,
        () => false,
        (decided) => decided,
      );
    },
    async start() {
      if (!(await counters.connect())) log('warn', 'Redis unreachable at start: limiting per instance in memory until it answers');
    },
    close: () => counters.close(),
  };
}
