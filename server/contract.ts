// What the server enforces that the contract states, read from the OpenAPI description when a
// server is built: validation schemas, the statuses, the list bounds, the plans and their limits,
// getPet's deprecation. Nothing here restates the contract; change the description and the server
// follows (contract.test.ts proves it with a modified copy).
import { asObject, basePath, DEFAULT_SPEC_PATH, InvalidContractError, isObject, loadDocument, operations, toJsonSchema, type JsonObject } from '../lib/openapi.ts';
import type { Limits } from './types.ts';

export { DEFAULT_SPEC_PATH } from '../lib/openapi.ts';

export interface ParameterContract {
  name: string;
  in: 'query' | 'path';
  required: boolean;
  /** JSON Schema of the value, the reference server's decisions included. */
  schema: JsonObject;
}

export interface DeprecationContract {
  /** ISO 8601 instants. */
  since: string;
  sunset: string;
  /** The replacement, below the base path: /pets?status=available. */
  successor: string;
}

export type PlanLimits = Limits | 'custom';

export interface Contract {
  specPath: string;
  /** The path every server URL ends with: /v1. */
  basePath: string;
  apiVersion: string;
  petStatuses: readonly string[];
  /** info.x-rate-limits.plans: limits per plan; 'custom' plans carry their limits per key. */
  plans: Readonly<Record<string, PlanLimits>>;
  /** JSON Schemas (full: the reference server's decisions included). */
  schemas: { newPet: JsonObject; pet: JsonObject };
  /** The same schemas as the description writes them, with their `x-` hints. */
  rawSchemas: { newPet: JsonObject };
  parameters: { listPets: ParameterContract[]; getPet: ParameterContract[] };
  deprecation: DeprecationContract;
  /** Every operation the description marks deprecated. */
  deprecatedOperations: readonly string[];
  /** The enumeration of Error.code. */
  errorCodes: readonly string[];
}

const OPERATIONS = ['listPets', 'createPet', 'getPet'] as const;

function parametersOf(operation: JsonObject): ParameterContract[] {
  const list = Array.isArray(operation.parameters) ? operation.parameters.map(asObject) : [];
  return list.map((p) => ({
    name: String(p.name),
    in: p.in === 'path' ? 'path' : 'query',
    required: p.required === true,
    schema: toJsonSchema(asObject(p.schema)) as JsonObject,
  }));
}

function plansOf(info: JsonObject, path: string): Record<string, PlanLimits> {
  const plans = asObject(asObject(info['x-rate-limits']).plans);
  const out: Record<string, PlanLimits> = {};
  for (const [name, value] of Object.entries(plans)) {
    if (value === 'custom') out[name] = 'custom';
    else if (isObject(value) && Number.isSafeInteger(value.perMinute) && Number.isSafeInteger(value.perDay)) {
      out[name] = { perMinute: value.perMinute as number, perDay: value.perDay as number };
    } else throw new InvalidContractError(path, `info.x-rate-limits.plans.${name} must be { perMinute, perDay } or "custom"`);
  }
  if (Object.keys(out).length === 0) throw new InvalidContractError(path, 'info.x-rate-limits.plans names no plan');
  return out;
}

function deprecationOf(operation: JsonObject, path: string): DeprecationContract {
  const d = asObject(operation['x-deprecation']);
  const valid = (v: unknown) => typeof v === 'string' && !Number.isNaN(Date.parse(v));
  if (operation.deprecated !== true || !valid(d.since) || !valid(d.sunset) || typeof d.successor !== 'string') {
    throw new InvalidContractError(path, 'getPet must be deprecated with x-deprecation { since, sunset, successor }');
  }
  return { since: d.since as string, sunset: d.sunset as string, successor: d.successor };
}

async function read(specPath: string): Promise<Contract> {
  const document = await loadDocument(specPath);
  const byId = new Map(operations(document).map((o) => [o.operationId, o]));
  for (const id of OPERATIONS) if (!byId.has(id)) throw new InvalidContractError(specPath, `operation ${id} is not described`);
  const schemas = asObject(asObject(document.components).schemas);
  const requestSchema = asObject(asObject(asObject(asObject(byId.get('createPet')!.operation.requestBody).content)['application/json']).schema);
  const status = asObject(schemas.PetStatus);
  const errorCode = asObject(asObject(asObject(schemas.Error).properties).code);
  return {
    specPath,
    basePath: basePath(document, specPath),
    apiVersion: String(asObject(document.info).version),
    petStatuses: Array.isArray(status.enum) ? status.enum.map(String) : [],
    plans: plansOf(asObject(document.info), specPath),
    schemas: { newPet: toJsonSchema(requestSchema) as JsonObject, pet: toJsonSchema(asObject(schemas.Pet)) as JsonObject },
    rawSchemas: { newPet: requestSchema },
    parameters: { listPets: parametersOf(byId.get('listPets')!.operation), getPet: parametersOf(byId.get('getPet')!.operation) },
    deprecation: deprecationOf(byId.get('getPet')!.operation, specPath),
    deprecatedOperations: [...byId.values()].filter((o) => o.operation.deprecated === true).map((o) => o.operationId),
    errorCodes: Array.isArray(errorCode.enum) ? errorCode.enum.map(String) : [],
  };
}

const cache = new Map<string, Promise<Contract>>();

/** The contract of the description at `specPath`, read once per path and process. */
export function loadContract(specPath: string = DEFAULT_SPEC_PATH): Promise<Contract> {
  let pending = cache.get(specPath);
  if (!pending) {
    pending = read(specPath);
    cache.set(specPath, pending);
    // A description that could not be read is read again next time (it may have been fixed).
    pending.catch(() => cache.delete(specPath));
  }
  return pending;
}
