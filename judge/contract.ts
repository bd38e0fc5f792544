// The contract as the kit reads it: spec/openapi.yaml, dereferenced, with ajv validators for every
// documented response at two levels: `must` without what is marked x-decision (the reference
// server's own choices), `should` the full description. Every response goes through validateResponse.
import type { Ajv, ValidateFunction } from 'ajv';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { KitError } from '../lib/errors.ts';
import { asObject, createAjv, type Json, DEFAULT_SPEC_PATH, loadDocument, toJsonSchema, type JsonObject, type Level as SchemaLevel } from '../lib/openapi.ts';
import { contractFacts, type ContractFacts, type Deprecation } from '../spec/contract-facts.ts';
import type { OperationId } from '../spec/contract-types.ts';
import { OPERATIONS } from '../spec/rules/contract.js';
import { parseInteger } from '../spec/rules/fields.js';
import { causeKey } from './causes.ts';
import { responseJson } from './exchange.ts';

/** A long list of allowed values, shortened for a message: the first few and how many in all. */
export function enumeration(values: readonly unknown[], shown = 4): string {
  const text = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
  return text.length <= shown + 1 ? text.join(', ') : `${text.slice(0, shown).join(', ')}, … ${text.length} in all`;
}

export { DEFAULT_SPEC_PATH, toJsonSchema, type JsonObject, type SchemaLevel };

export type { OperationId };
/** The operations the kit's checks are written for: those of the kit's own contract. */
const OPERATION_IDS = Object.keys(OPERATIONS) as OperationId[];

export interface DocumentedHeader {
  name: string;
  required: boolean;
  schema: JsonObject;
  validate: ValidateFunction;
}

/** What one level of the description says about a response. */
export interface ResponseRules {
  headers: DocumentedHeader[];
  /** JSON Schema of the application/json body, OpenAPI-only keywords removed. */
  bodySchema?: JsonObject;
  validateBody?: ValidateFunction;
}

export interface DocumentedResponse {
  /** The key in the description: '200', '404', 'default'. */
  key: string;
  levels: Record<SchemaLevel, ResponseRules>;
}

/** A parameter as the description states it, at both levels. */
export interface DescribedParameter {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required: boolean;
  /** The whole parameter is the reference server's decision (x-decision: true): never generated. */
  decision: boolean;
  schema: Record<SchemaLevel, JsonObject>;
  example?: Json;
}

export interface Operation {
  operationId: OperationId;
  method: string;
  path: string;
  deprecated: boolean;
  /** x-deprecation of a deprecated operation: since, sunset, successor. */
  deprecation?: Deprecation;
  responses: Map<string, DocumentedResponse>;
  /** The schema of the JSON request body at each level, when there is one. */
  requestSchema?: Record<SchemaLevel, JsonObject>;
  /** The request body's examples (`example`, then every `examples` value). */
  requestExamples: Json[];
  parameters: DescribedParameter[];
}

export interface Contract {
  document: JsonObject;
  operations: Map<OperationId, Operation>;
  facts: ContractFacts;
  /** Values of the PetStatus enumeration, read from the description, not restated here. */
  petStatuses: string[];
  listLimit: ContractFacts['listLimit'];
}

export interface Problem {
  where: string;
  message: string;
  /** What is wrong apart from this answer (`causeKey`): the same on every answer it breaks. */
  cause: string;
}

export class ContractError extends KitError {
  constructor(message: string) {
    super('contract', message);
  }
}

function responseRules(ajv: Ajv, response: JsonObject, level: SchemaLevel): ResponseRules {
  const headers: DocumentedHeader[] = [];
  for (const [name, h] of Object.entries(asObject(response.headers))) {
    const header = asObject(h);
    // A header that is the reference server's decision is not part of the contract at must level.
    if (level === 'must' && header['x-decision'] === true) continue;
    const schema = toJsonSchema(asObject(header.schema), level) as JsonObject;
    headers.push({ name: name.toLowerCase(), required: header.required === true, schema, validate: ajv.compile(schema) });
  }
  const rules: ResponseRules = { headers };
  const media = asObject(asObject(response.content)['application/json']);
  if (media.schema) {
    rules.bodySchema = toJsonSchema(media.schema, level) as JsonObject;
    rules.validateBody = ajv.compile(rules.bodySchema);
  }
  return rules;
}

function operationOf(ajv: Ajv, operationId: OperationId, method: string, path: string, operation: JsonObject, facts: ContractFacts): Operation {
  const responses = new Map<string, DocumentedResponse>();
  for (const [key, resp] of Object.entries(asObject(operation.responses))) {
    const response = asObject(resp);
    responses.set(key, { key, levels: { must: responseRules(ajv, response, 'must'), should: responseRules(ajv, response, 'should') } });
  }
  const requestMedia = asObject(asObject(asObject(operation.requestBody).content)['application/json']);
  const deprecation = facts.deprecations[operationId];
  const requestExamples: Json[] = [
    ...(requestMedia.example !== undefined ? [requestMedia.example] : []),
    ...Object.values(asObject(requestMedia.examples)).map((e) => asObject(e).value ?? null),
  ];
  const parameters: DescribedParameter[] = (Array.isArray(operation.parameters) ? operation.parameters : []).map((p) => {
    const param = asObject(p);
    const schema = asObject(param.schema);
    return {
      name: String(param.name),
      in: String(param.in) as DescribedParameter['in'],
      required: param.required === true,
      decision: param['x-decision'] === true,
      schema: { must: toJsonSchema(schema, 'must') as JsonObject, should: toJsonSchema(schema, 'should') as JsonObject },
      ...(param.example !== undefined ? { example: param.example } : schema.example !== undefined ? { example: schema.example } : {}),
    };
  });
  return {
    operationId,
    method: method.toUpperCase(),
    path,
    deprecated: operation.deprecated === true,
    ...(deprecation ? { deprecation } : {}),
    responses,
    requestExamples,
    parameters,
    ...(requestMedia.schema
      ? { requestSchema: { must: toJsonSchema(requestMedia.schema, 'must') as JsonObject, should: toJsonSchema(requestMedia.schema, 'should') as JsonObject } }
      : {}),
  };
}

