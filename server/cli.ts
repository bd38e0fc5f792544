// `npm start` / `adoption-kit serve`: the only place that starts a server and handles signals.
// Its options are one table, SERVE_OPTIONS in serve-options.ts.
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KitError } from '../lib/errors.ts';
import { parseOptions } from '../lib/cli-options.ts';
import { stopWithParent } from '../lib/processes.ts';
import { readJsonFile } from './fixtures.ts';
import { InvalidOptionsError, type ServerOptions } from './options.ts';
import { roundTripsLine } from './round-trips.ts';
import { createServer } from './server.ts';
import { startBanner } from './banner.ts';
import { RESTART_POLICY, announceWorker, isWorker, runPrimary, workersRefusal } from './workers.ts';
import { DEFAULT_DB_FILE, HELP, SERVE_OPTIONS } from './serve-options.ts';

export { DEFAULT_DB_FILE, HELP, SERVE_OPTIONS };
import type { ApiKeyRecord } from './keys.ts';
import type { Pet } from './types.ts';

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
    delayMs: values.delayMs,
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

  const banner = await startBanner(server);
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
