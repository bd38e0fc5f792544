// Every option of `adoption-kit proxy`, written once: the parser, --help and the options table of
// proxy/README.md come from this table. The target's TLS, header, timeout, contract and clock options
// are the ones conform has too (lib/shared-options.ts), so they read and behave the same in both commands.
import { helpText, type OptionSpec } from '../lib/cli-options.ts';
import { SHARED_OPTIONS } from '../lib/shared-options.ts';

function conformOption(key: keyof typeof SHARED_OPTIONS, group: string): OptionSpec {
  return { ...SHARED_OPTIONS[key], group };
}

export const PROXY_OPTIONS: readonly OptionSpec[] = [
  {
    key: 'target',
    flag: 'target',
    env: 'PROXY_TARGET',
    type: 'string',
    value: '<url>',
    group: 'Target',
    help: "Where every request goes: the origin of any implementation (http://127.0.0.1:3000 for the reference server, http://127.0.0.1:4010 for the Prism mock, https://staging.example.test). A path in it is put before every request's path. Required.",
  },
  {
    ...conformOption('headers', 'Target'),
    help: 'A header added to every forwarded request, e.g. for a gateway in front of the target; repeatable. The value of a header named like a secret (token, key, secret, password, auth, cookie, session, credential) is redacted in reports and the HAR, wherever it appears.',
  },
  conformOption('ca', 'Target'),
  conformOption('insecure', 'Target'),
  {
    ...conformOption('timeoutMs', 'Target'),
    help: 'The longest one exchange may last, from the request to the end of its answer (an endless body is cut there, answered 504 when nothing was sent yet).',
  },
  { key: 'host', flag: 'host', type: 'string', value: '<address>', default: '127.0.0.1', group: 'Listening', help: 'The address the proxy listens on.' },
  {
    key: 'port',
    flag: 'port',
    type: 'integer',
    value: '<n>',
    default: 8080,
    min: 0,
    max: 65535,
    group: 'Listening',
    help: 'The port the proxy listens on (0: any free port, printed at start).',
  },
  {
    key: 'durationSeconds',
    flag: 'duration',
    type: 'integer',
    value: '<s>',
    min: 1,
    group: 'Listening',
    help: 'Stop after this many seconds and report; without it the proxy runs until SIGINT (Ctrl-C) or SIGTERM.',
  },
  {
    key: 'faults',
    flag: 'faults',
    type: 'boolean',
    default: false,
    group: 'Listening',
    help: "Answer Prefer: code=429, 500 or 503 in the server's place (with X-Fault-Injected), and hold a request for Prefer: delay=<ms>, as the reference server does with --faults: clients of any server can be tested against them. Injected answers judge only the client.",
  },
  {
    key: 'ui',
    flag: 'ui',
    type: 'boolean',
    default: false,
    group: 'Listening',
    help: "Serve a live view at /__adoption-kit/live on the proxy's port: each key's windows, Remaining, refusals, bans and findings as they happen. Its feed needs --ui-token; only this machine is answered unless --ui-remote.",
  },
  {
    key: 'uiToken',
    flag: 'ui-token',
    env: 'PROXY_UI_TOKEN',
    type: 'string',
    value: '<token>',
    secret: true,
    defaultText: 'generated at start',
    group: 'Listening',
    help: "The token the live view's feed needs (Authorization: Bearer); the page reads it from its URL's #token= or asks for it. Without it one is generated and printed at start, in the page's URL.",
    check: (value: string) => (value.length < 8 ? 'must be at least 8 characters' : /\s/.test(value) ? 'must not contain spaces' : undefined),
  },
  {
    key: 'uiWatchers',
    flag: 'ui-watchers',
    type: 'integer',
    value: '<n>',
    default: 100,
    min: 1,
    max: 10000,
    group: 'Listening',
    help: "Watchers of the live view at once; one more is answered 503 with Retry-After. Each costs a socket and up to its kernel's send buffer until it drains or is dropped.",
  },
  {
    key: 'uiRemote',
    flag: 'ui-remote',
    type: 'boolean',
    default: false,
    group: 'Listening',
    help: 'Answer the live view to peers on other machines too (with a --host they can reach); without it they get 403, whatever --host says.',
  },
  conformOption('specPath', 'Judging'),
  conformOption('clockToleranceSeconds', 'Judging'),
  {
    key: 'failOn',
    flag: 'fail-on',
    type: 'string',
    value: '<level>',
    choices: ['must', 'should', 'none'],
    default: 'none',
    group: 'Judging',
    help: 'Exit 1 when a finding of this level (must; should: any finding) was seen; none: exit 0 whatever was seen.',
  },
  {
    key: 'captureBytes',
    flag: 'capture',
    type: 'integer',
    value: '<bytes>',
    default: 65536,
    min: 0,
    max: 16777216,
    group: 'Memory',
    help: 'How much of each body (request and answer) is kept for judging; bodies of any size stream through, and one past it is judged on what was kept and says so.',
  },
  {
    key: 'keep',
    flag: 'keep',
    type: 'integer',
    value: '<n>',
    default: 20,
    min: 0,
    max: 10000,
    group: 'Memory',
    help: 'Exchanges kept per key for the reports: the last <n>, and up to <n> around refusals (the first failing ones of each finding are kept besides); the reports count the rest.',
  },
  {
    key: 'maxKeys',
    flag: 'max-keys',
    type: 'integer',
    value: '<n>',
    default: 1000,
    min: 1,
    max: 100000,
    group: 'Memory',
    help: 'Keys judged with their full state at once; past it the least recently active idle key is summarised (its counts and failed checks kept, its state dropped).',
  },
  { key: 'verbose', flag: 'verbose', type: 'boolean', default: false, group: 'Output', help: 'Also list what passed, in the report per key.' },
  { key: 'json', flag: 'json', type: 'string', value: '<file>', group: 'Output', help: 'At exit, write the report per key as JSON (keys redacted).' },
  {
    key: 'junit',
    flag: 'junit',
    type: 'string',
    value: '<file>',
    group: 'Output',
    help: 'At exit, write JUnit XML: a testsuite per key, a testcase per check that judged its traffic and per client obligation.',
  },
  {
    key: 'html',
    flag: 'html',
    type: 'string',
    value: '<file>',
    group: 'Output',
    help: "At exit, write one self-contained HTML page: per key its rate-limit timeline, the server's checks and the client's obligations (the 50 keys with the most findings in full, a row for each other).",
  },
  {
    key: 'har',
    flag: 'har',
    type: 'string',
    value: '<file>',
    group: 'Output',
    help: 'Write the traffic as HAR 1.2 as it passes (keys redacted, each body as far as --capture); complete at exit.',
  },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, group: 'Output', help: 'This text.' },
];

export const PROXY_HELP = helpText(
  `Usage: adoption-kit proxy --target <url> [--port <n>] [options]

Forwards every request unchanged to the target and judges each exchange as it passes: the server
against the contract and the rate-limit window rules, the client against the specification's
obligations (waits for Retry-After, backs off, stops while banned, moves off getPet). One line per
finding as it happens; a report per key at exit (Ctrl-C, SIGTERM or --duration).`,
  PROXY_OPTIONS,
);
