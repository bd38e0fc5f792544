// The Dredd run inside the kit. Dredd 14's parser ignores allOf, minimum, format and $ref inside
// schemas, so on its own it would pass a Pet without `id`: it gets a derived description and, through
// the hooks, each body's must-level JSON Schema (conformance/README.md; dredd.test.ts proves it).
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { optionalPackage } from '../../lib/optional.ts';
import { collectOutput, spawnChild, stopChild } from '../../lib/processes.ts';
import { UNKNOWN_PET_ID } from '../../judge/answers.ts';
import type { Contract } from '../../judge/contract.ts';
import { UNANSWERED_IN_A_ROW } from '../silence.ts';
import { DEFAULT_MAX_BODY_BYTES } from '../transport.ts';
import { type TlsSettings } from '../../lib/tls.ts';

const WORKER = fileURLToPath(new URL('./worker.cjs', import.meta.url));
const HOOKS = fileURLToPath(new URL('./hooks.cjs', import.meta.url));
/**
 * The statuses Dredd checks: those one plain request provokes and the specification itself names
 * (conformance/README.md, Decisions: Which statuses Dredd checks).
 */
function forDredd(key: string, operation: { requestBody?: unknown }): boolean {
  return /^2\d\d$/.test(key) || key === '401' || key === '404' || (key === '400' && operation.requestBody !== undefined);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface DreddTransaction {
  name: string;
  status: 'pass' | 'fail' | 'skip' | 'error';
  message: string;
  request?: { method: string; uri: string; headers: Record<string, string>; body?: string };
  response?: { statusCode: number; headers: Record<string, string>; body?: string };
}

export interface DreddOutcome {
  transactions: DreddTransaction[];
  error?: string;
  /** The target stopped answering Dredd's requests (silence.ts's words): Dredd ended there, and so must the run. */
  stopped?: string;
  durationMs: number;
  /** Dredd's own console output, for diagnosis. */
  log: string;
}

/** What the hooks do per transaction, keyed by the name `dredd --names` prints. */
export interface TransactionPlan {
  status: number;
  authorization: 'key' | 'none';
  body?: string;
  path?: string;
  useCreatedId?: boolean;
  prefer?: boolean;
  bodySchema: JsonObject;
}

function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** allOf of object schemas merged into one object schema, recursively; Dredd's reader ignores allOf. */
export function mergeAllOf(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(mergeAllOf);
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'allOf' || key === 'properties') continue;
    out[key] = mergeAllOf(value);
  }
  const parts = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.map(mergeAllOf).filter(isObject) : [])];
  const properties: JsonObject = {};
  const required = new Set<string>();
  for (const part of parts) {
    if (isObject(part.properties)) for (const [name, s] of Object.entries(part.properties)) properties[name] = mergeAllOf(s);
    if (Array.isArray(part.required)) for (const r of part.required) required.add(String(r));
    if (part !== schema && part.type !== undefined) out.type = part.type;
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return out;
}

/** A JSON Schema Gavel (ajv 6) accepts: draft-07, OpenAPI-only formats removed, allOf kept. */
function forGavel(schema: JsonObject): JsonObject {
  const strip = (s: Json): Json => {
    if (Array.isArray(s)) return s.map(strip);
    if (!isObject(s)) return s;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(s)) {
      if (k === 'format' && (v === 'int64' || v === 'int32' || v === 'float' || v === 'double')) continue;
      out[k] = k === 'properties' && isObject(v) ? Object.fromEntries(Object.entries(v).map(([n, p]) => [n, strip(p)])) : strip(v);
    }
    return out;
  };
  return { $schema: 'http://json-schema.org/draft-07/schema#', ...(strip(schema) as JsonObject) };
}

/** Only what the specification requires of one operation: its Dredd statuses, no decision headers or parameters. */
function mustOperation(op: JsonObject): void {
  delete op.tags;
  // Dredd sends every parameter that has an example; one the reference server chose is not the contract's.
  if (Array.isArray(op.parameters)) op.parameters = op.parameters.filter((p) => !(isObject(p) && p['x-decision'] === true));
  if (!isObject(op.responses)) return;
  for (const [key, response] of Object.entries(op.responses)) {
    if (!forDredd(key, op)) {
      delete op.responses[key];
      continue;
    }
    // Dredd demands every header it is shown; it knows no optional ones.
    if (isObject(response) && isObject(response.headers)) {
      for (const [name, h] of Object.entries(response.headers))
        if (!isObject(h) || h.required !== true || h['x-decision'] === true) delete response.headers[name];
    }
  }
}

/** The description Dredd reads: no $ref, allOf merged, only what the specification requires. */
export function derivedDescription(contract: Contract): JsonObject {
  const doc = JSON.parse(JSON.stringify(contract.document)) as JsonObject;
  delete doc.servers;
  delete doc.tags;
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const op of Object.values(item)) if (isObject(op)) mustOperation(op);
  }
  doc.paths = mergeAllOf(paths);
  if (isObject(doc.components)) {
    delete doc.components.responses;
    delete doc.components.headers;
    doc.components = mergeAllOf(doc.components);
  }
  return doc;
}

