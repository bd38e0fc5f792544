// `npm run mock` and `adoption-kit mock`: a Prism mock of the contract, reading a description derived
// at start from spec/openapi.yaml so that an integrator can switch between the mock and the
// reference server without changing paths, and meets the same error codes and headers.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import { helpText, parseOptions, type OptionSpec } from '../lib/cli-options.ts';
import { KitError } from '../lib/errors.ts';
import { optionalPackage } from '../lib/optional.ts';
import { DEFAULT_SPEC_PATH, type JsonObject } from '../lib/openapi.ts';
import { contractFacts } from '../spec/contract-facts.ts';
import { HEADERS, INJECTED_ANSWERS } from '../spec/rules/contract.js';
import { DEFAULT_TOLERANCES } from '../spec/rules/snapshot.js';
import { collectOutput, spawnChild, stopChild, stopWithParent, waitForOutput } from '../lib/processes.ts';
import { isEntryPoint } from '../lib/entry.ts';
import type { ChildProcess } from 'node:child_process';

export const MOCK_OPTIONS: readonly OptionSpec[] = [
  { key: 'port', flag: 'port', env: 'MOCK_PORT', type: 'integer', value: '<n>', default: 4010, min: 0, max: 65535, help: 'Port; 0 picks a free one.' },
  { key: 'host', flag: 'host', env: 'MOCK_HOST', type: 'string', value: '<host>', default: '127.0.0.1', help: 'Interface to listen on.' },
  { key: 'specPath', flag: 'spec', env: 'SPEC', type: 'string', value: '<file>', defaultText: "the kit's spec/openapi.yaml", help: 'The description to mock.' },
  {
    key: 'dynamic',
    flag: 'dynamic',
    type: 'boolean',
    default: false,
    help: "Prism's --dynamic: generate bodies from the schemas instead of returning the examples.",
  },
  { key: 'seed', flag: 'seed', type: 'string', value: '<seed>', help: "Prism's --seed: make --dynamic generate the same bodies every run." },
  {
    key: 'errors',
    flag: 'errors',
    type: 'boolean',
    default: false,
    help: "Prism's --errors: answer requests and responses that violate the description with an error.",
  },
  {
    key: 'ignoreExamples',
    flag: 'ignore-examples',
    type: 'boolean',
    default: false,
    help: "Prism's --ignoreExamples: build static bodies from the schemas, not from the examples.",
  },
  { key: 'quiet', flag: 'quiet', type: 'boolean', default: false, help: "Only Prism's warnings and errors, not a line per request." },
  { key: 'help', flag: 'help', short: 'h', type: 'boolean', default: false, help: 'This text.' },
];

export const MOCK_HELP = helpText(
  `Usage: npm run mock -- [options]
       adoption-kit mock [options]

Starts a Prism mock of the OpenAPI description, at http://<host>:<port>/v1 (and without /v1).
It answers from the examples (the reference server's own bodies and codes), refuses requests
without a bearer token (401) and invalid bodies (400), and gives any documented status on request
with the header "Prefer: code=<status>". It keeps no state: created pets are not stored, limit and
status are not applied, rate limits are not enforced.`,
  MOCK_OPTIONS,
);

export interface MockOptions {
  port?: number;
  host?: string;
  specPath?: string;
  dynamic?: boolean;
  seed?: string;
  errors?: boolean;
  ignoreExamples?: boolean;
  quiet?: boolean;
  /** Where Prism's own log lines go (default: nowhere). */
  log?: (line: string) => void;
  /** How long to wait for Prism to listen (default 30 s). */
  startTimeoutMs?: number;
  /** The clock that sets the Reset examples (default Date.now). */
  now?: () => number;
}

