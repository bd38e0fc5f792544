// Command-line options of `npm run bench`. Parsing is pure so that every flag is tested.
import { CASE_IDS, type CaseId } from './cases.ts';

export interface BenchOptions {
  /** Seconds of measured load per case and round. */
  duration: number;
  /** Seconds of unmeasured load per case before the first round (JIT, caches, sockets). */
  warmup: number;
  connections: number;
  rounds: number;
  cases: CaseId[];
  json: string | undefined;
  /** Pin servers to one core and the load generator to the other, so that every case gets the same split. */
  pin: boolean;
  redisUrl: string;
  /** Directory for `--cpu-prof` profiles of the reference servers; undefined = no profiling. */
  cpuProf: string | undefined;
  /** Keep the temporary directory (stores, logs, latency samples) for inspection. */
  keep: boolean;
  /** Merged into createServer()'s options of every reference server: for measuring what a component costs. */
  referenceOptions: Record<string, unknown>;
  /** Extra node flags for every reference server process (e.g. --max-semi-space-size=4). */
  referenceNodeFlags: string[];
  help: boolean;
}

export const DEFAULTS: Readonly<BenchOptions> = Object.freeze({
  duration: 10,
  warmup: 3,
  connections: 64,
  rounds: 3,
  cases: [...CASE_IDS],
  json: undefined,
  pin: true,
  redisUrl: 'redis://127.0.0.1:6379',
  cpuProf: undefined,
  keep: false,
  referenceOptions: {},
  referenceNodeFlags: [],
  help: false,
});

export const HELP = `Usage: npm run bench -- [options]

Runs every case under the same conditions (connections, duration, warm-up first, rounds
interleaved) and prints requests per second, p50/p99 latency and the server's peak RSS.

  --duration <s>       measured seconds per case and round       (default ${DEFAULTS.duration})
  --warmup <s>         unmeasured seconds per case before round 1 (default ${DEFAULTS.warmup}; 0 = none)
  --connections <n>    concurrent connections for every case      (default ${DEFAULTS.connections})
  --rounds <n>         interleaved rounds                          (default ${DEFAULTS.rounds})
  --cases <a,b,...>    run only these cases                        (default: all)
                       ${CASE_IDS.join(', ')}
  --json <file>        also write the results as JSON to <file>
  --redis <url>        Redis for the ref-redis case                (default ${DEFAULTS.redisUrl})
  --cpu-prof <dir>     write a V8 CPU profile of each reference server to <dir>
  --no-pin             do not pin servers and load generator to separate cores
  --keep               keep the temporary directory (stores, logs, samples)
  --reference-options <json>   merge into createServer() options of the reference servers,
                       e.g. '{"logger":false}', to measure what one component costs
  --reference-node-flags <flags>  extra node flags for the reference servers,
                       e.g. '--max-semi-space-size=4'
  --help               this text
`;

export class OptionsError extends Error {
  override name = 'OptionsError';
}

function positiveNumber(flag: string, raw: string | undefined, { integer = false, zero = false } = {}): number {
  if (raw === undefined || raw.startsWith('--')) throw new OptionsError(`${flag} needs a value`);
  const value = Number(raw);
  const ok = Number.isFinite(value) && (zero ? value >= 0 : value > 0) && (!integer || Number.isInteger(value));
  if (!ok) {
    throw new OptionsError(`${flag} must be ${integer ? 'a whole number' : 'a number'} ${zero ? '>= 0' : '> 0'}, got "${raw}"`);
  }
  return value;
}

function text(flag: string, raw: string | undefined): string {
  if (raw === undefined || raw === '' || raw.startsWith('--')) throw new OptionsError(`${flag} needs a value`);
  return raw;
}

export function parseOptions(argv: readonly string[]): BenchOptions {
  const options: BenchOptions = { ...DEFAULTS, cases: [...DEFAULTS.cases], referenceOptions: {}, referenceNodeFlags: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--duration':
        options.duration = positiveNumber(flag, value());
        break;
      case '--warmup':
        options.warmup = positiveNumber(flag, value(), { zero: true });
        break;
      case '--connections':
        options.connections = positiveNumber(flag, value(), { integer: true });
        break;
      case '--rounds':
        options.rounds = positiveNumber(flag, value(), { integer: true });
        break;
      case '--cases': {
        const wanted = text(flag, value()).split(',').map((s) => s.trim()).filter(Boolean);
        const unknown = wanted.filter((id) => !(CASE_IDS as readonly string[]).includes(id));
        if (unknown.length) throw new OptionsError(`unknown case(s): ${unknown.join(', ')}; known: ${CASE_IDS.join(', ')}`);
        if (wanted.length === 0) throw new OptionsError('--cases needs at least one case');
        // Keep the canonical order so that tables from different runs line up.
        options.cases = CASE_IDS.filter((id) => wanted.includes(id));
        break;
      }
      case '--json':
        options.json = text(flag, value());
        break;
      case '--redis':
        options.redisUrl = text(flag, value());
        break;
      case '--cpu-prof':
        options.cpuProf = text(flag, value());
        break;
      case '--reference-options': {
        const raw = text(flag, value());
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          throw new OptionsError(`${flag} must be a JSON object, got "${raw}"`);
        }
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new OptionsError(`${flag} must be a JSON object, got "${raw}"`);
        options.referenceOptions = parsed as Record<string, unknown>;
        break;
      }
      case '--reference-node-flags': {
        // Taken whole even though it starts with dashes: it is the value, not another option.
        const raw = inline ?? argv[++i];
        if (raw === undefined || raw.trim() === '') throw new OptionsError(`${flag} needs a value`);
        options.referenceNodeFlags = raw.trim().split(/\s+/);
        break;
      }
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
