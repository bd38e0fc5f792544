// Request validation derived from the contract: the body and parameter schemas of the OpenAPI
// description, compiled by ajv when a server is built. Nothing here names a bound or a status;
// the messages name the offending field the way a person would read them.
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { KitError } from '../../lib/errors.ts';
import { createAjv, type JsonObject } from '../../lib/openapi.ts';
import type { Contract, ParameterContract } from '../contract.ts';
import type { NewPet } from '../types.ts';
import type { ListRequest } from './service.ts';

/** A request the contract refuses; the message names every offending field. */
export class InvalidInputError extends KitError {
  constructor(message: string) {
    super('invalid_input', message);
  }
}

export interface PetValidation {
  /** The list's query with defaults applied; unknown parameters are ignored. Read-only: it may be shared. */
  listQuery(query: Record<string, unknown>): Readonly<ListRequest>;
  /** The properties NewPet describes, and only those. */
  newPet(body: unknown): NewPet;
  /** The pet id of GET /pets/{petId}, as a number (possibly beyond safe integers: then no pet has it). */
  petId(params: Record<string, unknown>): number;
}

const ARTICLE: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  object: 'an object',
  array: 'an array',
  boolean: 'a boolean',
};
const FORMAT: Record<string, string> = { int64: 'a 64-bit integer', int32: 'a 32-bit integer' };

function describe(error: ErrorObject, field: string, hints: Readonly<Record<string, string>>): string {
  const f = `"${field}"`;
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `"${String(p.missingProperty)}" is required`;
    case 'type':
      return `${f} must be ${ARTICLE[String(p.type)] ?? String(p.type)}`;
    case 'minLength':
      return p.limit === 1 ? `${f} is not allowed to be empty` : `${f} must be at least ${String(p.limit)} characters long`;
    case 'maxLength':
      return `${f} must be at most ${String(p.limit)} characters long`;
    case 'pattern':
      return `${f} must ${hints[field] ?? `match the pattern ${String(p.pattern)}`}`;
    case 'minimum':
      return `${f} must be greater than or equal to ${String(p.limit)}`;
    case 'maximum':
      return `${f} must be less than or equal to ${String(p.limit)}`;
    case 'enum':
      return `${f} must be one of [${(p.allowedValues as unknown[]).join(', ')}]`;
    case 'format':
      return `${f} must be ${FORMAT[String(p.format)] ?? `in the format ${String(p.format)}`}`;
    default:
      return `${f} ${error.message ?? 'is invalid'}`;
  }
}

/** One message per field, the first problem found with it, in the order ajv found them. */
function messages(errors: readonly ErrorObject[], fieldOf: (e: ErrorObject) => string, hints: Readonly<Record<string, string>>): string {
  const seen = new Map<string, string>();
  for (const error of errors) {
    const field = fieldOf(error);
    if (!seen.has(field)) seen.set(field, describe(error, field, hints));
  }
  return [...seen.values()].join('. ');
}

/** Query and path values arrive as text: numbers written as plain decimals become numbers, nothing else does. */
function coerce(value: unknown, schema: JsonObject): unknown {
  if (typeof value !== 'string') return value;
  if (schema.type === 'integer' && /^-?\d+$/.test(value)) return Number(value);
  if (schema.type === 'number' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return value;
}

interface CompiledParameter extends ParameterContract {
  check: ValidateFunction;
}

function compileParameters(ajv: Ajv, list: readonly ParameterContract[]): CompiledParameter[] {
  return list.map((p) => ({ ...p, check: ajv.compile(p.schema) }));
}

function validateParameters(params: readonly CompiledParameter[], given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const p of params) {
    let value = given[p.name];
    if (value === undefined) {
      if (p.schema.default !== undefined) out[p.name] = p.schema.default;
      else if (p.required) problems.push(`"${p.name}" is required`);
      continue;
    }
    value = coerce(value, p.schema);
    if (!p.check(value)) problems.push(messages(p.check.errors ?? [], () => p.name, {}));
    else out[p.name] = value;
  }
  if (problems.length > 0) throw new InvalidInputError(problems.join('. '));
  return out;
}

/** Longest memo key kept: a first page's query is a few bytes, a cursor's query a few dozen. */
const MAX_MEMO_KEY = 256;
/** Results kept at most; a full memo starts over. */
const MAX_MEMO = 1024;

/**
 * A load test's list query is the same few strings every time, and ajv's checks cost about 1.5 us a
 * request (npm run bench, profile). Results are frozen so that no caller changes the next request's;
 * refusals, repeated parameters and long values are not kept.
 */
function memoised(names: readonly string[], validate: (given: Record<string, unknown>) => Record<string, unknown>) {
  const memo = new Map<string, Readonly<Record<string, unknown>>>();
  return (given: Record<string, unknown>): Readonly<Record<string, unknown>> => {
    let key = '';
    for (const name of names) {
      const value = given[name];
      // Length-prefixed, so that no two sets of values share a key; '-' for an absent one.
      if (value === undefined) key += '-';
      else if (typeof value === 'string') key += `${value.length}:${value}`;
      else return validate(given);
    }
    if (key.length > MAX_MEMO_KEY) return validate(given);
    let result = memo.get(key);
    if (result === undefined) {
      result = Object.freeze(validate(given));
      if (memo.size >= MAX_MEMO) memo.clear();
      memo.set(key, result);
    }
    return result;
  };
}

/** Messages for `pattern`, from the description's `x-pattern-description` of each NewPet property. */
function patternHints(raw: JsonObject | undefined): Record<string, string> {
  const hints: Record<string, string> = {};
  for (const [name, schema] of Object.entries((raw?.properties ?? {}) as Record<string, JsonObject>)) {
    if (typeof schema['x-pattern-description'] === 'string') hints[name] = schema['x-pattern-description'];
  }
  return hints;
}

/** Validations by contract: the schemas of one description are compiled once, however many servers a process builds on it. */
const built = new WeakMap<Contract, PetValidation>();

/** The requests' validation for a contract, compiled once per contract and process (it keeps no state a server could see). */
export function createPetValidation(contract: Contract): PetValidation {
  let validation = built.get(contract);
  if (!validation) {
    validation = compileValidation(contract);
    built.set(contract, validation);
  }
  return validation;
}

function compileValidation(contract: Contract): PetValidation {
  const ajv = createAjv();
  const body = ajv.compile(contract.schemas.newPet);
  const bodyFields = Object.keys((contract.schemas.newPet.properties ?? {}) as JsonObject);
  const hints = patternHints(contract.rawSchemas.newPet);
  const list = compileParameters(ajv, contract.parameters.listPets);
  const get = compileParameters(ajv, contract.parameters.getPet);
  const listQuery = memoised(
    list.map((p) => p.name),
    (given) => validateParameters(list, given),
  );
  const fieldOf = (e: ErrorObject) =>
    e.instancePath === ''
      ? e.keyword === 'required'
        ? String((e.params as { missingProperty?: string }).missingProperty)
        : 'request body'
      : e.instancePath.slice(1).split('/')[0]!;

  return {
    listQuery: (query) => listQuery(query) as unknown as ListRequest,
    newPet(input) {
      if (input === null || input === undefined) throw new InvalidInputError('"request body" is required');
      if (!body(input)) throw new InvalidInputError(messages(body.errors ?? [], fieldOf, hints));
      const source = input as Record<string, unknown>;
      const picked: Record<string, unknown> = {};
      for (const name of bodyFields) if (source[name] !== undefined) picked[name] = source[name];
      return picked as unknown as NewPet;
    },
    petId: (params) => validateParameters(get, params).petId as number,
  };
}
