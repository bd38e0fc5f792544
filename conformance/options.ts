// Every option of the kit, written once: the table yields RunOptions, the one validation of its
// values, the command line's parser, --help and conformance/README.md's options table. `key` is the
// property code passes, `flag` the command line's spelling; `commandLine` options are the CLI's alone.
import { helpText, type OptionSpec, type OptionsChecked, type OptionsDefaults, type OptionsInput } from '../lib/cli-options.ts';
import { pathOf, SHARED_OPTIONS } from '../lib/shared-options.ts';
import { OPTIONAL_PHASES } from '../judge/phases.ts';
import { baseUrlProblem, choicesOf, choicesProblem, maxBodyProblem, phasesOf, phasesProblem, sizeOf } from './option-values.ts';
import { hookfilesProblem } from './dredd/hookfiles.ts';
import { DEFAULT_MAX_BODY_BYTES } from './transport.ts';

export { GENERATED_PHASES, OPTIONAL_PHASES, type GeneratedPhase, type OptionalPhase } from '../judge/phases.ts';

type ConformSpec = OptionSpec & { commandLine?: true };

const TABLE = [
  {
    key: 'baseUrl',
    flag: 'base-url',
    type: 'string',
    value: '<url>',
    required: true,
    check: baseUrlProblem,
    group: 'Target',
    help: 'The prefix /pets is appended to, version segment included: http://127.0.0.1:3000/v1 for the reference server, http://127.0.0.1:4010 for the Prism mock. Required.',
  },
  {
    key: 'apiKey',
    flag: 'api-key',
    env: 'CONFORMANCE_API_KEY',
    type: 'string',
    value: '<key>',
    secret: true,
    required: true,
    group: 'Target',
    help: 'A valid key. Required.',
  },
  {
    key: 'rateLimitKey',
    flag: 'rate-limit-key',
    env: 'CONFORMANCE_RATE_LIMIT_KEY',
    type: 'string',
    value: '<key>',
    secret: true,
    group: 'Target',
    help: 'A key whose minute window the kit may exhaust; without it the rate-limit checks are reported as not run. Prefer a key on a small plan.',
  },
  SHARED_OPTIONS.headers,

  SHARED_OPTIONS.ca,

  SHARED_OPTIONS.insecure,

  {
    key: 'waitForTargetSeconds',
    flag: 'wait-for-target',
    type: 'integer',
    value: '<s>',
    default: 0,
    min: 0,
    group: 'Target',
    help: 'Keep trying to reach the target this long before giving up (a server still starting in CI).',
  },
  {
    key: 'server',
    flag: 'server',
    short: 'g',
    type: 'string',
    value: '<command>',
    commandLine: true,
    group: 'Target',
    help: "Dredd's --server: start the target with this shell command before the run (in a process group of its own), and stop the group after the run, also when interrupted.",
  },
  {
    key: 'serverWait',
    flag: 'server-wait',
    type: 'integer',
    value: '<s>',
    default: 3,
    min: 0,
    commandLine: true,
    group: 'Target',
    help: "Dredd's --server-wait: how long after --server starts the command the run waits at most for the target to accept connections (it starts as soon as it does; then --wait-for-target applies).",
  },
  {
    key: 'config',
    flag: 'config',
    type: 'string',
    value: '<file>',
    commandLine: true,
    group: 'Target',
    help: 'A JSON or YAML file of options by flag name ({ "base-url": "...", "header": ["X-A: 1"] }); ${NAME} in a value is read from the environment, so secrets stay out of the file. The command line wins over the environment, the environment over the file.',
  },
  {
    key: 'choices',
    flag: 'choice',
    type: 'list',
    value: '<point=value>',
    convert: choicesOf,
    check: choicesProblem,
    default: {},
    group: 'Target',
    help: 'What the target chose at a point the specification leaves open, which the kit then holds it to at must level (choices.declared); repeatable, or an object under choice: in --config. paging=link|none, limit-out-of-range=refuse|clamp, unknown-fields=refuse|ignore, non-integer-id=400|404, ban-status=429|403, retry-after=seconds|http-date, default-status=<PetStatus>.',
  },
  {
    key: 'profile',
    flag: 'profile',
    type: 'string',
    value: '<name>',
    choices: ['contract', 'full'],
    default: 'full',
    group: 'What to run',
    help: 'contract: what a stateless mock can satisfy (statuses, headers, body schemas, auth refusal, error bodies, Dredd); full: contract plus behaviour (persistence, limit, status, rate limits, deprecation).',
  },
  {
    key: 'prefer',
    flag: 'prefer',
    type: 'boolean',
    default: false,
    group: 'What to run',
    help: 'Send Prism\'s "Prefer: code=404" where a stateless mock cannot choose the status itself (contract checks and Dredd only; reported as such).',
  },
  { key: 'dredd', flag: 'no-dredd', type: 'boolean', negated: true, default: true, group: 'What to run', help: 'Skip the Dredd run.' },
  {
    key: 'hookfiles',
    flag: 'hookfiles',
    short: 'f',
    type: 'list',
    value: '<glob>',
    whole: true,
    default: [],
    check: hookfilesProblem,
    group: 'What to run',
    help: "Dredd's --hookfiles: your hook files (a path or a glob; repeatable) for per-transaction setup, loaded by the Dredd run beside the kit's own, in the alphabetical order of their names. Name transactions as dredd --names prints them for the derived description.",
  },
  {
    key: 'wait',
    flag: 'no-wait',
    type: 'boolean',
    negated: true,
    default: true,
    group: 'What to run',
    help: 'Do not wait out the Retry-After of --rate-limit-key; re-admission is then reported as not run. The kit still paces its own requests (within --max-wait).',
  },
  {
    key: 'maxWaitSeconds',
    flag: 'max-wait',
    type: 'integer',
    value: '<seconds>',
    default: 120,
    min: 0,
    group: 'What to run',
    help: 'Longest single wait: for a Retry-After, or for a window to reopen before an allowance runs out (longer: the run stops with exit 2).',
  },
  {
    key: 'banCheck',
    flag: 'ban-check',
    type: 'boolean',
    default: false,
    group: 'What to run',
    help: 'After the first 429, repeat requests to observe a temporary ban (needs --rate-limit-key; may get that key banned for a while).',
  },
  {
    key: 'banProbes',
    flag: 'ban-probes',
    type: 'integer',
    value: '<n>',
    defaultText: "the rate-limit key's X-RateLimit-Limit",
    min: 1,
    group: 'What to run',
    help: "Requests the ban check sends with --rate-limit-key after the first 429 (the create that must be refused among them), to reach a ban threshold as deep as a window's worth of requests; more than the window's Limit (or --max-rate-limit-requests) is capped to it.",
  },
  {
    key: 'maxRateLimitRequests',
    flag: 'max-rate-limit-requests',
    type: 'integer',
    value: '<n>',
    default: 1100,
    min: 1,
    group: 'What to run',
    help: 'Never exhaust a window larger than this.',
  },
  SHARED_OPTIONS.clockToleranceSeconds,
  SHARED_OPTIONS.timeoutMs,
  {
    key: 'maxResponseTimeMs',
    flag: 'max-response-time',
    type: 'integer',
    value: '<ms>',
    min: 1,
    defaultText: 'off',
    group: 'What to run',
    help: "Fail the check responses.max-response-time (must) on every answer slower than this many milliseconds, from the request sent to its last byte read, as Schemathesis's --max-response-time; off unless given.",
  },
  {
    key: 'maxBodyBytes',
    flag: 'max-body',
    type: 'string',
    value: '<bytes|KiB|MiB>',
    convert: sizeOf,
    check: maxBodyProblem,
    default: DEFAULT_MAX_BODY_BYTES,
    group: 'What to run',
    help: "Most of an answer's body the kit reads, Dredd's run included (bytes, or a number with KiB or MiB; 1KiB to 256MiB). Past it the kit stops reading, and the checks that needed the body report it not judged (body too large to judge), never passed.",
  },
  SHARED_OPTIONS.specPath,

  {
    key: 'phases',
    flag: 'phases',
    type: 'list',
    value: '<list>',
    convert: phasesOf,
    check: phasesProblem,
    default: OPTIONAL_PHASES,
    group: 'Generated inputs',
    help: 'The phases to run besides the fixed checks: the generated ones, from the description\'s schemas: examples, coverage (boundaries, negative data, other methods and media types), fuzzing (fast-check), stateful (full profile); and concurrency (full profile: creates, lists and a burst on --rate-limit-key sent at once); "none" runs only the fixed checks.',
  },
  {
    key: 'maxExamples',
    flag: 'max-examples',
    type: 'integer',
    value: '<n>',
    default: 25,
    min: 1,
    group: 'Generated inputs',
    help: 'Examples each fuzzed property tries (before shrinking).',
  },
  {
    key: 'maxRequests',
    flag: 'max-requests',
    type: 'integer',
    value: '<n>',
    default: 400,
    min: 0,
    group: 'Generated inputs',
    help: 'Most requests the generated phases and the concurrency phase send with --api-key, shrinking included; what does not fit is reported as not run.',
  },
  {
    key: 'clients',
    flag: 'clients',
    type: 'integer',
    value: '<n>',
    default: 4,
    min: 1,
    max: 128,
    group: 'Generated inputs',
    help: 'Requests the concurrency phase sends at once, as that many concurrent clients would: the creates of its first wave, the creates and lists of its second, and at most that many of the burst on --rate-limit-key in flight together (the kit keeps as many connections, at least 4). 1 sends nothing at once: the concurrency checks are then not run.',
  },
  {
    key: 'modelRequests',
    flag: 'model-requests',
    type: 'integer',
    value: '<n>',
    default: 120,
    min: 1,
    max: 5000,
    group: 'Generated inputs',
    help: "Requests the model phase's random history sends besides those of --rate-limit-key (a walk that ends early sends fewer); all but the rate-limit key's count against --max-requests.",
  },
  {
    key: 'historyDir',
    flag: 'history-dir',
    type: 'string',
    value: '<dir>',
    convert: pathOf,
    default: '.conform/histories',
    group: 'Generated inputs',
    help: 'Where the model phase saves each failing history, shrunk, for --replay (<seed>-<check>.json).',
  },
  {
    key: 'replay',
    flag: 'replay',
    type: 'string',
    value: '<file>',
    convert: pathOf,
    group: 'Generated inputs',
    help: 'Sends a history the model phase saved again, and judges it: only the model phase runs (the same keys by role: --rate-limit-key if the history uses it).',
  },
  {
    key: 'seed',
    flag: 'seed',
    type: 'integer',
    value: '<n>',
    defaultText: 'random, printed in the summary',
    min: 0,
    max: 4294967295,
    group: 'Generated inputs',
    help: 'Seed of the generated inputs: the same seed replays the same run.',
  },
  {
    key: 'checks',
    flag: 'checks',
    type: 'list',
    value: '<ids>',
    group: 'What to run',
    help: 'Run only these checks (ids, or prefixes ending in *: input.*,media.*); the others are reported as not run.',
  },
  {
    key: 'excludeChecks',
    flag: 'exclude-checks',
    type: 'list',
    value: '<ids>',
    group: 'What to run',
    help: 'Do not run these checks (ids or prefixes ending in *).',
  },
  { key: 'strict', flag: 'strict', type: 'boolean', default: false, group: 'What to run', help: 'should-level failures fail the run too.' },
  {
    key: 'exitFirst',
    flag: 'exitfirst',
    short: 'x',
    type: 'boolean',
    default: false,
    group: 'What to run',
    help: "Stop the run at the first must failure (any failure with --strict), as Schemathesis's -x: it is reported, the run exits 1, and every other check is reported not run, never passed.",
  },
  {
    key: 'junit',
    commandLine: true,
    flag: 'junit',
    type: 'string',
    value: '<file>',
    convert: pathOf,
    group: 'Output',
    help: 'Also write JUnit XML (one testcase per check).',
  },
  {
    key: 'html',
    commandLine: true,
    convert: pathOf,
    flag: 'html',
    type: 'string',
    value: '<file>',
    group: 'Output',
    help: "Also write one self-contained HTML page (no network needed): the verdict per check, each failure's request, response and curl replay line.",
  },
  {
    key: 'json',
    commandLine: true,
    flag: 'json',
    type: 'string',
    value: '<file>',
    convert: pathOf,
    group: 'Output',
    help: 'Also write the full report as JSON (keys redacted).',
  },
  {
    key: 'verbose',
    commandLine: true,
    flag: 'verbose',
    type: 'boolean',
    default: false,
    group: 'Output',
    help: 'List every check in the table, also those outside the profile.',
  },
  {
    key: 'listChecks',
    commandLine: true,
    flag: 'list-checks',
    type: 'boolean',
    default: false,
    group: 'Output',
    help: 'Print the catalogue of checks and exit.',
  },
  { key: 'help', commandLine: true, flag: 'help', short: 'h', type: 'boolean', default: false, group: 'Output', help: 'This text.' },
] as const satisfies readonly ConformSpec[];

