// The options conform and the proxy share, written once so they read and behave the same in both
// commands: how to reach the target (headers, TLS, timeout), which contract judges it and how far its
// clock may be off. Each command places them in its own table (conformance/options.ts, proxy/options.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from './errors.ts';
import { DEFAULT_SPEC_PATH } from './openapi.ts';
import type { OptionSpec } from './option-spec.ts';

/** `--header` values ("Name: value", taken whole: a value may hold commas) as a record by lower-case name. */
export function headersOf(values: readonly string[], from: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*:\s*(.*)$/.exec(value);
    if (!m) throw new UsageError(`${from} ${JSON.stringify(value)} is not "Name: value"`);
    // Refused under the name as written, before it is lower-cased.
    const problem = headersProblem({ [m[1]!]: m[2]! });
    if (problem !== undefined) throw new UsageError(problem);
    headers[m[1]!.toLowerCase()] = m[2]!.trim();
  }
  return headers;
}

/** The headers the kit sets itself cannot be given. */
export function headersProblem(headers: Readonly<Record<string, string>>): string | undefined {
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (['authorization', 'host', 'content-length', 'transfer-encoding'].includes(lower))
      return `--header cannot set ${name}: the kit sets it${lower === 'authorization' ? ' (use --api-key)' : ''}`;
  }
  return undefined;
}

/** The PEM certificates of --ca, read once where the option enters. */
export function readCa(file: string, from = '--ca'): string {
  let ca: string;
  try {
    ca = readFileSync(resolve(file), 'utf8');
  } catch (error) {
    throw new UsageError(`${from} ${file} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`${from} ${file} holds no PEM certificate`);
  return ca;
}

/** A path on the command line, relative to where the command ran. */
export const pathOf = (value: string): string => resolve(value);

export const SHARED_OPTIONS = {
  headers: {
    key: 'headers',
    flag: 'header',
    type: 'list',
    value: '<name: value>',
    whole: true,
    convert: headersOf,
    check: headersProblem,
    default: {},
    group: 'Target',
    help: 'A header sent with every request, e.g. for a gateway in front of the target; repeatable. The value of a header named like a secret (token, key, secret, password, auth, cookie, session, credential) is redacted in reports, wherever it appears.',
  },
  ca: {
    key: 'ca',
    flag: 'ca',
    type: 'string',
    value: '<file>',
    convert: readCa,
    group: 'Target',
    help: "PEM certificate(s) of the CA that signed the target's certificate, trusted besides the system's (Dredd included).",
  },
  insecure: {
    key: 'insecure',
    flag: 'insecure',
    type: 'boolean',
    default: false,
    excludes: { ca: '--ca trusts a CA, --insecure trusts anything' },
    group: 'Target',
    help: "Do not verify the target's TLS certificate (a test server with a self-signed certificate; never production).",
  },
  clockToleranceSeconds: {
    key: 'clockToleranceSeconds',
    flag: 'clock-tolerance',
    type: 'integer',
    value: '<s>',
    default: 2,
    min: 0,
    group: 'What to run',
    help: "Allowed difference between the kit's and the server's clocks, in seconds, when a response has no Date header.",
  },
  timeoutMs: { key: 'timeoutMs', flag: 'timeout', type: 'integer', value: '<ms>', default: 10_000, min: 1, group: 'What to run', help: 'Per-request timeout.' },
  specPath: {
    key: 'specPath',
    flag: 'spec',
    type: 'string',
    value: '<path>',
    convert: pathOf,
    default: DEFAULT_SPEC_PATH,
    defaultText: "the kit's spec/openapi.yaml",
    group: 'What to run',
    help: 'The OpenAPI description.',
  },
} as const satisfies Record<string, OptionSpec>;
