import Hapi, { type Server } from '@hapi/hapi';
import Joi from 'joi';
import { latestClockMs, SystemClock, type Clock } from './clock.ts';
import { loadContract, type Contract } from './contract.ts';
import { checkSeedPets, fixtureApiKeys, fixturePets } from './fixtures.ts';
import { KeyRing } from './keys.ts';
import { MAX_DELAY_MS, resolveOptions, type ResolvedOptions, type ServerOptions } from './options.ts';
import { PetService } from './pets/service.ts';
import { ADMIN_STRATEGY, adminPlugin } from './plugins/admin.ts';
import { faultsPlugin } from './plugins/faults.ts';
import { clientReportPlugin } from './plugins/client-report.ts';
import { liveViewPlugin } from './plugins/live-view.ts';
import { authPlugin } from './plugins/auth.ts';
import { deprecationPlugin } from './plugins/deprecation.ts';
import { errorsPlugin, rejectUnparsableBody } from './plugins/errors.ts';
import { httpRulesPlugin } from './plugins/http-rules.ts';
import { discoveryPlugin } from './plugins/discovery.ts';
import { createListener } from './listener.ts';
import { datePlugin, dateHeader } from './plugins/date.ts';
import { delayPlugin } from './plugins/delay.ts';
import { rateLimitPlugin } from './plugins/rate-limit.ts';
import { requestLogPlugin } from './plugins/request-log.ts';
import { petRoutes } from './routes/pets.ts';
import { openPetStore } from './store/open.ts';
import { PostgresPetStore } from './store/postgres-store.ts';
import { createLimiter, type Limiter } from './rate-limit/limiter.ts';
import { longestSpanMs } from './rate-limit/policy.ts';
import { redisCounters } from './rate-limit/open-counters.ts';
import { sharePetsVersion } from './pets/shared-version.ts';
import type { PetStore } from './store/pet-store.ts';
import { HEADERS } from '../spec/rules/contract.js';
import { keyLabels } from '../spec/rules/redact.js';

declare module '@hapi/hapi' {
  interface ServerApplicationState {
    store: PetStore;
    clock: Clock;
    keys: KeyRing;
    options: ResolvedOptions;
    contract: Contract;
  }
}

/**
 * The pets' version rides on the Redis limiter's round trip (pets/shared-version.ts). Without a
 * limiter (`--no-rate-limit`) every read goes to PostgreSQL, but creates still move the version on,
 * through counters that decide nothing, for the caches of the other instances (README, Decisions).
 */
function shareVersionThroughRedis(server: Server, store: PetStore, limiter: Limiter, options: ResolvedOptions): void {
  if (!(store instanceof PostgresPetStore) || !options.redisUrl) return;
  const log = (level: 'error' | 'info', message: string) => void server.log(['storage', level], message);
  let shared = limiter.counters;
  if (!shared) {
    const own = redisCounters(options.rateLimit, options.redisUrl);
    server.ext('onPreStart', async () => {
      if (!(await own.connect())) log('error', "Redis unreachable at start: creates cannot move the pets' version on until it answers");
    });
    server.ext('onPostStop', () => own.close());
    shared = own;
  }
  const redis = shared.sharedRedis();
  if (redis) store.shareVersion(sharePetsVersion(redis, store.schema), log);
}

/** Headers a browser client may read: rate limits, pagination, creation and deprecation. */
export const EXPOSED_HEADERS: string[] = [
  HEADERS.link,
  HEADERS.location,
  HEADERS.retryAfter,
  HEADERS.rateLimitLimit,
  HEADERS.rateLimitRemaining,
  HEADERS.rateLimitReset,
  HEADERS.rateLimit,
  HEADERS.rateLimitPolicy,
  HEADERS.deprecation,
  HEADERS.sunset,
  HEADERS.faultInjected,
];

/**
 * Builds the reference server, ready to `start()` or `inject()`, but not started: the caller decides
 * when it listens (only the CLI does) and must `stop()` it, which also closes the store.
 */
