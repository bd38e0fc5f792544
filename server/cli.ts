// `npm start` / `adoption-kit serve`: the only place that starts a server and handles signals.
// Its options are one table (SERVE_OPTIONS): the parser, the environment variables, --help and the
// server guide's options table all come from it; their values are validated once, by createServer.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KitError } from '../lib/errors.ts';
import { helpText, parseOptions, type OptionSpec } from '../lib/cli-options.ts';
import { stopWithParent } from '../lib/processes.ts';
import { readJsonFile } from './fixtures.ts';
import { DEFAULT_LOG_LEVEL, InvalidOptionsError, LOG_LEVELS, optionDefault, type ServerOptions } from './options.ts';
import { FORWARDING_HEADERS } from './rate-limit/client-ip.ts';
import { roundTripsLine } from './round-trips.ts';
import { createServer } from './server.ts';
import { RESTART_POLICY, announceWorker, isWorker, runPrimary, workersRefusal } from './workers.ts';
import type { ApiKeyRecord } from './keys.ts';
import type { Pet } from './types.ts';

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
      help: 'Fault injection for client testing: a request may ask for "Prefer: code=429", "code=503" or "delay=<ms>", and the admin API schedules faults for a key.',
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
      help: 'How long a key ban lasts.',
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
      help: 'How long an address block lasts.',
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
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.');
  let at = target;
  for (const part of parts.slice(0, -1)) at = (at[part] ??= {}) as Record<string, unknown>;
  at[parts.at(-1)!] = value;
}

/** The flag a ServerOptions path comes from, to name it in an error. */
function flagOf(path: readonly (string | number)[]): string | undefined {
  const dotted = path.join('.');
  const direct = SERVE_OPTIONS.find((s) => s.key === dotted);
  if (direct) return `--${direct.flag}`;
  if (dotted.startsWith('storage')) return '--db-file, --memory or --database';
  if (dotted.startsWith('apiKeys')) return '--api-keys';
  if (dotted.startsWith('seedPets')) return '--seed';
  if (dotted.startsWith('logger')) return '--log-level';
  return undefined;
}

export interface ServeCommand {
  options: ServerOptions;
  workers: number;
  /** Crashed workers within a minute at which the primary gives up. */
  workerCrashLimit: number;
}

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServerOptions | 'help' {
  const command = parseServeCommand(argv, env);
  return command === 'help' ? 'help' : command.options;
}

export function parseServeCommand(argv: string[], env: NodeJS.ProcessEnv = process.env): ServeCommand | 'help' {
  const values = parseOptions(SERVE_OPTIONS, argv, env);
  if (values.help) return 'help';
  const stores = [values.memory ? '--memory' : '', argv.includes('--db-file') ? '--db-file' : '', values.database ? '--database' : ''].filter(Boolean);
  if (stores.length > 1) throw new InvalidOptionsError(`${stores.join(' and ')} cannot be used together: pick one store`, ['storage']);
  const options: Record<string, unknown> = {
    port: values.port,
    host: values.host,
    logger: values.logLevel === 'silent' ? false : { level: values.quiet ? 'warn' : values.logLevel },
    cors: !values.noCors,
    faults: values.faults === true,
    maxBodyBytes: values.maxBodyBytes,
    headersTimeoutMs: values.headersTimeoutMs,
    requestTimeoutMs: values.requestTimeoutMs,
    storageTimeoutMs: values.storageTimeoutMs,
    storage: values.memory
      ? { type: 'memory' }
      : values.database
        ? { type: 'postgres', url: String(values.database) }
        : { type: 'file', path: resolve(String(values.dbFile)) },
  };
  for (const spec of SERVE_OPTIONS) {
    if (spec.key.includes('.') || ['adminToken', 'redisUrl', 'specPath', 'trustProxyHeader'].includes(spec.key)) {
      if (values[spec.key] !== undefined) setPath(options, spec.key, spec.key === 'specPath' ? resolve(String(values[spec.key])) : values[spec.key]);
    }
  }
  if (values.noRateLimit) setPath(options, 'rateLimit.enabled', false);
  if (values.trustProxy !== undefined) {
    const text = String(values.trustProxy).trim();
    options.trustProxy = /^\d+$/.test(text)
      ? Number(text)
      : text
          .split(',')
          .map((r) => r.trim())
          .filter(Boolean);
  }
  if (values.apiKeysFile) options.apiKeys = readJsonFile(resolve(String(values.apiKeysFile)), 'The API key file') as ApiKeyRecord[];
  if (values.seedFile) options.seedPets = readJsonFile(resolve(String(values.seedFile)), 'The seed file') as Pet[];
  const workers = Number(values.workers);
  const refusal = workersRefusal(workers, options as ServerOptions);
  if (refusal) throw new InvalidOptionsError(refusal, ['workers']);
  return { options: options as ServerOptions, workers, workerCrashLimit: Number(values.workerCrashLimit) };
}

