// The deterministic cases of the examples and coverage phases, read off the description: each
// operation with its own examples; then every body property and every parameter at the edges of
// what its schema allows and one past each constraint, the rest of the request kept valid (the
// description's example). Each case says what it expects and at which level (see schema.ts).
import type { Json, JsonObject } from '../../lib/openapi.ts';
import type { Contract, Operation, OperationId } from '../../judge/contract.ts';
import { invalidVariants, validAtBoth, validVariants, type Level } from './schema.ts';

export type Expectation =
  | { valid: true; level: Level; success: readonly number[] }
  | {
      valid: false;
      level: Level;
      where: 'body' | 'query' | 'path';
      /**
       * A query value out of its range, whose handling the specification leaves open: a 2xx serving
       * at most this many items (the value clamped into the range, or ignored) is no violation.
       */
      servedAtMost?: number;
    };

export interface Case {
  operationId: OperationId;
  method: string;
  /** Below the base URL, path parameters filled in. */
  path: string;
  query?: Record<string, string>;
  json?: Json;
  /** A body sent as these exact characters (JSON that JSON.stringify cannot write). */
  raw?: string;
  purpose: string;
  expect: Expectation;
  /** The name the body carries, when it marks the case (an invalid body that must not be stored). */
  marker?: string;
  /** Examples are judged by a check of their own. */
  examples?: true;
}

function asObject(value: Json | undefined): JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** The statuses that answer a valid request: the documented 2xx, and 404 where a path names a resource that may not exist. */
export function successStatuses(op: Operation): number[] {
  const keys = [...op.responses.keys()].filter((k) => /^2\d\d$/.test(k)).map(Number);
  if (op.parameters.some((p) => p.in === 'path') && op.responses.has('404')) keys.push(404);
  return keys;
}

function fillPath(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
}

function exampleOf(op: Operation, name: string): Json | undefined {
  return op.parameters.find((p) => p.name === name)?.example;
}

/** A valid body: the description's first example valid at both levels. */
export function baseBody(op: Operation): Record<string, Json> | undefined {
  const schema = op.requestSchema;
  if (!schema) return undefined;
  const example = op.requestExamples.find((e) => validAtBoth(schema.should, schema.must, e));
  return example === undefined ? undefined : { ...asObject(example) };
}

/** Every path parameter at its example (a request that names an existing resource, as the description shows it). */
function examplePathValues(op: Operation): Record<string, string> {
  return Object.fromEntries(op.parameters.filter((p) => p.in === 'path').map((p) => [p.name, String(p.example ?? 1)]));
}

/** The examples phase: each operation once, with the description's own example body and parameter examples. */
export function exampleCases(contract: Contract): Case[] {
  const cases: Case[] = [];
  for (const op of contract.operations.values()) {
    const query = Object.fromEntries(
      op.parameters.filter((p) => p.in === 'query' && !p.decision && p.example !== undefined).map((p) => [p.name, String(p.example)]),
    );
    const body = baseBody(op);
    cases.push({
      operationId: op.operationId,
      method: op.method,
      path: fillPath(op, examplePathValues(op)),
      ...(Object.keys(query).length > 0 ? { query } : {}),
      ...(body ? { json: body } : {}),
      purpose: `${op.operationId} with the description's examples`,
      expect: { valid: true, level: 'must', success: successStatuses(op) },
      examples: true,
    });
  }
  return cases;
}

/** Coverage of a JSON request body: every property at its edges and past them, and the object itself broken. */
/**
 * `extra: false` leaves out bodies with a property the schema does not name: for a target that
 * declared it refuses them (--choice unknown-fields=refuse), whose refusal choices.declared judges.
 */