export async function createServer(input: ServerOptions = {}): Promise<Server> {
  const options = resolveOptions(input);
  const clock = options.clock ?? new SystemClock();
  const contract = await loadContract(options.specPath);
  const keys = new KeyRing(options.apiKeys ?? fixtureApiKeys(), contract.plans);
  const seedPets = checkSeedPets(options.seedPets ?? fixturePets(), contract);
  // The store may have something to say before the server (and its log) exists: kept until then.
  const early: Array<[string, string]> = [];
  let log = (level: string, message: string): void => void early.push([level, message]);
  const store = await openPetStore(options.storage, seedPets, { clock, log: (level, message) => log(level, message), timeoutMs: options.storageTimeoutMs });

  try {
    const date = dateHeader(clock);
    const { listener, takeOverErrors } = createListener({ ...options, date });
    const server = Hapi.server({
      listener,
      host: options.host,
      port: options.port,
      debug: false,
      router: { stripTrailingSlash: true },
      routes: {
        // A browser client asks for faults with Prefer: its preflight must allow the header.
        cors: options.cors
          ? { origin: ['*'], additionalExposedHeaders: EXPOSED_HEADERS, ...(options.faults ? { additionalHeaders: [HEADERS.prefer] } : {}) }
          : false,
        payload: {
          maxBytes: options.maxBodyBytes,
          // The listener's request timeout answers a stalled body; hapi's own would wait for it.
          timeout: false,
          allow: ['application/json'],
          failAction: rejectUnparsableBody(options.maxBodyBytes),
        },
      },
    });
    takeOverErrors();
    server.validator(Joi);
    Object.assign(server.app, { store, clock, keys, options, contract });
    log = (level, message) => void server.log(['storage', level], message);
    // A store that could not close cleanly (a snapshot the disk refused) is logged here, while the
    // log still writes, and fails stop() once every other onPostStop has run.
    let closeFailure: unknown;
    server.ext('onPostStop', async () => {
      try {
        await store.close();
      } catch (error) {
        closeFailure = error;
        server.log(['storage', 'error'], `The store did not close cleanly: ${(error as Error).message}`);
      }
    });

    if (options.logger) await server.register({ plugin: requestLogPlugin, options: options.logger });
    if (options.delayMs > 0) await server.register({ plugin: delayPlugin, options: { delayMs: options.delayMs, basePath: contract.basePath } });
    await server.register(errorsPlugin);
    await server.register(httpRulesPlugin);
    await server.register({ plugin: authPlugin, options: { keys, realm: 'adoption-store' } });
    const limiter = createLimiter({
      rateLimit: options.rateLimit,
      redisUrl: options.redisUrl,
      clock,
      keys,
      trustProxy: options.trustProxy,
      trustProxyHeader: options.trustProxyHeader,
      log: (level, message) => void server.log(['rate-limit', 'redis', level], message),
    });
    await server.register({ plugin: rateLimitPlugin, options: { limiter } });
    shareVersionThroughRedis(server, store, limiter, options);
    await server.register({ plugin: deprecationPlugin, options: { clock } });
    if (options.adminToken) {
      await server.register({
        plugin: adminPlugin,
        options: {
          token: options.adminToken,
          clock,
          store,
          seedPets,
          latestClockMs: latestClockMs(longestSpanMs({ key: options.rateLimit.ban, ip: options.rateLimit.ip.ban })),
        },
      });
    }
    const records = keys.records();
    const names = keyLabels(records.map((r) => r.key));
    const labels = new Map(records.map((r, i) => [keys.lookup(r.key)!.keyId, names[i]!]));
    if (options.adminToken) {
      await server.register({
        plugin: clientReportPlugin,
        options: { clock, adminStrategy: ADMIN_STRATEGY, deprecated: contract.deprecatedOperations, labels },
      });
      await server.register({ plugin: liveViewPlugin, options: { clock, adminStrategy: ADMIN_STRATEGY } });
    }
    if (options.faults) {
      await server.register({
        plugin: faultsPlugin,
        options: {
          keys,
          limiter,
          responses: contract.responses,
          labels,
          maxDelayMs: MAX_DELAY_MS,
          ...(options.adminToken ? { adminStrategy: ADMIN_STRATEGY } : {}),
        },
      });
    }
    await server.register({ plugin: petRoutes, options: { service: new PetService(store), contract } });
    await server.register({
      plugin: discoveryPlugin,
      options: { contract, store, probeTimeoutMs: options.storageTimeoutMs, trustProxy: options.trustProxy, trustProxyHeader: options.trustProxyHeader },
    });
    // Last, so that the Date it sets is the time the answer leaves, after any injected delay.
    await server.register({ plugin: datePlugin, options: { date } });
    for (const [level, message] of early) log(level, message);
    server.ext('onPostStop', () => {
      if (closeFailure !== undefined) throw closeFailure;
    });
    return server;
  } catch (error) {
    await store.close();
    throw error;
  }
}
