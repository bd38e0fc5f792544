// What `npm start` prints once it listens: where, on which store, the keys, and what is limited for
// whom. The limits are stated because a client that meets a 429 or a block it was never told of
// (a mistyped key in a load test) blames the server, not its key.
import type { Server } from '@hapi/hapi';
import type { BanOptions, ResolvedOptions } from './options.ts';
import { redactUrl as withoutSecrets } from '../spec/rules/redact.js';
import { HEADERS, INJECTABLE_CODES } from '../spec/rules/contract.js';
import { LIVE_VIEW_PATH } from './plugins/live-view.ts';

/** A store's URL without its password (nor any secret-named parameter); nothing of one that cannot be parsed. */
export function redactUrl(url: string): string {
  try {
    return withoutSecrets(new URL(url).toString());
  } catch {
    return '(unparsable URL)';
  }
}

function after(ban: BanOptions, what: string, never: string): string {
  return ban.threshold === 0 ? never : `${what} ${ban.durationSeconds} s after ${ban.threshold} refusals within ${ban.periodSeconds} s`;
}

function clientAddress(options: ResolvedOptions): string {
  const { trustProxy, trustProxyHeader } = options;
  if (trustProxy === false) return 'per client address';
  const proxies =
    typeof trustProxy === 'number' ? `${trustProxy} trusted ${trustProxy === 1 ? 'proxy' : 'proxies'}` : `trusted proxies ${trustProxy.join(',')}`;
  return `per client address (from ${trustProxyHeader === 'forwarded' ? 'Forwarded' : 'X-Forwarded-For'} behind ${proxies})`;
}

/** The banner's lines about rate limits, bans and address blocks: one or two, indented. */
export function limitLines(options: ResolvedOptions): string[] {
  const { rateLimit } = options;
  if (!rateLimit.enabled) return ['  rate limits: off (--no-rate-limit): no limit, ban or block, and no rate-limit headers'];
  const where = options.redisUrl ? `shared through Redis ${redactUrl(options.redisUrl)}` : 'per instance, in memory';
  const { ip } = rateLimit;
  const loopback =
    ip.ban.threshold === 0 ? '' : ip.banLoopback ? '; loopback (this machine) too' : '; loopback (this machine) is never blocked (--ip-ban-loopback)';
  return [
    `  rate limits: ${where}; per key its plan's minute and day limits, ${after(rateLimit.ban, 'banned', 'never banned')}`,
    `  without a valid key: ${ip.perMinute} requests a minute ${clientAddress(options)}, ${after(ip.ban, 'blocked', 'never blocked')}${loopback}`,
  ];
}

/** The whole banner of a started server. */
export async function startBanner(server: Server): Promise<string> {
  const { options, contract, store, keys } = server.app;
  const storage =
    options.storage.type === 'file'
      ? `file ${options.storage.path}`
      : options.storage.type === 'postgres'
        ? `PostgreSQL ${redactUrl(options.storage.url)}`
        : 'memory (nothing is written)';
  const keyLines = keys.records().map((r) => `    ${r.plan.padEnd(11)} ${r.key}`);
  return [
    `Animal Adoption Store reference server listening on ${server.info.uri}${contract.basePath}`,
    `  API reference: ${server.info.uri}/docs`,
    `  store: ${storage} (${await store.count()} pets)`,
    ...limitLines(options),
    ...(options.delayMs > 0 ? [`  every API answer held ${options.delayMs} ms (--delay)`] : []),
    ...(options.faults
      ? [`  fault injection: on (${HEADERS.prefer}: code=<any status the operation documents, or ${INJECTABLE_CODES.join('|')}>, example=<name>, delay=<ms>)`]
      : []),
    ...(options.adminToken
      ? [
          `  admin API: ${server.info.uri}/__admin (Authorization: Bearer <admin token>)`,
          `  live view of the clients: ${server.info.uri}${LIVE_VIEW_PATH}#token=<admin token>`,
        ]
      : []),
    '  API keys by plan (send "Authorization: Bearer <key>"):',
    ...keyLines,
    '',
  ].join('\n');
}
