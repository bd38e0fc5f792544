// Command-line options of `npm run bench`, as one table (lib/cli-options): the parser, the type
// BenchOptions, --help and the options table of bench/README.md all come from it. Parsing is pure,
// so that every flag is tested.
import { helpText, parseOptions, type OptionSpec, type OptionsChecked } from '../lib/cli-options.ts';
import { UsageError } from '../lib/errors.ts';
import { CASE_IDS, DEFAULT_CASES, K6_START_CASE, OPTIONAL_CASES, PROXY_CASE, type CaseId } from './cases.ts';
import type { GeneratorChoice } from './load.ts';
import { DEFAULT_ADMIN_URL } from './postgres.ts';

/**
 * `--cases`: "all" adds the optional cases; otherwise the named ones, in the canonical order so that
 * tables from different runs line up, the proxy case (bench/proxy-case.ts, run after the others)
 * last. A name that is no case is refused here, before ordering drops it.
 */
function casesOf(wanted: readonly string[]): ReadonlyArray<CaseId | typeof PROXY_CASE | typeof K6_START_CASE> {
  if (wanted.length === 1 && wanted[0] === 'all') return [...CASE_IDS];
  const known: readonly string[] = [...CASE_IDS, PROXY_CASE, K6_START_CASE];
  const unknown = wanted.filter((id) => !known.includes(id));
  if (unknown.length) throw new UsageError(`unknown case(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  const proxy: Array<typeof PROXY_CASE> = wanted.includes(PROXY_CASE) ? [PROXY_CASE] : [];
  const k6: Array<typeof K6_START_CASE> = wanted.includes(K6_START_CASE) ? [K6_START_CASE] : [];
  return [...CASE_IDS.filter((id) => wanted.includes(id)), ...proxy, ...k6];
}

/** Kept as text (a list's default is not converted); bench/cli.ts reads them as numbers. */
const countsProblem = (values: readonly string[]) =>
  values.length === 0 || values.some((v) => !/^[1-9]\d*$/.test(v))
    ? `--proxy-connections needs whole numbers of at least 1, not ${values.join(',')}`
    : undefined;

const casesProblem = (cases: readonly string[]) => (cases.length === 0 ? '--cases needs at least one case' : undefined);

/** Another program's flags, one argument: split on white space. */
const flagsOf = (text: string): string[] => text.trim().split(/\s+/).filter(Boolean);
const someFlags = (flag: string) => (flags: readonly string[]) => (flags.length === 0 ? `--${flag} needs a value` : undefined);

/** How to pass a value that begins with dashes (node's own parser would take it for a flag). */
const dashes = (flag: string, example: string) =>
  `The value is taken whole, dashes included: '${example}' after the flag, or --${flag}=${example.split(' ')[0]}.`;

const TABLE = [
  {
    key: 'duration',
    flag: 'duration',
    type: 'integer',
    value: '<s>',
    default: 10,
    min: 1,
    help: 'Measured whole seconds per case and round (wrk runs whole seconds).',
  },
  { key: 'warmup', flag: 'warmup', type: 'integer', value: '<s>', default: 3, min: 0, help: 'Unmeasured seconds per case before round 1 (0: none).' },
  { key: 'connections', flag: 'connections', type: 'integer', value: '<n>', default: 32, min: 1, help: 'Concurrent connections, for every case.' },
  { key: 'rounds', flag: 'rounds', type: 'integer', value: '<n>', default: 3, min: 1, help: 'Interleaved rounds.' },
  {
    key: 'cases',
    flag: 'cases',
    type: 'list',
    value: '<a,b>',
    default: DEFAULT_CASES,
    defaultText: `all but ${OPTIONAL_CASES.join(', ')}`,
    convert: casesOf,
    check: casesProblem,
    help: `A subset of the cases, by name: ${CASE_IDS.join(', ')}; "all" adds ${OPTIONAL_CASES.join(', ')}. "${PROXY_CASE}" (only when named) runs the proxy case after the others; "${K6_START_CASE}" (only when named) times k6 loading each k6 script beside a trivial one.`,
  },
  {
    key: 'proxyRounds',
    flag: 'proxy-rounds',
    type: 'integer',
    value: '<n>',
    default: 4,
    min: 1,
    help: 'The proxy case: rounds per connection count, direct and via the proxy interleaved.',
  },
  {
    key: 'proxyDuration',
    flag: 'proxy-duration',
    type: 'integer',
    value: '<s>',
    default: 15,
    min: 1,
    help: 'The proxy case: measured whole seconds per round.',
  },
  {
    key: 'proxyConnections',
    flag: 'proxy-connections',
    type: 'list',
    value: '<a,b>',
    default: ['32', '128'],
    check: countsProblem,
    help: 'The proxy case: the connection counts, each with a fresh proxy.',
  },
  {
    key: 'generator',
    flag: 'generator',
    type: 'string',
    value: '<name>',
    choices: ['auto', 'wrk', 'autocannon'] as const satisfies readonly GeneratorChoice[],
    default: 'auto',
    defaultText: 'wrk when on PATH',
    help: 'wrk or autocannon (auto: wrk when on PATH).',
  },
  { key: 'json', flag: 'json', type: 'string', value: '<file>', help: 'Also write the report as JSON.' },
  {
    key: 'results',
    flag: 'results',
    type: 'string',
    value: '<file>',
    help: "Add the run's dated section (machine, generator, command, table, targets) to a results file, newest first: bench/RESULTS.md.",
  },
  { key: 'redisUrl', flag: 'redis', type: 'string', value: '<url>', default: 'redis://127.0.0.1:6379', help: 'Redis for the Redis cases.' },
  {
    key: 'databaseUrl',
    flag: 'database',
    type: 'string',
    value: '<url>',
    default: DEFAULT_ADMIN_URL,
    help: 'A PostgreSQL maintenance database: the run creates its own database beside it and drops it at the end.',
  },
  { key: 'cpuProf', flag: 'cpu-prof', type: 'string', value: '<dir>', help: 'A V8 CPU profile of every reference server, in <dir>/<server>/.' },
  {
    key: 'referenceFlags',
    flag: 'reference-flags',
    type: 'string',
    value: '<flags>',
    dashes: true,
    default: [],
    convert: flagsOf,
    check: someFlags('reference-flags'),
    help: `Extra serve flags for the reference servers, e.g. '--quiet' or '--no-rate-limit', to price one component; the table is then marked as not the production stack. ${dashes('reference-flags', '--quiet --no-cors')}`,
  },
  {
    key: 'referenceNodeFlags',
    flag: 'reference-node-flags',
    type: 'string',
    value: '<flags>',
    dashes: true,
    default: [],
    convert: flagsOf,
    check: someFlags('reference-node-flags'),
    help: `Extra node flags for the reference servers, e.g. '--max-semi-space-size=4'. ${dashes('reference-node-flags', '--max-semi-space-size=4 --no-opt')}`,
  },
  { key: 'pin', flag: 'no-pin', type: 'boolean', negated: true, default: true, help: 'Do not pin servers and load generator to separate cores.' },
  { key: 'keep', flag: 'keep', type: 'boolean', default: false, help: 'Keep the temporary directory (stores, logs).' },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'This text.' },
] as const satisfies readonly OptionSpec[];

export const BENCH_OPTIONS: readonly OptionSpec[] = TABLE;

export type BenchOptionSpec = (typeof TABLE)[number];

/** The options of a run, derived from the table. */
export type BenchOptions = OptionsChecked<BenchOptionSpec>;

export const HELP = helpText(
  `Usage: npm run bench -- [options]

Runs every case under the same conditions (connections, duration, warm-up first, rounds
interleaved) and prints requests per second, p50/p99 latency, the server's peak RSS and CPU per
request, the load generator's headroom, and each target met or missed.`,
  BENCH_OPTIONS,
);

/** The command line as the run's options; a problem is a UsageError (the kit's one usage error). */
export function parseBenchOptions(argv: readonly string[]): BenchOptions {
  return parseOptions(BENCH_OPTIONS, argv, {}) as BenchOptions;
}