/** Contracts read in this process, by file and the file's state: a run is not charged for compiling again what did not change. */
const loaded = new Map<string, { stamp: string; contract: Promise<Contract> }>();

/**
 * The contract of the description at `specPath`. A process that runs the kit many times (a test
 * file, a watch loop) reads and compiles a description once while its file stays as it was; the
 * contract is never changed by its readers.
 */
export function loadContract(specPath: string = DEFAULT_SPEC_PATH): Promise<Contract> {
  const path = resolve(specPath);
  let stamp: string;
  try {
    const stat = statSync(path);
    stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
  } catch {
    // Unreadable: readContract says why, in the description's terms.
    return readContract(specPath);
  }
  const known = loaded.get(path);
  if (known?.stamp === stamp) return known.contract;
  const contract = readContract(specPath);
  loaded.set(path, { stamp, contract });
  contract.catch(() => loaded.delete(path));
  return contract;
}

async function readContract(specPath: string): Promise<Contract> {
  const { raw, document } = await loadDocument(specPath);
  const facts = contractFacts(raw);
  const ajv = createAjv();
  const operations = new Map<OperationId, Operation>();
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    for (const [method, op] of Object.entries(asObject(item))) {
      const operation = asObject(op);
      const operationId = operation.operationId as OperationId | undefined;
      if (operationId) operations.set(operationId, operationOf(ajv, operationId, method, path, operation, facts));
    }
  }
  for (const id of OPERATION_IDS) {
    if (!operations.has(id)) throw new ContractError(`${specPath}: operation ${id} is not described`);
  }
  return { document, operations, facts, petStatuses: facts.petStatuses, listLimit: facts.listLimit };
}

/** The documented response for a status: the exact code, then the `default` response. */
export function documentedResponse(contract: Contract, operationId: OperationId, status: number): DocumentedResponse | undefined {
  const op = contract.operations.get(operationId);
  return op?.responses.get(String(status)) ?? op?.responses.get('default');
}

/** `cause`: the cause key of a message at an instance path. */
function ajvMessages(validate: ValidateFunction, where: string, cause: (instancePath: string, message: string) => string): Problem[] {
  return (validate.errors ?? []).map((e) => {
    const message = `${e.message ?? 'is invalid'}${e.params && 'allowedValues' in e.params ? ` (${enumeration(e.params.allowedValues as unknown[])})` : ''}`;
    return { where: `${where}${e.instancePath}`, message, cause: cause(e.instancePath, message) };
  });
}

export interface ObservedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Everything the description says about this response at one level: status documented, content
 * type, body schema and documented headers (required ones present, values valid against their schema).
 */
export function validateResponse(contract: Contract, operationId: OperationId, response: ObservedResponse, level: SchemaLevel = 'must'): Problem[] {
  const problems: Problem[] = [];
  const documented = documentedResponse(contract, operationId, response.status);
  if (!documented) {
    const message = `${response.status} is not a documented response of ${operationId}`;
    return [{ where: 'status', message, cause: `status ${message}` }];
  }
  const rules = documented.levels[level];
  for (const header of rules.headers) {
    const value = response.headers[header.name];
    if (value === undefined) {
      if (header.required) problems.push({ where: `header ${header.name}`, message: 'is required but missing', cause: causeKey.headerMissing(header.name) });
      continue;
    }
    const typed = header.schema.type === 'integer' || header.schema.type === 'number' ? (parseInteger(value) ?? value) : value;
    if (!header.validate(typed))
      problems.push(
        ...ajvMessages(header.validate, `header ${header.name} (${JSON.stringify(value)})`, (_, message) => causeKey.headerInvalid(header.name, message)),
      );
  }
  if (rules.validateBody) {
    const type = response.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      const message = `expected application/json, got ${JSON.stringify(type)}`;
      problems.push({ where: 'header content-type', message, cause: causeKey.content('header content-type', message) });
    }
    const body = responseJson(response);
    if (!body) {
      problems.push({ where: 'body', message: 'is not valid JSON', cause: causeKey.content('body', 'is not valid JSON') });
      return problems;
    }
    if (!rules.validateBody(body.value)) problems.push(...ajvMessages(rules.validateBody, 'body', causeKey.body));
  }
  return problems;
}

/**
 * What the full description adds to the must-level problems: the reference server's decisions this
 * response departs from. `mustProblems`: the must-level problems, when the caller has them already.
 */
export function decisionProblems(
  contract: Contract,
  operationId: OperationId,
  response: ObservedResponse,
  mustProblems: readonly Problem[] = validateResponse(contract, operationId, response, 'must'),
): Problem[] {
  const must = new Set(mustProblems.map((p) => `${p.where} ${p.message}`));
  return validateResponse(contract, operationId, response, 'should').filter((p) => !must.has(`${p.where} ${p.message}`));
}