/** A URL without its password, for the banner. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

function describeError(error: unknown): string {
  if (error instanceof InvalidOptionsError) {
    const flag = flagOf(error.path);
    return flag ? `${flag}: ${error.message.replace(/^Invalid server options: /, '')}` : error.message;
  }
  return (error as Error).message;
}

export async function main(argv: string[]): Promise<number> {
  let command: ServeCommand | 'help';
  try {
    command = parseServeCommand(argv);
  } catch (error) {
    if (!(error instanceof KitError)) throw error;
    process.stderr.write(`adoption-kit serve: ${describeError(error)}\nRun with --help for usage.\n`);
    return 2;
  }
  if (command === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command.workers > 1 && !isWorker()) {
    return runPrimary(command.workers, (text) => process.stdout.write(text), { ...RESTART_POLICY, maxCrashes: command.workerCrashLimit });
  }
  const { options } = command;

  let server;
  try {
    server = await createServer(options);
    await server.start();
  } catch (error) {
    const usage = error instanceof InvalidOptionsError || (error instanceof KitError && error.code === 'usage');
    process.stderr.write(`adoption-kit serve: ${usage ? describeError(error) : `could not start: ${describeError(error)}`}\n`);
    return usage ? 2 : 1;
  }

  const storage =
    options.storage?.type === 'file'
      ? `file ${options.storage.path}`
      : options.storage?.type === 'postgres'
        ? `PostgreSQL ${redactUrl(options.storage.url)}`
        : 'memory (nothing is written)';
  const keys = server.app.keys
    .records()
    .map((r) => `    ${r.plan.padEnd(11)} ${r.key}`)
    .join('\n');
  const banner =
    `Animal Adoption Store reference server listening on ${server.info.uri}${server.app.contract.basePath}\n` +
    `  API reference: ${server.info.uri}/docs\n` +
    `  store: ${storage} (${await server.app.store.count()} pets)\n` +
    `  rate limits: ${options.redisUrl ? `shared through Redis ${redactUrl(options.redisUrl)}` : 'per instance, in memory'}\n` +
    (options.faults ? '  fault injection: on (Prefer: code=429|500|503, delay=<ms>)\n' : '') +
    (options.adminToken ? `  admin API: ${server.info.uri}/__admin (Authorization: Bearer <admin token>)\n` : '') +
    `  API keys by plan (send "Authorization: Bearer <key>"):\n${keys}\n`;
  if (isWorker()) announceWorker(banner);
  else process.stdout.write(banner);

  const stop = async (why: string) => {
    if (!isWorker()) process.stdout.write(`${why}: finishing in-flight requests, then stopping\n`);
    try {
      await server.stop({ timeout: 10_000 });
    } catch (error) {
      // A snapshot the disk refused: the journal was kept, but whoever stopped the server must know.
      process.stderr.write(`adoption-kit serve: the server did not stop cleanly: ${(error as Error).message}\n`);
      process.exit(1);
    }
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM received'));
  process.once('SIGINT', () => void stop('SIGINT received'));
  process.on('SIGUSR2', () => process.stdout.write(roundTripsLine(process.pid)));
  if (!isWorker()) stopWithParent((why) => void stop(why));
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
