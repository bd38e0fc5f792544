// Every option of `adoption-kit proxy`, written once: the parser, --help and the options table of
// proxy/README.md come from this table. The target's TLS and header options are the conformance
// kit's own entries, so they read and behave the same in both commands.
import { helpText, type OptionSpec } from '../lib/cli-options.ts';
import { OPTIONS as CONFORM_OPTIONS } from '../conformance/options.ts';

function conformOption(key: string, group: string): OptionSpec {
  const spec = CONFORM_OPTIONS.find((o) => o.key === key);
  if (!spec) throw new Error(`conform has no option ${key}`);
  return { ...spec, group };
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
    help: 'A header added to every forwarded request, e.g. for a gateway in front of the target; repeatable. Values of headers named like a secret are redacted in reports.',
  },
  conformOption('ca', 'Target'),
  conformOption('insecure', 'Target'),
  conformOption('timeoutMs', 'Target'),
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
    help: "At exit, write one self-contained HTML page: per key its rate-limit timeline, the server's checks and the client's obligations.",
  },
  { key: 'har', flag: 'har', type: 'string', value: '<file>', group: 'Output', help: 'At exit, write the traffic as HAR 1.2 (keys redacted).' },
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