export interface RunningMock {
  /** http://host:port: Prism serves every path of the description here... */
  url: string;
  /** ...and below the description's base path: http://host:port/v1. */
  baseUrl: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export class PortInUseError extends KitError {
  constructor(host: string, port: number) {
    super('port_in_use', `port ${port} on ${host} is already in use; pick another with --port (0 picks a free one)`);
  }
}

function prismEntry(): string {
  return join(optionalPackage('@stoplight/prism-cli', 'The mock', ''), 'dist', 'index.js');
}

/**
 * The description Prism reads: the paths once more below the base path, and the Reset example a
 * day after the start (the longest window the specification describes): Prism answers it on every
 * request, so it must stay in the future and within a day for as long as runs use the mock. A Reset
 * the Retry-After example ahead (42 s) went into the past 42 s after the start, and with it
 * `ratelimit.reset-future` and the burst checks flipped with the mock's uptime.
 */
export function mockDescription(source: JsonObject, nowMs: number): JsonObject {
  const doc = structuredClone(source);
  const base = contractFacts(doc).basePath;
  const paths = (doc.paths ?? {}) as JsonObject;
  for (const [path, item] of Object.entries({ ...paths })) paths[`${base}${path}`] = item;
  const headers = ((doc.components as JsonObject | undefined)?.headers ?? {}) as Record<string, JsonObject>;
  const reset = headers[HEADERS.rateLimitReset];
  if (reset) reset.example = Math.floor(nowMs / 1000) + DEFAULT_TOLERANCES.maxWindowSeconds;
  // Prefer: code=503 is a client asking for a fault: it gets the server's injected one.
  const responses = ((doc.components as JsonObject | undefined)?.responses ?? {}) as Record<string, JsonObject>;
  for (const response of Object.values(responses)) {
    const json = (response.content as JsonObject | undefined)?.['application/json'] as JsonObject | undefined;
    const example = json?.example as JsonObject | undefined;
    if (example?.status !== 503) continue;
    const injected = INJECTED_ANSWERS[503];
    json!.example = { code: injected.code, message: injected.message, status: 503 };
    const retryAfter = (response.headers as Record<string, JsonObject> | undefined)?.[HEADERS.retryAfter];
    if (retryAfter) retryAfter.example = injected.retryAfter;
  }
  // Prism answers a deprecated operation with "Deprecation: true" of its own, over the header's
  // example; without the flag it sends the example, the server's @<epoch seconds>. The server sends
  // Deprecation and Sunset on every answer of the operation, its errors too: so does the mock.
  for (const item of Object.values(paths) as JsonObject[]) {
    for (const op of Object.values(item) as JsonObject[]) {
      if (!op || typeof op !== 'object' || op.deprecated !== true) continue;
      delete op.deprecated;
      const answers = op.responses as Record<string, JsonObject>;
      const marks = Object.fromEntries(
        Object.entries((answers['200']?.headers ?? {}) as JsonObject).filter(([name]) => name === HEADERS.deprecation || name === HEADERS.sunset),
      );
      for (const [status, answer] of Object.entries(answers)) {
        const ref = typeof answer.$ref === 'string' ? answer.$ref.replace('#/components/responses/', '') : null;
        const resolved = structuredClone(ref !== null ? responses[ref]! : answer);
        resolved.headers = { ...((resolved.headers ?? {}) as JsonObject), ...marks };
        answers[status] = resolved;
      }
    }
  }
  return doc;
}

function portFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.once('error', () => resolvePort(false));
    probe.listen(port, host, () => probe.close(() => resolvePort(true)));
  });
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const prism = prismEntry();
  const host = options.host ?? '127.0.0.1';
  const asked = options.port ?? 4010;
  // Port 0 goes to Prism as it is: it listens where the system puts it and says where. A port picked
  // here and handed on could be taken by another process first (seen under a busy test run).
  if (asked !== 0 && !(await portFree(host, asked))) throw new PortInUseError(host, asked);
  const specPath = options.specPath ?? DEFAULT_SPEC_PATH;
  const source = parseYaml(await readFile(specPath, 'utf8')) as JsonObject;
  const dir = await mkdtemp(join(tmpdir(), 'adoption-mock-'));
  const derived = join(dir, 'openapi.yaml');
  await writeFile(derived, toYaml(mockDescription(source, (options.now ?? Date.now)())));
  const args = [
    prism,
    'mock',
    '-h',
    host,
    '-p',
    String(asked),
    ...(options.dynamic ? ['--dynamic'] : []),
    ...(options.seed !== undefined ? ['--seed', options.seed] : []),
    ...(options.errors ? ['--errors'] : []),
    ...(options.ignoreExamples ? ['--ignoreExamples'] : []),
    derived,
  ];
  const child = spawnChild(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  const stop = async () => {
    await stopChild(child, 'SIGTERM', 3000);
    await rm(dir, { recursive: true, force: true });
  };
  // Prism says it is listening at info level, so it always logs at info; quiet drops the rest here.
  const log = options.log && options.quiet ? (line: string) => /warn|error|fatal|listening/i.test(line) && options.log!(line) : options.log;
  const output = collectOutput(child, log);
  let port: number;
  try {
    const listening = await waitForOutput(child, output, /Prism is listening on \S*:(\d+)/, options.startTimeoutMs ?? 30_000, 'Prism');
    port = Number(listening[1]);
  } catch (error) {
    await stop();
    throw error;
  }
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { url, baseUrl: `${url}${contractFacts(source).basePath}`, port, child, stop };
}

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseOptions(MOCK_OPTIONS, argv);
  } catch (error) {
    if (!(error instanceof KitError)) throw error;
    process.stderr.write(`mock: ${error.message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(MOCK_HELP);
    return 0;
  }
  let mock: RunningMock;
  try {
    mock = await startMock({
      port: values.port as number,
      host: values.host as string,
      specPath: values.specPath ? resolve(String(values.specPath)) : DEFAULT_SPEC_PATH,
      dynamic: values.dynamic === true,
      errors: values.errors === true,
      ignoreExamples: values.ignoreExamples === true,
      quiet: values.quiet === true,
      ...(values.seed !== undefined ? { seed: String(values.seed) } : {}),
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    process.stderr.write(`mock: ${(error as Error).message}\n`);
    return 1;
  }
  process.stdout.write(
    `\nPrism mock of the Animal Adoption Store API at ${mock.baseUrl} (and ${mock.url})\n` +
      `Try: npm run conform -- --base-url ${mock.baseUrl} --api-key any-key --profile contract --prefer\n`,
  );
  return new Promise<number>((done) => {
    let stopping = false;
    const shutdown = (why: string) => {
      if (stopping) return;
      stopping = true;
      process.stdout.write(`${why}: stopping the mock\n`);
      void mock.stop().then(() => done(0));
    };
    process.once('SIGINT', () => shutdown('SIGINT received'));
    process.once('SIGTERM', () => shutdown('SIGTERM received'));
    stopWithParent(shutdown);
    mock.child.once('exit', (code) => done(code ?? 0));
  });
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
