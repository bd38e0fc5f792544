// Reading an OpenAPI 3.0 description as every part needs it: parsed, every $ref resolved, its Schema
// Objects as plain JSON Schema for ajv. The one rule about `x-decision` lives here: 'must' level drops
// the keywords the reference server chose (spec/README.md), so they are never demanded of others.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';
import { KitError } from './errors.ts';

export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** 'must': only what the specification states; 'should': the reference server's choices as well. */
export type Level = 'must' | 'should';

export class InvalidContractError extends KitError {
  constructor(path: string, reason: string, options?: { cause?: unknown }) {
    super('invalid_contract', `The OpenAPI description ${path} cannot be used: ${reason}.`, options);
  }
}

export function isObject(value: Json | undefined): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function asObject(value: Json | undefined): JsonObject {
  return isObject(value) ? value : {};
}

export interface LoadedDocument {
  /** As written, $refs kept. */
  raw: JsonObject;
  /** Every $ref resolved. */
  document: JsonObject;
}

/** The description at `path` (YAML or JSON), as written and with every $ref resolved. */
export async function loadDocument(path: string = DEFAULT_SPEC_PATH): Promise<LoadedDocument> {
  let raw: Json;
  try {
    raw = parseYaml(await readFile(path, 'utf8')) as Json;
  } catch (error) {
    throw new InvalidContractError(path, (error as Error).message, { cause: error });
  }
  if (!isObject(raw) || typeof raw.openapi !== 'string' || !raw.openapi.startsWith('3.0')) {
    throw new InvalidContractError(path, 'it is not an OpenAPI 3.0 document');
  }
  try {
    return { raw, document: (await $RefParser.dereference(structuredClone(raw) as object)) as JsonObject };
  } catch (error) {
    throw new InvalidContractError(path, (error as Error).message, { cause: error });
  }
}

/** ajv as every part validates with it: all errors, strict schemas, the formats OpenAPI uses (int64...). */
export function createAjv(options: { allErrors?: boolean } = {}): Ajv {
  const ajv = new Ajv({ allErrors: options.allErrors ?? true, strict: true, strictTypes: false });
  (addFormatsModule as unknown as (a: Ajv) => Ajv)(ajv);
  return ajv;
}

// OpenAPI 3.0 Schema Objects are JSON Schema plus a few annotations ajv does not know.
const ANNOTATIONS = new Set(['example', 'xml', 'externalDocs', 'deprecated', 'discriminator', 'readOnly', 'writeOnly']);

/** Whether an element (a schema, a header, a parameter) is as a whole the reference server's decision. */
export function isDecision(element: Json | undefined): boolean {
  return isObject(element) && element['x-decision'] === true;
}

/**
 * A plain JSON Schema (draft-07) from an OpenAPI 3.0 Schema Object: annotations and `x-` keys
 * dropped, `nullable` expanded, and at `must` level the keywords `x-decision` names removed (a
 * schema that is a decision as a whole accepts anything).
 */
export function toJsonSchema(schema: Json, level: Level = 'should'): Json {
  if (Array.isArray(schema)) return schema.map((s) => toJsonSchema(s, level));
  if (!isObject(schema)) return schema;
  if (level === 'must' && isDecision(schema)) return {};
  const decided = level === 'must' && Array.isArray(schema['x-decision']) ? new Set(schema['x-decision'].map(String)) : new Set<string>();
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key) || key.startsWith('x-') || decided.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, toJsonSchema(s, level)]));
    } else {
      out[key] = toJsonSchema(value, level);
    }
  }
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  delete out.nullable;
  return out;
}

export interface OperationRef {
  operationId: string;
  /** Upper case: GET, POST. */
  method: string;
  /** As described, below the base path: /pets/{petId}. */
  path: string;
  operation: JsonObject;
}

/** Every operation of the description, in document order. */
export function operations(document: JsonObject): OperationRef[] {
  const found: OperationRef[] = [];
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    for (const [method, op] of Object.entries(asObject(item))) {
      const operation = asObject(op);
      if (typeof operation.operationId === 'string') found.push({ operationId: operation.operationId, method: method.toUpperCase(), path, operation });
    }
  }
  return found;
}
