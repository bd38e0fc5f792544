// What the server enforces that the contract states, read from the OpenAPI description when a
// server is built: validation schemas, the statuses, the list bounds, the plans and their limits,
// getPet's deprecation. Nothing here restates the contract; change the description and the server
// follows (contract.test.ts proves it with a modified copy).
import { asObject, DEFAULT_SPEC_PATH, InvalidContractError, loadDocument, operations, toJsonSchema, type Json, type JsonObject } from '../lib/openapi.ts';
import { contractFacts, ContractFactError, type ContractFacts } from '../spec/contract-facts.ts';
import { LOWER_HEADERS, OPERATIONS } from '../spec/rules/contract.js';
import type { OperationId } from '../spec/contract-types.ts';
import type { PlanLimits } from './types.ts';

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

/** A response an operation documents, as Prism's `Prefer: code=` and `example=` answer it (plugins/faults.ts). */
export interface DocumentedResponse {
  status: number;
  /** Its JSON examples: the lone `example` (no name) or each of `examples` by name, in document order. */
  examples: Array<{ name?: string; value: Json }>;
  /** Examples of the headers it documents that the server does not set itself (WWW-Authenticate, Location). */
  headers: Record<string, string>;
}

/** A plan of info.x-rate-limits: its fixed limits, or 'custom' when each key carries its own. */
export type Plan = PlanLimits | 'custom';

export interface Contract {
  specPath: string;
  /** The path every server URL ends with: /v1. */
  basePath: string;
  apiVersion: string;
  petStatuses: readonly string[];
  /** info.x-rate-limits.plans: limits per plan; 'custom' plans carry their limits per key. */
  plans: Readonly<Record<string, Plan>>;
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
  /** Each operation's documented responses with a status of their own (not `default`). */
  responses: Readonly<Record<OperationId, readonly DocumentedResponse[]>>;
}

/** Headers whose value the server always computes: an example of them would say something false. */
const COMPUTED_HEADERS = new Set<string>([
  LOWER_HEADERS.rateLimitLimit,
  LOWER_HEADERS.rateLimitRemaining,
  LOWER_HEADERS.rateLimitReset,
  LOWER_HEADERS.retryAfter,
  LOWER_HEADERS.link,
  LOWER_HEADERS.deprecation,
  LOWER_HEADERS.sunset,
]);

function documentedResponses(operation: JsonObject): DocumentedResponse[] {
  return Object.entries(asObject(operation.responses))
    .filter(([status]) => /^[1-5]\d\d$/.test(status))
    .map(([status, response]) => {
      const json = asObject(asObject(asObject(response).content)['application/json']);
      const named = Object.entries(asObject(json.examples)).map(([name, example]) => ({ name, value: asObject(example).value ?? null }));
      const headers: Record<string, string> = {};
      for (const [name, header] of Object.entries(asObject(asObject(response).headers))) {
        const example = asObject(header).example;
        if (example !== undefined && !COMPUTED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = String(example);
      }
      return { status: Number(status), examples: json.example !== undefined ? [{ value: json.example }, ...named] : named, headers };
    });
}

function parametersOf(operation: JsonObject): ParameterContract[] {
  const list = Array.isArray(operation.parameters) ? operation.parameters.map(asObject) : [];
  return list.map((p) => ({
    name: String(p.name),
    in: p.in === 'path' ? 'path' : 'query',
    required: p.required === true,
    schema: toJsonSchema(asObject(p.schema)) as JsonObject,
  }));
}

/** The facts (spec/contract-facts.ts, the one reader of them), with the description's path in any error. */
function factsOf(raw: JsonObject, specPath: string): ContractFacts {
  try {
    return contractFacts(raw);
  } catch (error) {
    if (error instanceof ContractFactError) throw new InvalidContractError(specPath, error.message, { cause: error });
    throw error;
  }
}

async function read(specPath: string): Promise<Contract> {
  const { raw, document } = await loadDocument(specPath);
  const facts = factsOf(raw, specPath);
  const byId = new Map(operations(document).map((o) => [o.operationId, o]));
  for (const id of Object.keys(OPERATIONS) as OperationId[]) if (!byId.has(id)) throw new InvalidContractError(specPath, `operation ${id} is not described`);
  const getPet = facts.deprecations.getPet;
  if (!getPet || Number.isNaN(Date.parse(getPet.since)) || Number.isNaN(Date.parse(getPet.sunset))) {
    throw new InvalidContractError(specPath, 'getPet must be deprecated with x-deprecation { since, sunset, successor } as ISO 8601 instants');
  }
  const schemas = asObject(asObject(document.components).schemas);
  const requestSchema = asObject(asObject(asObject(asObject(byId.get('createPet')!.operation.requestBody).content)['application/json']).schema);
  const errorCode = asObject(asObject(asObject(schemas.Error).properties).code);
  const plans: Record<string, Plan> = { ...facts.planLimits };
  for (const plan of facts.customPlans) plans[plan] = 'custom';
  return {
    specPath,
    basePath: facts.basePath,
    apiVersion: facts.apiVersion,
    petStatuses: facts.petStatuses,
    plans,
    schemas: { newPet: toJsonSchema(requestSchema) as JsonObject, pet: toJsonSchema(asObject(schemas.Pet)) as JsonObject },
    rawSchemas: { newPet: requestSchema },
    parameters: { listPets: parametersOf(byId.get('listPets')!.operation), getPet: parametersOf(byId.get('getPet')!.operation) },
    deprecation: { since: getPet.since, sunset: getPet.sunset, successor: getPet.successor },
    deprecatedOperations: Object.keys(facts.deprecations),
    errorCodes: Array.isArray(errorCode.enum) ? errorCode.enum.map(String) : [],
    responses: Object.fromEntries((Object.keys(OPERATIONS) as OperationId[]).map((id) => [id, documentedResponses(byId.get(id)!.operation)])) as Record<
      OperationId,
      DocumentedResponse[]
    >,
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