export function bodyCases(op: Operation, token: string, options: { extra?: boolean } = {}): Case[] {
  const schema = op.requestSchema;
  const base = baseBody(op);
  if (!schema || !base) return [];
  const properties = asObject(schema.should.properties);
  const mustProperties = asObject(schema.must.properties);
  const required = Array.isArray(schema.should.required) ? schema.should.required.map(String) : [];
  const mustRequired = new Set(Array.isArray(schema.must.required) ? schema.must.required.map(String) : []);
  const nameProperty = Object.keys(properties).find((n) => asObject(properties[n]).type === 'string' && !Array.isArray(asObject(properties[n]).enum));
  const success = successStatuses(op);
  const cases: Case[] = [];
  const on = { operationId: op.operationId, method: op.method, path: op.path };
  let n = 0;
  // An invalid body carries a name of its own, so that a store that kept it can be found.
  const marked = (body: Record<string, Json>, except?: string) => {
    if (!nameProperty || except === nameProperty) return { body };
    const marker = `neg-${token}-${++n}`;
    return { body: { ...body, [nameProperty]: marker }, marker };
  };
  for (const [name, propSchema] of Object.entries(properties)) {
    const should = asObject(propSchema);
    const must = asObject(mustProperties[name]);
    const examples = op.requestExamples.map((e) => asObject(e)[name]).filter((v): v is Json => v !== undefined);
    for (const v of validVariants(should, must, examples)) {
      if (JSON.stringify(v.value) === JSON.stringify(base[name])) continue;
      cases.push({
        ...on,
        json: { ...base, [name]: v.value },
        purpose: `${op.operationId} with ${name} ${v.label}`,
        expect: { valid: true, level: v.level, success },
      });
    }
    if (!required.includes(name)) {
      const { [name]: _omitted, ...rest } = base;
      cases.push({ ...on, json: rest, purpose: `${op.operationId} without the optional ${name}`, expect: { valid: true, level: 'must', success } });
    }
    for (const v of invalidVariants(should, must, 'json')) {
      const { body, marker } = marked({ ...base, [name]: v.value }, name);
      const raw =
        typeof v.value === 'number' && !Number.isSafeInteger(v.value) && Number.isInteger(v.value)
          ? JSON.stringify(body).replace(JSON.stringify(v.value), BigInt(v.value).toString())
          : undefined;
      cases.push({
        ...on,
        ...(raw ? { raw } : { json: body }),
        purpose: `${op.operationId} with ${name} ${v.label}`,
        expect: { valid: false, level: v.level, where: 'body' },
        ...(marker ? { marker } : {}),
      });
    }
  }
  for (const name of required) {
    const { body, marker } = marked(base, name);
    const { [name]: _missing, ...rest } = body;
    cases.push({
      ...on,
      json: rest,
      purpose: `${op.operationId} without the required ${name}`,
      expect: { valid: false, level: mustRequired.has(name) ? 'must' : 'should', where: 'body' },
      ...(marker ? { marker } : {}),
    });
  }
  if (schema.should.additionalProperties !== false) {
    if (options.extra !== false)
      cases.push({
        ...on,
        json: { ...base, [`extra${token}`]: 'ignored' },
        purpose: `${op.operationId} with a property the schema does not name`,
        expect: { valid: true, level: 'should', success },
      });
  }
  for (const [what, raw] of [
    ['an array', '[]'],
    ['a string', JSON.stringify(String(base[nameProperty ?? ''] ?? 'x'))],
    ['a number', '42'],
    ['null', 'null'],
  ] as const) {
    cases.push({ ...on, raw, purpose: `${op.operationId} with ${what} instead of an object`, expect: { valid: false, level: 'must', where: 'body' } });
  }
  return cases;
}

/**
 * For a value past `minimum` or `maximum`: the most items a server may serve for it, clamping it
 * into the range or ignoring it for the default (the specification leaves which open).
 */
export function outOfRange(schema: JsonObject, v: { value: Json; keyword?: string }): number | undefined {
  if (v.keyword !== 'minimum' && v.keyword !== 'maximum') return undefined;
  const value = Number(v.value);
  const min = typeof schema.minimum === 'number' ? schema.minimum : -Infinity;
  const max = typeof schema.maximum === 'number' ? schema.maximum : Infinity;
  const clamped = Math.min(max, Math.max(min, value));
  return Math.max(clamped, typeof schema.default === 'number' ? schema.default : clamped);
}

/** Coverage of the parameters the specification states (not the reference server's own, such as a cursor). */
export function parameterCases(op: Operation): Case[] {
  const cases: Case[] = [];
  const success = successStatuses(op);
  const pathValues = examplePathValues(op);
  for (const p of op.parameters.filter((x) => !x.decision && (x.in === 'query' || x.in === 'path'))) {
    const send = (value: string): Pick<Case, 'path' | 'query'> =>
      p.in === 'path' ? { path: fillPath(op, { ...pathValues, [p.name]: value }) } : { path: fillPath(op, pathValues), query: { [p.name]: value } };
    const on = { operationId: op.operationId, method: op.method };
    const examples = p.example === undefined ? [] : [p.example];
    for (const v of validVariants(p.schema.should, p.schema.must, examples)) {
      if (p.in === 'path' && v.value !== exampleOf(op, p.name)) continue;
      cases.push({
        ...on,
        ...send(String(v.value)),
        purpose: `${op.operationId} with ${p.name}=${String(v.value)} (${v.label})`,
        expect: { valid: true, level: v.level, success },
      });
    }
    for (const v of invalidVariants(p.schema.should, p.schema.must, 'text')) {
      // An empty path segment is another path, not a parameter value.
      if (p.in === 'path' && v.value === '') continue;
      const expect: Expectation = { valid: false, level: v.level, where: p.in === 'path' ? 'path' : 'query' };
      const range = outOfRange(p.schema.should, v);
      if (p.in === 'query' && range !== undefined) expect.servedAtMost = range;
      cases.push({ ...on, ...send(String(v.value)), purpose: `${op.operationId} with ${p.name}=${JSON.stringify(v.value)} (${v.label})`, expect });
    }
  }
  return cases;
}