/** Every option, for the parser, --help and the README. */
export const OPTIONS: readonly ConformSpec[] = TABLE;

export const HELP = helpText(
  `Usage: npm run conform -- --base-url <url> --api-key <key> [options]
       adoption-kit conform --base-url <url> --api-key <key> [options]

Checks an implementation of the Animal Adoption Store API against spec/openapi.yaml and the
specification's rules, and reports each check by id, level (must/should) and section.`,
  OPTIONS,
  '\nExit status: 0 conforms, 1 a check failed, 2 the run could not check: a usage error, or the preflight found the\ntarget unreachable, its TLS untrusted, /pets not below --base-url, the key refused, or an allowance used up; or\nno check failed but a must check could not judge (a body past --max-body, Dredd ended early). 3 the kit itself\nfailed (an internal error: a bug to report, no finding about the target).',
);

/** The options runConformance takes, and the command line's own, in the table's order. */
export const RUN_OPTIONS: readonly OptionSpec[] = OPTIONS.filter((spec) => !spec.commandLine);
export const CLI_ONLY_OPTIONS: readonly OptionSpec[] = OPTIONS.filter((spec) => spec.commandLine);

type RunSpec = Exclude<(typeof TABLE)[number], { commandLine: true }>;
type CliSpec = Extract<(typeof TABLE)[number], { commandLine: true }>;

/** The options runConformance takes, as code passes them: derived from the table. */
export type RunOptionValues = OptionsInput<RunSpec>;
/** The same, every default applied and every value checked. */
export type CheckedRunOptions = OptionsChecked<RunSpec>;
/** The command line's own options (outputs, --config, --help), checked. */
export type CliOnlyOptions = OptionsChecked<CliSpec>;

function defaultsOf(specs: readonly OptionSpec[]): Record<string, unknown> {
  return Object.fromEntries(specs.filter((s) => s.default !== undefined).map((s) => [s.key, s.default]));
}

/** The defaults of everything runConformance takes, from the table above. */
export const RUN_DEFAULTS = defaultsOf(RUN_OPTIONS) as OptionsDefaults<RunSpec>;
