// `npm run mock` and `adoption-kit mock`: a Prism mock of spec/openapi.yaml on 127.0.0.1:4010.
// Prism answers from the description's examples and validates requests (401 without a bearer
// token, 400 for an invalid body); send `Prefer: code=404` to get a documented status on demand.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_SPEC_PATH } from './openapi.ts';
import { isEntryPoint } from './entry.ts';

export const MOCK_HELP = `Usage: npm run mock -- [--port 4010] [--host 127.0.0.1] [--spec spec/openapi.yaml] [--dynamic]
       adoption-kit mock [options]

Starts a Prism mock of the OpenAPI description. Base URL for the kit: http://<host>:<port>
(no /v1: Prism serves the paths as described). It answers from the examples, refuses requests
without a bearer token (401) and invalid bodies (400), and gives any documented status on request
with the header "Prefer: code=<status>". It keeps no state: created pets are not stored, limit and
status are not applied, rate limits are not enforced.

  --port <n>      Port (default 4010; 0 picks a free one).
  --host <host>   Interface (default 127.0.0.1).
  --spec <path>   Description to mock (default: the kit's spec/openapi.yaml).
  --dynamic       Generate bodies from the schemas instead of returning the examples.
  -h, --help      This text.
`;

export interface MockOptions {
  port?: number;
  host?: string;
  specPath?: string;
  dynamic?: boolean;
  /** Where Prism's own log lines go (default: nowhere). */
  log?: (line: string) => void;
  /** How long to wait for Prism to listen (default 30 s). */
  startTimeoutMs?: number;
}

export interface RunningMock {
  url: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

function prismEntry(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
}

/** A port that was free a moment ago (Prism cannot report the port it picked for 0). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}

export async function startMock(options: MockOptions = {}): Promise<RunningMock> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port === undefined ? 4010 : options.port === 0 ? await freePort(host) : options.port;
  const args = [prismEntry(), 'mock', '-h', host, '-p', String(port), ...(options.dynamic ? ['-d'] : []), options.specPath ?? DEFAULT_SPEC_PATH];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    }
  };
  await new Promise<void>((ready, fail) => {
    let output = '';
    const timer = setTimeout(() => {
      fail(new Error(`Prism did not start within ${options.startTimeoutMs ?? 30_000} ms:\n${output.slice(-2000)}`));
    }, options.startTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split('\n')) if (line.trim()) options.log?.(line);
      if (/Prism is listening on/.test(output)) {
        clearTimeout(timer);
        ready();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`Prism exited with ${code} before listening:\n${output.slice(-2000)}`));
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  return { url: `http://${host}:${port}`, port, child, stop };
}

export async function main(argv: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        spec: { type: 'string' },
        dynamic: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    process.stderr.write(`mock: ${(error as Error).message}\nRun with --help for usage.\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(MOCK_HELP);
    return 0;
  }
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`mock: --port must be an integer 0..65535, got ${JSON.stringify(values.port)}\n`);
    return 2;
  }
  let mock: RunningMock;
  try {
    mock = await startMock({
      port,
      host: values.host ?? '127.0.0.1',
      specPath: values.spec ? resolve(values.spec) : DEFAULT_SPEC_PATH,
      dynamic: values.dynamic ?? false,
      log: (line) => process.stdout.write(`${line}\n`),
    });
  } catch (error) {
    process.stderr.write(`mock: ${(error as Error).message}\n`);
    return 1;
  }
  process.stdout.write(
    `\nPrism mock of the Animal Adoption Store API at ${mock.url}\n` +
      `Try: npm run conform -- --base-url ${mock.url} --api-key any-key --profile contract --prefer\n`,
  );
  return new Promise<number>((done) => {
    const shutdown = () => {
      void mock.stop().then(() => done(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    mock.child.once('exit', (code) => done(code ?? 0));
  });
}

if (isEntryPoint(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
