// Every option of the kit, written once: the command line parses with this table, runConformance
// applies its defaults, --help and the options table of conformance/README.md are generated from it.
import { helpText, type OptionSpec } from '../lib/cli-options.ts';
import type { Profile } from './catalogue.ts';

export const OPTIONS: readonly OptionSpec[] = [
  {
    key: 'baseUrl',
    flag: 'base-url',
    type: 'string',
    value: '<url>',
    group: 'Target',
    help: 'The prefix /pets is appended to, version segment included: http://127.0.0.1:3000/v1 for the reference server, http://127.0.0.1:4010 for the Prism mock. Required.',
  },
  { key: 'apiKey', flag: 'api-key', env: 'CONFORMANCE_API_KEY', type: 'string', value: '<key>', secret: true, group: 'Target', help: 'A valid key. Required.' },
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
  { key: 'prefer', flag: 'prefer', type: 'boolean', default: false, group: 'What to run', help: 'Send Prism\'s "Prefer: code=404" where a stateless mock cannot choose the status itself (contract checks and Dredd only; reported as such).' },
  { key: 'noDredd', flag: 'no-dredd', type: 'boolean', default: false, group: 'What to run', help: 'Skip the Dredd run.' },
  { key: 'noWait', flag: 'no-wait', type: 'boolean', default: false, group: 'What to run', help: 'Do not wait for Retry-After; re-admission is then reported as not run.' },
  { key: 'maxWaitSeconds', flag: 'max-wait', type: 'integer', value: '<seconds>', default: 120, min: 0, group: 'What to run', help: 'Longest wait for a Retry-After.' },
  { key: 'banCheck', flag: 'ban-check', type: 'boolean', default: false, group: 'What to run', help: 'After the first 429, repeat requests to observe a temporary ban (needs --rate-limit-key; may get that key banned for a while).' },
  { key: 'banProbe', flag: 'ban-probe', type: 'integer', value: '<n>', default: 10, min: 1, group: 'What to run', help: 'Requests the ban check sends after the first 429.' },
  { key: 'maxRateLimitRequests', flag: 'max-rate-limit-requests', type: 'integer', value: '<n>', default: 1100, min: 1, group: 'What to run', help: 'Never exhaust a window larger than this.' },
  { key: 'clockToleranceSeconds', flag: 'clock-tolerance', type: 'integer', value: '<s>', default: 2, min: 0, group: 'What to run', help: "Allowed difference between the kit's and the server's clocks, in seconds, when a response has no Date header." },
  { key: 'timeoutMs', flag: 'timeout', type: 'integer', value: '<ms>', default: 10_000, min: 1, group: 'What to run', help: 'Per-request timeout.' },
  { key: 'specPath', flag: 'spec', type: 'string', value: '<path>', defaultText: "the kit's spec/openapi.yaml", group: 'What to run', help: 'The OpenAPI description.' },
  { key: 'strict', flag: 'strict', type: 'boolean', default: false, group: 'What to run', help: 'should-level failures fail the run too.' },
  { key: 'junit', flag: 'junit', type: 'string', value: '<file>', group: 'Output', help: 'Also write JUnit XML (one testcase per check).' },
  { key: 'json', flag: 'json', type: 'string', value: '<file>', group: 'Output', help: 'Also write the full report as JSON (keys redacted).' },
  { key: 'verbose', flag: 'verbose', type: 'boolean', default: false, group: 'Output', help: 'List every check in the table, also those outside the profile.' },
  { key: 'listChecks', flag: 'list-checks', type: 'boolean', default: false, group: 'Output', help: 'Print the catalogue of checks and exit.' },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, group: 'Output', help: 'This text.' },
];

export const HELP = helpText(
  `Usage: npm run conform -- --base-url <url> --api-key <key> [options]
       adoption-kit conform --base-url <url> --api-key <key> [options]

Checks an implementation of the Animal Adoption Store API against spec/openapi.yaml and the
specification's rules, and reports each check by id, level (must/should) and section.`,
  OPTIONS,
  '\nExit status: 0 conforms, 1 a check failed, 2 usage error or target unreachable.',
);

function defaultOf<T extends string | number | boolean>(key: string): T {
  const spec = OPTIONS.find((o) => o.key === key);
  if (spec?.default === undefined) throw new Error(`option ${key} has no default`);
  return spec.default as T;
}

/** The defaults of everything runConformance takes, from the table above. */
export const RUN_DEFAULTS = {
  profile: defaultOf<Profile>('profile'),
  prefer: defaultOf<boolean>('prefer'),
  dredd: !defaultOf<boolean>('noDredd'),
  wait: !defaultOf<boolean>('noWait'),
  maxWaitSeconds: defaultOf<number>('maxWaitSeconds'),
  banCheck: defaultOf<boolean>('banCheck'),
  banProbe: defaultOf<number>('banProbe'),
  maxRateLimitRequests: defaultOf<number>('maxRateLimitRequests'),
  clockToleranceSeconds: defaultOf<number>('clockToleranceSeconds'),
  timeoutMs: defaultOf<number>('timeoutMs'),
  strict: defaultOf<boolean>('strict'),
} as const;
