// The options of `npm start` / `adoption-kit serve` as one table (SERVE_OPTIONS): the parser, the
// environment variables, --help and the server guide's options table all come from it (cli.ts parses
// with it, docs.ts writes the guide's table); their values are validated once, by createServer.
import { helpText, type OptionSpec } from '../lib/cli-options.ts';
import { DEFAULT_LOG_LEVEL, LOG_LEVELS, MAX_DELAY_MS, optionDefault } from './options.ts';
import { FORWARDING_HEADERS } from './rate-limit/client-ip.ts';
import { RESTART_POLICY } from './workers.ts';
import { INJECTABLE_CODES } from '../spec/rules/contract.js';

export const DEFAULT_DB_FILE = 'data/db.json';

const SERVER = 'Server';
const DATA = 'Data';
const LIMITS = 'Rate limits';

/** Options whose key is a ServerOptions path take their default from the options schema. */
const SCHEMA_BACKED = ['port', 'host', 'maxBodyBytes', 'headersTimeoutMs', 'requestTimeoutMs', 'storageTimeoutMs', 'trustProxyHeader'];
const schemaDefault = (spec: OptionSpec): OptionSpec => {
  if (!SCHEMA_BACKED.includes(spec.key) && !spec.key.startsWith('rateLimit.')) return spec;
  const value = optionDefault(spec.key);
  return value === undefined ? spec : { ...spec, default: value };
};

