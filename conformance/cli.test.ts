// The command line: usage errors and an unreachable target exit 2 with a clear message, --help
// and --list-checks exit 0, and the real process runs a conformance check end to end.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UsageError } from '../lib/errors.ts';
import { freePort } from '../lib/processes.ts';
import { createServer } from '../server/index.ts';
import { CATALOGUE } from './catalogue.ts';
import { HELP, main, parseCli, type CliOptions } from './cli.ts';
import { configArguments } from './config.ts';
import { MOCK_HELP } from './mock.ts';
import { OPTIONS } from './options.ts';
import { resolveOptions } from './run.ts';
import { sourceArgs } from '../lib/testing/run-source.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) }, out, err };
}

function runProcess(script: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...sourceArgs(script), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

const usage = suite('usage');
const PEM_FILE = join(mkdtempSync(join(tmpdir(), 'conform-ca-')), 'ca.pem');
writeFileSync(PEM_FILE, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

/** parseCli for a command line that runs (not --help or --list-checks). */
function cli(argv: string[], env: NodeJS.ProcessEnv): CliOptions {
  const options = parseCli(argv, env);
  if (typeof options === 'string') throw new Error(`expected options, got ${options}`);
  return options;
}
const BASE = ['--base-url', 'http://127.0.0.1:3000/v1', '--api-key', 'k'];

const usageErrors: Array<[string, string[], RegExp]> = [
  ['no base URL', ['--api-key', 'k'], /--base-url is required/],
  ['no key', ['--base-url', 'http://127.0.0.1:3000/v1'], /--api-key is required/],
  ['a relative base URL', ['--base-url', 'localhost:3000', '--api-key', 'k'], /not an absolute URL|must be http/],
  ['a base URL with a query', ['--base-url', 'http://h/v1?x=1', '--api-key', 'k'], /query or fragment/],
  ['an unknown profile', [...BASE, '--profile', 'everything'], /--profile must be one of contract, full/],
  ['an unknown option', [...BASE, '--fast'], /Unknown option '--fast'/],
  ['--ban-check without a rate-limit key', [...BASE, '--ban-check'], /--ban-check needs --rate-limit-key/],
  ['a rate-limit key with the contract profile', [...BASE, '--profile', 'contract', '--rate-limit-key', 'r'], /full profile only/],
  ['a non-numeric --max-wait', [...BASE, '--max-wait', 'soon'], /--max-wait must be an integer/],
  ['a zero --ban-probes', [...BASE, '--ban-probes', '0'], /--ban-probes must be at least 1/],
  [
    'an unknown phase',
    [...BASE, '--phases', 'coverage,everything'],
    /--phases must name some of examples, coverage, fuzzing, stateful, concurrency, model \(or none\), not everything/,
  ],
  ['a check that does not exist', [...BASE, '--checks', 'input.*,nothing.here'], /nothing\.here names no check/],
  ['a header that is not "Name: value"', [...BASE, '--header', 'nonsense'], /--header "nonsense" is not "Name: value"/],
  ['a header the kit sets itself', [...BASE, '--header', 'Authorization: Bearer x'], /--header cannot set Authorization: the kit sets it \(use --api-key\)/],
  ['--insecure with --ca', [...BASE, '--insecure', '--ca', 'ca.pem'], /--insecure and --ca exclude each other: --ca trusts a CA/],
  ['--insecure with a --ca that holds a certificate', [...BASE, '--insecure', '--ca', PEM_FILE], /--insecure and --ca exclude each other/],
  ['a --ca file without a certificate', [...BASE, '--ca', join(root, 'package.json')], /--ca .* holds no PEM certificate/],
  ['a config file that does not exist', [...BASE, '--config', '/nonexistent/conform.yaml'], /--config \/nonexistent\/conform\.yaml cannot be read/],
  ['a --max-body that is no size', [...BASE, '--max-body', 'big'], /--max-body "big" is not a size/],
  ['a --max-body below 1 KiB', [...BASE, '--max-body', '100'], /--max-body must be between 1 KiB and 256 MiB/],
  ['a --max-body past 256 MiB', [...BASE, '--max-body', '1GiB'], /--max-body must be between 1 KiB and 256 MiB/],
];
for (const [name, argv, message] of usageErrors) {
  usage(`${name}: exit 2 with a message`, async () => {
    const { io, err } = capture();
    assert.is(await main(argv, io), 2);
    assert.match(err.join(''), message);
    assert.match(err.join(''), /--help/);
  });
}

for (const [given, bytes] of [
  [undefined, 8 * 1024 ** 2],
  ['65536', 65536],
  ['64KiB', 65536],
  ['1.5 MiB', 1.5 * 1024 ** 2],
  ['8mib', 8 * 1024 ** 2],
] as const) {
  usage(`--max-body ${given ?? '(left out)'} reads ${bytes} bytes`, () => {
    assert.is(cli([...BASE, ...(given === undefined ? [] : ['--max-body', given])], {}).maxBodyBytes, bytes);
  });
}

usage('defaults: full profile, Dredd on, waits on, not strict; keys may come from the environment', () => {
  const options = cli(['--base-url', 'http://h/v1'], { CONFORMANCE_API_KEY: 'env-key', CONFORMANCE_RATE_LIMIT_KEY: 'env-rl' });
  assert.is(options.apiKey, 'env-key');
  assert.is(options.rateLimitKey, 'env-rl');
  assert.is(options.profile, 'full');
  assert.is(options.dredd, true);
  assert.is(options.wait, true);
  assert.is(options.strict, false);
  assert.is(options.prefer, false);
  const flags = cli([...BASE, '--no-dredd', '--no-wait', '--strict', '--prefer', '--profile', 'contract'], {});
  assert.equal([flags.dredd, flags.wait, flags.strict, flags.prefer, flags.profile], [false, false, true, true, 'contract']);
});

usage('a config file: options by flag name, ${NAME} from the environment, the command line and environment win', async () => {
  const document = {
    'base-url': 'http://h/v1',
    'api-key': '${MY_KEY}',
    header: ['X-Tenant: ci, eu', 'X-Trace: 1'],
    strict: true,
    'max-requests': 50,
    'rate-limit-key': 'from-file',
  };
  const args = configArguments(document, OPTIONS, { MY_KEY: 'secret-from-env', CONFORMANCE_RATE_LIMIT_KEY: 'from-env' }, 'conform.yaml');
  const options = cli([...args, '--max-requests', '60'], { CONFORMANCE_RATE_LIMIT_KEY: 'from-env' });
  assert.is(options.apiKey, 'secret-from-env');
  assert.equal(options.headers, { 'x-tenant': 'ci, eu', 'x-trace': '1' });
  assert.is(options.strict, true);
  assert.is(options.maxRequests, 60);
  assert.is(options.rateLimitKey, 'from-env');
  assert.throws(() => configArguments({ 'api-key': '${UNSET_VARIABLE}' }, OPTIONS, {}, 'c.yaml'), /reads \$\{UNSET_VARIABLE\}, which is not set/);
  assert.throws(() => configArguments({ fast: true }, OPTIONS, {}, 'c.yaml'), /unknown option "fast"/);
  // A negated flag by its key: `dredd: false` is `--no-dredd`.
  assert.equal(configArguments({ dredd: false, wait: true }, OPTIONS, {}, 'c.yaml'), ['--no-dredd']);
  assert.equal(configArguments({ 'no-wait': true }, OPTIONS, {}, 'c.yaml'), ['--no-wait']);
});

usage('the command line and runConformance apply the same defaults, from the one options table', () => {
  const fromCli = cli(BASE, {});
  const fromApi = resolveOptions({ baseUrl: 'http://127.0.0.1:3000/v1', apiKey: 'k' });
  for (const key of [
    'profile',
    'prefer',
    'dredd',
    'wait',
    'maxWaitSeconds',
    'banCheck',
    'banProbes',
    'maxRateLimitRequests',
    'clockToleranceSeconds',
    'timeoutMs',
    'strict',
    'waitForTargetSeconds',
    'maxExamples',
    'maxRequests',
  ] as const) {
    assert.is(fromCli[key], fromApi[key], key);
  }
  assert.equal(fromCli.phases, [...fromApi.phases]);
  assert.equal(fromCli.tls, fromApi.tls);
  assert.equal(fromCli.headers, fromApi.headers);
  assert.equal(fromCli.choices, fromApi.choices);
  assert.is(fromCli.specPath, fromApi.specPath);
  assert.is(fromApi.maxWaitSeconds, OPTIONS.find((o) => o.key === 'maxWaitSeconds')!.default);
  assert.is(fromApi.dredd, OPTIONS.find((o) => o.key === 'dredd')!.default);
});

// Code's options go through the same check as the command line's, with the same messages.
const API = { baseUrl: 'http://127.0.0.1:3000/v1', apiKey: 'k' };
const refusedFromCode: Array<[string, Record<string, unknown>, RegExp]> = [
  ['a zero banProbes', { banProbes: 0 }, /--ban-probes must be at least 1, not 0/],
  ['a fractional maxRequests', { maxRequests: 1.5 }, /--max-requests must be an integer/],
  ['an unknown profile', { profile: 'everything' }, /--profile must be one of contract, full/],
  ['an unknown phase', { phases: ['coverage', 'everything'] }, /--phases must name some of .* not everything/],
  ['a check that does not exist', { checks: ['nothing.here'] }, /--checks: nothing\.here names no check/],
  ['a header the kit sets itself', { headers: { Authorization: 'Bearer x' } }, /--header cannot set Authorization/],
  ['a choice that is not one', { choices: { paging: 'sideways' } }, /--choice paging=sideways: one of/],
  ['a base URL with a query', { baseUrl: 'http://h/v1?x=1' }, /query or fragment/],
  ['banCheck without a rate-limit key', { banCheck: true }, /--ban-check needs --rate-limit-key/],
  ['the same key twice', { rateLimitKey: 'k' }, /--rate-limit-key is the same key as --api-key/],
  ['insecure with a CA', { insecure: true, ca: '-----BEGIN CERTIFICATE-----' }, /--insecure and --ca exclude each other/],
  ['an option the table does not have', { maxWait: 5 }, /unknown option "maxWait"/],
];
for (const [name, extra, message] of refusedFromCode) {
  usage(`resolveOptions refuses ${name} from code with a UsageError`, () => {
    assert.throws(
      () => resolveOptions({ ...API, ...extra } as Parameters<typeof resolveOptions>[0]),
      (e: Error) => e instanceof UsageError && message.test(e.message),
    );
  });
}

usage('resolveOptions requires baseUrl and apiKey', () => {
  assert.throws(() => resolveOptions({ apiKey: 'k' } as Parameters<typeof resolveOptions>[0]), /--base-url <url> is required|--base-url is required/);
  assert.throws(() => resolveOptions({ baseUrl: API.baseUrl } as Parameters<typeof resolveOptions>[0]), /--api-key is required \(or set CONFORMANCE_API_KEY\)/);
});

usage('a config file goes through the same check: a bad value is a usage error naming the flag', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'conform-config-'));
  try {
    const file = join(dir, 'conform.yaml');
    await writeFile(file, 'base-url: http://h/v1\napi-key: k\nban-probes: 0\n');
    const { io, err } = capture();
    assert.is(await main(['--config', file], io), 2);
    assert.match(err.join(''), /--ban-probes must be at least 1, not 0/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

usage('--help is generated from the options table and names every flag with its default', () => {
  for (const spec of OPTIONS) {
    assert.ok(HELP.includes(`--${spec.flag}`), spec.flag);
    if (typeof spec.default === 'number') assert.ok(HELP.includes(`default ${spec.default}`), `${spec.flag} default`);
  }
});

usage('--help and --list-checks exit 0', async () => {
  const help = capture();
  assert.is(await main(['--help'], help.io), 0);
  assert.is(help.out.join(''), HELP);
  const list = capture();
  assert.is(await main(['--list-checks'], list.io), 0);
  for (const def of CATALOGUE) assert.ok(list.out.join('').includes(def.id), def.id);
});

usage('an unreachable target exits 2 and says so', async () => {
  const port = await freePort();
  const { io, err } = capture();
  assert.is(await main(['--base-url', `http://127.0.0.1:${port}/v1`, '--api-key', 'k'], io), 2);
  assert.match(err.join(''), /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/pets: ECONNREFUSED/);
});

usage.run();

const processes = suite('as processes');

processes('importing cli.ts and mock.ts runs nothing; executing them does', async () => {
  const cli = await runProcess('conformance/cli.ts', ['--help']);
  assert.is(cli.code, 0);
  assert.is(cli.stdout, HELP);
  const mock = await runProcess('conformance/mock.ts', ['--help']);
  assert.is(mock.code, 0);
  assert.is(mock.stdout, MOCK_HELP);
  const bad = await runProcess('conformance/mock.ts', ['--port', 'x']);
  assert.is(bad.code, 2);
});

processes('a full run of the CLI process against the reference server exits 0 with a summary table', async () => {
  const server = await createServer({ host: '127.0.0.1', port: 0, logger: false });
  await server.start();
  try {
    const run = await runProcess('conformance/cli.ts', ['--base-url', `${server.info.uri}/v1`, '--api-key', 'test-pro-key', '--strict']);
    assert.is(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /▸ contract: status codes/);
    assert.match(run.stdout, /Dredd: 8 pass/);
    assert.match(run.stdout, /PASS {2}must {4}dredd\.transactions/);
    assert.match(run.stdout, /Summary\n {2}passed +\d+\n {2}failed +0\n {2}warned +0\n {2}not run +\d+\n/);
    assert.match(run.stdout, /CONFORMS \(exit 0\)/);
  } finally {
    await server.stop();
  }
});

processes.run();
