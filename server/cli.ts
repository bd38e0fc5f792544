// `npm start` / `adoption-kit serve`: the only place that starts a server and handles signals.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { createServer } from './server.ts';
import { CorruptDatabaseError } from './store/durable-json-file.ts';
import type { ServerOptions } from './options.ts';

export const DEFAULT_DB_FILE = 'data/db.json';

const HELP = `Usage: adoption-kit serve [options]      (npm start -- [options])

Runs the Animal Adoption Store reference server.

Options:
  --port <n>         Port to listen on (env PORT; default 3000; 0 picks a free port)
  --host <host>      Interface to listen on (env HOST; default 127.0.0.1)
  --db-file <path>   JSON database file, created and seeded from fixtures/ if missing
                     (env DB_FILE; default ${DEFAULT_DB_FILE})
  --memory           Keep pets in memory only (nothing is written)
  --redis <url>      Share rate limits between instances through Redis, e.g.
                     redis://127.0.0.1:6379 (env REDIS_URL; default: per instance,
                     in memory). If Redis goes away, each instance limits on its own
                     until it returns.
  --redis-prefix <p> Prefix of the rate-limit keys in Redis (env REDIS_PREFIX;
                     default adoption-store:rate-limit:)
  --admin-token <t>  Enable the admin API under /__admin for test harnesses, for
                     "Authorization: Bearer <t>" (env ADMIN_TOKEN; default: off)
  --quiet            No per-request log lines
  -h, --help         Show this help
`;

export function parseServeArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): ServerOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      'db-file': { type: 'string' },
      memory: { type: 'boolean', default: false },
      redis: { type: 'string' },
      'redis-prefix': { type: 'string' },
      'admin-token': { type: 'string' },
      quiet: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const portText = values.port ?? env.PORT ?? '3000';
  if (!/^[0-9]{1,5}$/.test(portText)) throw new Error(`--port must be a number from 0 to 65535, not "${portText}"`);
  if (values.memory && values['db-file']) throw new Error('--memory and --db-file cannot be used together');
  // An environment variable set to the empty string counts as unset.
  const redisUrl = values.redis ?? (env.REDIS_URL || undefined);
  if (redisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(redisUrl)) throw new Error(`--redis must be a redis:// or rediss:// URL, not "${redisUrl}"`);
  const redisPrefix = values['redis-prefix'] ?? (env.REDIS_PREFIX || undefined);
  const adminToken = values['admin-token'] ?? (env.ADMIN_TOKEN || undefined);
  if (adminToken !== undefined && adminToken.length < 8) throw new Error('--admin-token must be at least 8 characters');
  return {
    ...(redisUrl ? { redisUrl } : {}),
    ...(redisPrefix ? { rateLimit: { redisPrefix } } : {}),
    ...(adminToken ? { adminToken } : {}),
    port: Number(portText),
    host: values.host ?? env.HOST ?? '127.0.0.1',
    storage: values.memory ? { type: 'memory' } : { type: 'file', path: resolve(values['db-file'] ?? env.DB_FILE ?? DEFAULT_DB_FILE) },
    logger: !values.quiet,
  };
}

/** A Redis URL without its password, for the banner. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}

export async function main(argv: string[]): Promise<number> {
  let options: ServerOptions | 'help';
  try {
    options = parseServeArgs(argv);
  } catch (error) {
    process.stderr.write(`adoption-kit serve: ${(error as Error).message}\n\n${HELP}`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(HELP);
    return 0;
  }

  let server;
  try {
    server = await createServer(options);
    await server.start();
  } catch (error) {
    const reason = error instanceof CorruptDatabaseError ? error.message : `could not start: ${(error as Error).message}`;
    process.stderr.write(`adoption-kit serve: ${reason}\n`);
    return 1;
  }

  const storage = options.storage?.type === 'file' ? `file ${options.storage.path}` : 'memory (nothing is written)';
  const keys = server.app.keys
    .records()
    .map((r) => `    ${r.plan.padEnd(11)} ${r.key}`)
    .join('\n');
  process.stdout.write(
    `Animal Adoption Store reference server listening on ${server.info.uri}/v1\n` +
      `  store: ${storage} (${await server.app.store.count()} pets)\n` +
      `  rate limits: ${options.redisUrl ? `shared through Redis ${redactUrl(options.redisUrl)}` : 'per instance, in memory'}\n` +
      (options.adminToken ? `  admin API: ${server.info.uri}/__admin (Authorization: Bearer <admin token>)\n` : '') +
      `  API keys by plan (send "Authorization: Bearer <key>"):\n${keys}\n`,
  );

  const stop = async (signal: string) => {
    process.stdout.write(`${signal} received: finishing in-flight requests, then stopping\n`);
    await server.stop({ timeout: 10_000 });
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const code = await main(process.argv.slice(2));
  if (code !== 0) process.exit(code);
}