/** Every option of `serve`. `key` is the ServerOptions path the value lands in. */
export const SERVE_OPTIONS: readonly OptionSpec[] = (
  [
    { key: 'port', flag: 'port', env: 'PORT', type: 'integer', value: '<n>', help: 'Port to listen on; 0 picks a free one.', group: SERVER },
    { key: 'host', flag: 'host', env: 'HOST', type: 'string', value: '<host>', help: 'Interface to listen on.', group: SERVER },
    {
      key: 'logLevel',
      flag: 'log-level',
      env: 'LOG_LEVEL',
      type: 'string',
      value: '<level>',
      choices: LOG_LEVELS,
      default: DEFAULT_LOG_LEVEL,
      help: 'Level of the JSON log lines (pino): info logs one line per request.',
      group: SERVER,
    },
    {
      key: 'quiet',
      flag: 'quiet',
      env: 'QUIET',
      type: 'boolean',
      default: false,
      help: 'No per-request lines: the same as --log-level warn (warnings and errors are still logged).',
      group: SERVER,
    },
    {
      key: 'noCors',
      flag: 'no-cors',
      env: 'NO_CORS',
      type: 'boolean',
      default: false,
      help: 'Turn CORS off (it is on for any origin, exposing the rate-limit, Link, Location and deprecation headers).',
      group: SERVER,
    },
    {
      key: 'maxBodyBytes',
      flag: 'max-body-bytes',
      env: 'MAX_BODY_BYTES',
      type: 'integer',
      value: '<n>',
      help: 'Largest request body accepted; larger ones get 413.',
      group: SERVER,
    },
    {
      key: 'workers',
      flag: 'workers',
      env: 'WORKERS',
      type: 'integer',
      value: '<n>',
      default: 1,
      min: 1,
      max: 64,
      help: 'Run n server processes on one port (node:cluster); needs --database and --redis, so that they share pets and limits.',
      group: SERVER,
    },
    {
      key: 'workerCrashLimit',
      flag: 'worker-crash-limit',
      env: 'WORKER_CRASH_LIMIT',
      type: 'integer',
      value: '<n>',
      default: RESTART_POLICY.maxCrashes,
      min: 1,
      max: 1000,
      help: 'With --workers: a crashed worker is restarted after 0.1 s, doubling to 5 s while they keep crashing; at n crashes within a minute the primary stops every worker and exits 1.',
      group: SERVER,
    },
    {
      key: 'headersTimeoutMs',
      flag: 'headers-timeout',
      env: 'HEADERS_TIMEOUT_MS',
      type: 'integer',
      value: '<ms>',
      help: "Longest time to receive a request's headers; then 408 and the connection closes.",
      group: SERVER,
    },
    {
      key: 'requestTimeoutMs',
      flag: 'request-timeout',
      env: 'REQUEST_TIMEOUT_MS',
      type: 'integer',
      value: '<ms>',
      help: 'Longest time to receive a whole request, body included; then 408 and the connection closes.',
      group: SERVER,
    },
    {
      key: 'faults',
      flag: 'faults',
      env: 'FAULTS',
      type: 'boolean',
      default: false,
      help: `Fault injection for client testing, with Prism's convention: a request may ask for "Prefer: code=<status>" (any status its operation documents, or ${INJECTABLE_CODES.join(', ')}), "example=<name>" or "delay=<ms>", and the admin API schedules faults for a key.`,
      group: SERVER,
    },
    {
      key: 'delayMs',
      flag: 'delay',
      env: 'DELAY_MS',
      type: 'integer',
      value: '<ms>',
      default: 0,
      min: 0,
      max: MAX_DELAY_MS,
      help: "Hold every API answer this long, as json-server's --delay does: a slow network without one (the admin API is not held).",
      group: SERVER,
    },
    {
      key: 'adminToken',
      flag: 'admin-token',
      env: 'ADMIN_TOKEN',
      type: 'string',
      value: '<token>',
      secret: true,
      defaultText: 'off',
      help: 'Enable the admin API under /__admin for "Authorization: Bearer <token>" (at least 8 characters).',
      group: SERVER,
    },
    {
      key: 'specPath',
      flag: 'spec',
      env: 'SPEC',
      type: 'string',
      value: '<file>',
      defaultText: "the kit's spec/openapi.yaml",
      help: 'The OpenAPI description whose validation, plans and sunset the server enforces.',
      group: DATA,
    },
    {
      key: 'dbFile',
      flag: 'db-file',
      env: 'DB_FILE',
      type: 'string',
      value: '<path>',
      default: DEFAULT_DB_FILE,
      help: 'JSON database file, created and seeded if missing.',
      group: DATA,
    },
    {
      key: 'database',
      flag: 'database',
      env: 'DATABASE_URL',
      type: 'string',
      value: '<url>',
      secret: true,
      help: 'Keep pets in PostgreSQL (postgres://user:password@host:5432/db, ?schema= picks the schema), shared by every instance started with the same URL. The schema is created and seeded if missing.',
      group: DATA,
    },
    {
      key: 'storageTimeoutMs',
      flag: 'storage-timeout',
      env: 'STORAGE_TIMEOUT_MS',
      type: 'integer',
      value: '<ms>',
      help: "Longest a read or write of the store may take (PostgreSQL: statement_timeout and the wait for a connection), and /healthz's bound; then 503 storage_unavailable with Retry-After.",
      group: DATA,
    },
    { key: 'memory', flag: 'memory', env: 'MEMORY', type: 'boolean', default: false, help: 'Keep pets in memory only (nothing is written).', group: DATA },
    {
      key: 'seedFile',
      flag: 'seed',
      env: 'SEED_FILE',
      type: 'string',
      value: '<file>',
      defaultText: 'fixtures/pets.json',
      help: 'JSON array of pets a new store starts with.',
      group: DATA,
    },
    {
      key: 'apiKeysFile',
      flag: 'api-keys',
      env: 'API_KEYS_FILE',
      type: 'string',
      value: '<file>',
      defaultText: 'fixtures/api-keys.json',
      help: 'JSON array of { key, plan, limits? }: your own keys and their plans.',
      group: DATA,
    },
    {
      key: 'noRateLimit',
      flag: 'no-rate-limit',
      env: 'NO_RATE_LIMIT',
      type: 'boolean',
      default: false,
      help: 'Turn every limit and rate-limit header off.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ban.threshold',
      flag: 'ban-threshold',
      env: 'BAN_THRESHOLD',
      type: 'integer',
      value: '<n>',
      help: 'Refused requests of a key that start its ban; 0 never bans.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ban.periodSeconds',
      flag: 'ban-period',
      env: 'BAN_PERIOD',
      type: 'integer',
      value: '<s>',
      help: '...counted within this many seconds.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ban.durationSeconds',
      flag: 'ban-duration',
      env: 'BAN_DURATION',
      type: 'integer',
      value: '<s>',
      help: 'How long a key ban lasts (at most 31536000, a year).',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ip.perMinute',
      flag: 'ip-limit',
      env: 'IP_LIMIT',
      type: 'integer',
      value: '<n>',
      help: 'Requests per minute without a valid key, per client address (IPv6: per /64).',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ip.ban.threshold',
      flag: 'ip-ban-threshold',
      env: 'IP_BAN_THRESHOLD',
      type: 'integer',
      value: '<n>',
      help: 'Refused requests of an address that block it; 0 never blocks.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ip.ban.periodSeconds',
      flag: 'ip-ban-period',
      env: 'IP_BAN_PERIOD',
      type: 'integer',
      value: '<s>',
      help: '...counted within this many seconds.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ip.ban.durationSeconds',
      flag: 'ip-ban-duration',
      env: 'IP_BAN_DURATION',
      type: 'integer',
      value: '<s>',
      help: 'How long an address block lasts (at most 31536000, a year).',
      group: LIMITS,
    },
    {
      key: 'rateLimit.ip.banLoopback',
      flag: 'ip-ban-loopback',
      env: 'IP_BAN_LOOPBACK',
      type: 'boolean',
      help: 'Treat loopback clients (127.0.0.0/8, ::1: this machine) as any other address: blocked too, and their valid keys refused while the address is refused. Off: a mistyped key on this machine never locks it out.',
      group: LIMITS,
    },
    {
      key: 'redisUrl',
      flag: 'redis',
      env: 'REDIS_URL',
      type: 'string',
      value: '<url>',
      defaultText: 'per instance, in memory',
      help: 'Share rate limits between instances through Redis (redis:// or rediss://). If Redis goes away, each instance limits on its own until it returns.',
      group: LIMITS,
    },
    {
      key: 'trustProxy',
      flag: 'trust-proxy',
      env: 'TRUST_PROXY',
      type: 'string',
      value: '<n|ranges>',
      defaultText: 'off: the socket peer is the client',
      help: 'Behind reverse proxies: their number (1, 2...) or their addresses and CIDR ranges (10.0.0.0/8,::1), so the client address is read from the header they write (--trust-proxy-header) as far as they wrote it.',
      group: LIMITS,
    },
    {
      key: 'trustProxyHeader',
      flag: 'trust-proxy-header',
      env: 'TRUST_PROXY_HEADER',
      type: 'string',
      value: '<header>',
      choices: FORWARDING_HEADERS,
      help: 'The header the trusted proxies write the client address in: x-forwarded-for (nginx, most load balancers) or forwarded (RFC 7239); the other one is ignored, since a proxy passes it on as the client wrote it.',
      group: LIMITS,
    },
    {
      key: 'rateLimit.redisPrefix',
      flag: 'redis-prefix',
      env: 'REDIS_PREFIX',
      type: 'string',
      value: '<prefix>',
      help: 'Prefix of the rate-limit keys in Redis; instances that count together share it.',
      group: LIMITS,
    },
    { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'Show this help.', group: 'Other' },
  ] satisfies OptionSpec[]
).map(schemaDefault);

const USAGE = `Usage: adoption-kit serve [options]      (npm start -- [options])

Runs the Animal Adoption Store reference server.`;

export const HELP = helpText(USAGE, SERVE_OPTIONS);

/** Puts `value` at a dotted path of `target`. */