/** One plan per transaction Dredd compiles from the derived description. */
export function transactionPlans(contract: Contract): Record<string, TransactionPlan> {
  const plans: Record<string, TransactionPlan> = {};
  const paths = contract.document.paths as JsonObject;
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    for (const opValue of Object.values(item)) {
      if (!isObject(opValue) || !isObject(opValue.responses)) continue;
      const operationId = String(opValue.operationId);
      const documented = contract.operations.get(operationId as 'listPets')!;
      for (const key of Object.keys(opValue.responses)) {
        if (!forDredd(key, opValue)) continue;
        const response = documented.responses.get(key)!;
        const status = Number(key);
        const plan: TransactionPlan = {
          status,
          authorization: status === 401 ? 'none' : 'key',
          bodySchema: forGavel(response.levels.must.bodySchema ?? {}),
        };
        if (status === 400) plan.body = JSON.stringify({ categoryId: 'not-a-number' });
        if (status === 404) {
          plan.path = `/pets/${UNKNOWN_PET_ID}`;
          plan.prefer = true;
        }
        if (operationId === 'getPet' && status === 200) plan.useCreatedId = true;
        plans[`${path} > ${String(opValue.summary)} > ${key} > application/json`] = plan;
      }
    }
  }
  return plans;
}

export interface DreddRunOptions {
  baseUrl: string;
  apiKey: string;
  prefer: boolean;
  contract: Contract;
  specPath: string;
  timeoutMs: number;
  /** Run plain Dredd over this description instead of the derived one: hooks add only the key (to prove the difference). */
  rawDescription?: string;
  /** Headers added to every transaction (--header). */
  headers?: Record<string, string>;
  tls?: TlsSettings;
  /** Bodies are read up to this many bytes (--max-body); a larger one fails its transaction as not judged. */
  maxBodyBytes?: number;
  /** The user's hook files (--hookfiles: paths or globs), loaded beside the kit's own. */
  hookfiles?: readonly string[];
  /** Each request's own timeout (--timeout): a few in a row without an answer end Dredd's run. */
  requestTimeoutMs?: number;
  /** The last request of the kit's that got an answer, named in the message when Dredd's then get none. */
  lastAnswered?: string;
}

export async function runDredd(options: DreddRunOptions): Promise<DreddOutcome> {
  // Dredd is optional: without it, say how to get it (or to skip it) before any work.
  optionalPackage('dredd', 'The Dredd run of conform', 'run conform with --no-dredd');
  const started = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'conformance-dredd-'));
  try {
    const description = options.rawDescription ?? join(dir, 'openapi.derived.yaml');
    if (!options.rawDescription) await writeFile(description, toYaml(derivedDescription(options.contract)));
    const plans = transactionPlans(options.contract);
    const createName = Object.entries(plans).find(([name, p]) => p.status === 201 && name.startsWith('/pets >'))?.[0];
    const config = {
      endpoint: options.baseUrl.replace(/\/+$/, ''),
      description,
      hookfile: HOOKS,
      userHookfiles: options.hookfiles ?? [],
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      requestTimeoutMs: options.requestTimeoutMs,
      unansweredInARow: UNANSWERED_IN_A_ROW,
      lastAnswered: options.lastAnswered,
      custom: {
        origin: new URL(options.baseUrl).origin,
        raw: options.rawDescription !== undefined,
        apiKey: options.apiKey,
        prefer: options.prefer,
        basePath: new URL(options.baseUrl).pathname.replace(/\/+$/, ''),
        transactions: plans,
        createName,
        headers: options.headers ?? {},
      },
    };
    const configPath = join(dir, 'config.json');
    const resultPath = join(dir, 'result.json');
    await writeFile(configPath, JSON.stringify(config));
    // Dredd's requests go through Node's TLS, which reads these when the worker starts.
    const env: Record<string, string> = {};
    if (options.tls?.ca) {
      const caPath = join(dir, 'ca.pem');
      await writeFile(caPath, options.tls.ca);
      env.NODE_EXTRA_CA_CERTS = caPath;
    }
    if (options.tls?.insecure) env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
    const { code, log, timedOut } = await spawnWorker([WORKER, configPath, resultPath], options.timeoutMs, env);
    let parsed: { error?: string; stopped?: string; results: DreddTransaction[] };
    try {
      parsed = JSON.parse(await readFile(resultPath, 'utf8')) as typeof parsed;
    } catch {
      const why = timedOut ? `timed out after ${options.timeoutMs} ms` : `exited with ${code} and no result`;
      return { transactions: [], error: `Dredd ${why}: ${log.trim().split('\n').slice(-5).join(' | ')}`, durationMs: Date.now() - started, log };
    }
    const outcome: DreddOutcome = { transactions: parsed.results, durationMs: Date.now() - started, log };
    if (parsed.error) outcome.error = parsed.error;
    if (parsed.stopped) outcome.stopped = parsed.stopped;
    return outcome;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function spawnWorker(args: string[], timeoutMs: number, env: Record<string, string>): Promise<{ code: number; log: string; timedOut: boolean }> {
  const child = spawnChild(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0', ...env } });
  const output = collectOutput(child);
  const closed = new Promise<number>((resolve) => child.once('close', (code) => resolve(code ?? 1)));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    void stopChild(child, 'SIGKILL');
  }, timeoutMs);
  const code = await closed;
  clearTimeout(timer);
  return { code, log: output.text(), timedOut };
}
