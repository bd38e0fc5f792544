// The contract as the kit reads it: spec/openapi.yaml, dereferenced, with one ajv validator per
// documented response body and header. Every response the kit sees goes through `validateResponse`,
// so nothing escapes schema validation (Dredd alone ignores allOf, minimum, format and more).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import $RefParser from '@apidevtools/json-schema-ref-parser';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse as parseYaml } from 'yaml';

export const DEFAULT_SPEC_PATH = fileURLToPath(new URL('../spec/openapi.yaml', import.meta.url));

export type OperationId = 'listPets' | 'createPet' | 'getPet';
export const OPERATION_IDS: readonly OperationId[] = ['listPets', 'createPet', 'getPet'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

export interface DocumentedResponse {
  /** The key in the description: '200', '404', 'default'. */
  key: string;
  headers: Array<{ name: string; required: boolean; validate: ValidateFunction; schema: JsonObject }>;
  /** JSON Schema of the application/json body, OpenAPI-only keywords removed. */
  bodySchema?: JsonObject;
  validateBody?: ValidateFunction;
}

export interface Operation {
  operationId: OperationId;
  method: string;
  path: string;
  deprecated: boolean;
  /** The removal date the description announces for a deprecated operation (YYYY-MM-DD). */
  sunsetDate?: string;
  responses: Map<string, DocumentedResponse>;
  /** The schema of the JSON request body, when there is one. */
  requestSchema?: JsonObject;
}

export interface Contract {
  document: JsonObject;
  operations: Map<OperationId, Operation>;
  /** Values of the PetStatus enumeration, read from the description, not restated here. */
  petStatuses: string[];
  listLimit: { minimum: number; maximum: number; default: number };
}

export interface Problem {
  where: string;
  message: string;
}

// OpenAPI 3.0 Schema Objects are JSON Schema plus a few annotations ajv does not know.
const ANNOTATIONS = ['example', 'xml', 'externalDocs', 'deprecated', 'discriminator', 'readOnly', 'writeOnly'];

/** A plain JSON Schema (draft-07) from an OpenAPI 3.0 Schema Object: annotations dropped, `nullable` expanded. */
export function toJsonSchema(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(toJsonSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.includes(key) || key.startsWith('x-')) continue;
    if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, toJsonSchema(s)]));
      continue;
    }
    out[key] = toJsonSchema(value);
  }
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  delete out.nullable;
  return out;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false });
  const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
  addFormats(ajv);
  return ajv;
}

function asObject(value: Json | undefined): JsonObject {
  return value && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

/** The ISO date a deprecated operation's description gives for its removal, if it gives one. */
function sunsetOf(operation: JsonObject): { sunsetDate?: string } {
  if (operation.deprecated !== true || typeof operation.description !== 'string') return {};
  const m = /(\d{4}-\d{2}-\d{2})/.exec(operation.description);
  return m ? { sunsetDate: m[1]! } : {};
}

export async function loadContract(specPath: string = DEFAULT_SPEC_PATH): Promise<Contract> {
  const raw = parseYaml(await readFile(specPath, 'utf8')) as JsonObject;
  const document = (await $RefParser.dereference(structuredClone(raw) as object)) as JsonObject;
  const ajv = newAjv();
  const operations = new Map<OperationId, Operation>();
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    for (const [method, op] of Object.entries(asObject(item))) {
      const operation = asObject(op);
      const operationId = operation.operationId as OperationId | undefined;
      if (!operationId) continue;
      const responses = new Map<string, DocumentedResponse>();
      for (const [key, resp] of Object.entries(asObject(operation.responses))) {
        const response = asObject(resp);
        const headers = Object.entries(asObject(response.headers)).map(([name, h]) => {
          const header = asObject(h);
          const schema = toJsonSchema(asObject(header.schema)) as JsonObject;
          return { name: name.toLowerCase(), required: header.required === true, schema, validate: ajv.compile(schema) };
        });
        const media = asObject(asObject(response.content)['application/json']);
        const documented: DocumentedResponse = { key, headers };
        if (media.schema) {
          documented.bodySchema = toJsonSchema(media.schema) as JsonObject;
          documented.validateBody = ajv.compile(documented.bodySchema);
        }
        responses.set(key, documented);
      }
      const requestMedia = asObject(asObject(asObject(operation.requestBody).content)['application/json']);
      operations.set(operationId, {
        operationId,
        method: method.toUpperCase(),
        path,
        deprecated: operation.deprecated === true,
        ...sunsetOf(operation),
        responses,
        ...(requestMedia.schema ? { requestSchema: toJsonSchema(requestMedia.schema) as JsonObject } : {}),
      });
    }
  }
  for (const id of OPERATION_IDS) {
    if (!operations.has(id)) throw new Error(`${specPath}: operation ${id} is not described`);
  }
  const statusSchema = asObject(asObject(asObject(document.components).schemas).PetStatus);
  const listParams = (asObject(asObject(document.paths)['/pets']).get as JsonObject | undefined)?.parameters;
  const limitParam = (Array.isArray(listParams) ? listParams : []).map(asObject).find((p) => p.name === 'limit');
  const limitSchema = asObject(limitParam?.schema);
  return {
    document,
    operations,
    petStatuses: Array.isArray(statusSchema.enum) ? statusSchema.enum.map(String) : [],
    listLimit: {
      minimum: Number(limitSchema.minimum ?? 1),
      maximum: Number(limitSchema.maximum ?? 100),
      default: Number(limitSchema.default ?? 20),
    },
  };
}

/** The documented response for a status: the exact code, then the `default` response. */
export function documentedResponse(contract: Contract, operationId: OperationId, status: number) {
  const op = contract.operations.get(operationId);
  return op?.responses.get(String(status)) ?? op?.responses.get('default');
}

function ajvMessages(validate: ValidateFunction, where: string): Problem[] {
  return (validate.errors ?? []).map((e) => ({
    where: `${where}${e.instancePath}`,
    message: `${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
  }));
}

export interface ObservedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Everything the description says about this response: status documented, content type, body schema
 * and documented headers (required ones present, values valid against their schema).
 */
export function validateResponse(contract: Contract, operationId: OperationId, response: ObservedResponse): Problem[] {
  const problems: Problem[] = [];
  const documented = documentedResponse(contract, operationId, response.status);
  if (!documented) {
    return [{ where: 'status', message: `${response.status} is not a documented response of ${operationId}` }];
  }
  for (const header of documented.headers) {
    const value = response.headers[header.name];
    if (value === undefined) {
      if (header.required) problems.push({ where: `header ${header.name}`, message: 'is required but missing' });
      continue;
    }
    const typed = header.schema.type === 'integer' || header.schema.type === 'number' ? parseHeaderNumber(value) : value;
    if (!header.validate(typed)) problems.push(...ajvMessages(header.validate, `header ${header.name} (${JSON.stringify(value)})`));
  }
  if (documented.validateBody) {
    const type = response.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      problems.push({ where: 'header content-type', message: `expected application/json, got ${JSON.stringify(type)}` });
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      problems.push({ where: 'body', message: 'is not valid JSON' });
      return problems;
    }
    if (!documented.validateBody(body)) problems.push(...ajvMessages(documented.validateBody, 'body'));
  }
  return problems;
}

/** A header value as an integer only when it is written as one (no sign games, no exponents). */
export function parseHeaderNumber(value: string): number | string {
  return /^\s*-?\d+\s*$/.test(value) ? Number(value.trim()) : value;
}
