// Command-line options of `npm run bench`. Parsing is pure so that every flag is tested.
import { CASE_IDS, DEFAULT_CASES, type CaseId } from './cases.ts';
import type { GeneratorChoice } from './load.ts';
import { DEFAULT_ADMIN_URL } from './postgres.ts';

export interface BenchOptions {
  /** Whole seconds of measured load per case and round (wrk runs whole seconds). */
  duration: number;
  /** Whole seconds of unmeasured load per case before the first round (JIT, caches, sockets). */
  warmup: number;
  connections: number;
  rounds: number;
  cases: CaseId[];
  json: string | undefined;
  /** Append the run's dated section to this results file (bench/RESULTS.md). */
  results: string | undefined;
  generator: GeneratorChoice;
  /** Pin servers to one core and the load generator to another, so that every case gets the same split. */
  pin: boolean;
  redisUrl: string;
  /** A maintenance database URL; the run creates its own database beside it and drops it at the end. */
  databaseUrl: string;
  /** Directory for `--cpu-prof` profiles of the reference servers; undefined = no profiling. */
  cpuProf: string | undefined;
  /** Keep the temporary directory (stores, logs) for inspection. */
  keep: boolean;
  /** Extra `serve` flags for every reference server: for measuring what a component costs. */
  referenceFlags: string[];
  /** Extra node flags for every reference server process (e.g. --max-semi-space-size=4). */
  referenceNodeFlags: string[];
  help: boolean;
}

export const DEFAULTS: Readonly<BenchOptions> = Object.freeze({
  duration: 10,
  warmup: 3,
  connections: 32,
  rounds: 3,
  cases: [...DEFAULT_CASES],
  json: undefined,
  results: undefined,
  generator: 'auto',
  pin: true,
  redisUrl: 'redis://127.0.0.1:6379',
  databaseUrl: DEFAULT_ADMIN_URL,
  cpuProf: undefined,
  keep: false,
  referenceFlags: [],
  referenceNodeFlags: [],
  help: false,
});

export const HELP = `Usage: npm run bench -- [options]

Runs every case under the same conditions (connections, duration, warm-up first, rounds
interleaved) and prints requests per second, p50/p99 latency, the server's peak RSS and CPU per
request, the load generator's headroom, and each target met or missed.

  --duration <s>       measured whole seconds per case and round  (default ${DEFAULTS.duration})
  --warmup <s>         unmeasured seconds per case before round 1 (default ${DEFAULTS.warmup}; 0 = none)
  --connections <n>    concurrent connections for every case      (default ${DEFAULTS.connections})
  --rounds <n>         interleaved rounds                          (default ${DEFAULTS.rounds})
  --cases <a,b,...>    run only these cases; "all" adds the store-size cases
                       ${CASE_IDS.join(', ')}
                       (default: all but ${CASE_IDS.filter((id) => !DEFAULT_CASES.includes(id)).join(', ')})
  --generator <name>   wrk or autocannon                           (default: wrk when on PATH)
  --json <file>        also write the results as JSON to <file>
  --results <file>     append the run's dated section (machine, generator, command, table,
                       targets) to <file>, e.g. bench/RESULTS.md
  --redis <url>        Redis for the Redis cases                   (default ${DEFAULTS.redisUrl})
  --database <url>     PostgreSQL maintenance database; the run creates and drops its own
                       database beside it                          (default ${DEFAULTS.databaseUrl})
  --cpu-prof <dir>     write a V8 CPU profile of each reference server to <dir>
  --no-pin             do not pin servers and load generator to separate cores
  --keep               keep the temporary directory (stores, logs)
  --reference-flags <flags>   extra serve flags for the reference servers, e.g. '--quiet'
                       or '--no-rate-limit', to measure what one component costs
  --reference-node-flags <flags>  extra node flags for the reference servers,
                       e.g. '--max-semi-space-size=4'
  --help               this text
`;

export class OptionsError extends Error {
  override name = 'OptionsError';
}

function wholeNumber(flag: string, raw: string | undefined, { zero = false } = {}): number {
  if (raw === undefined || raw.startsWith('--')) throw new OptionsError(`${flag} needs a value`);
  const value = Number(raw);
  if (!(Number.isInteger(value) && (zero ? value >= 0 : value > 0)))
    throw new OptionsError(`${flag} must be a whole number ${zero ? '>= 0' : '> 0'}, got "${raw}"`);
  return value;
}

function text(flag: string, raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw.startsWith('--')) throw new OptionsError(`${flag} needs a value`);
  return raw;
}

/** A value that is itself a list of flags: taken whole even though it starts with dashes. */
function flags(flag: string, raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') throw new OptionsError(`${flag} needs a value`);
  return raw.trim().split(/\s+/);
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { ...DEFAULTS, cases: [...DEFAULTS.cases], referenceFlags: [], referenceNodeFlags: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--duration':
        options.duration = wholeNumber(flag, value());
        break;
      case '--warmup':
        options.warmup = wholeNumber(flag, value(), { zero: true });
        break;
      case '--connections':
        options.connections = wholeNumber(flag, value());
        break;
      case '--rounds':
        options.rounds = wholeNumber(flag, value());
        break;
      case '--cases': {
        const wanted = text(flag, value())
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
        if (wanted.length === 1 && wanted[0] === 'all') {
          options.cases = [...CASE_IDS];
          break;
        }
        const unknown = wanted.filter((id) => !(CASE_IDS as readonly string[]).includes(id));
        if (unknown.length) throw new OptionsError(`unknown case(s): ${unknown.join(', ')}; known: ${CASE_IDS.join(', ')}`);
        if (wanted.length === 0) throw new OptionsError('--cases needs at least one case');
        // Keep the canonical order so that tables from different runs line up.
        options.cases = CASE_IDS.filter((id) => wanted.includes(id));
        break;
      }
      case '--generator': {
        const name = text(flag, value());
        if (name !== 'wrk' && name !== 'autocannon' && name !== 'auto') throw new OptionsError(`${flag} must be wrk, autocannon or auto, got "${name}"`);
        options.generator = name;
        break;
      }
      case '--json':
        options.json = text(flag, value());
        break;
      case '--results':
        options.results = text(flag, value());
        break;
      case '--redis':
        options.redisUrl = text(flag, value());
        break;
      case '--database':
        options.databaseUrl = text(flag, value());
        break;
      case '--cpu-prof':
        options.cpuProf = text(flag, value());
        break;
      case '--reference-flags':
        options.referenceFlags = flags(flag, inline ?? argv[++i]);
        break;
      case '--reference-node-flags':
        options.referenceNodeFlags = flags(flag, inline ?? argv[++i]);
        break;
      case '--no-pin':
        options.pin = false;
        break;
      case '--keep':
        options.keep = true;
        break;
      case '--help':
      case '-h':
        options.help = true;
        break;
      default:
        throw new OptionsError(`unknown option "${arg}" (see --help)`);
    }
  }
  return options;
}
