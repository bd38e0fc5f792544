// spec/contract-types.ts, written by `npm run generate`: the description's pet schemas as TypeScript
// types, with the types of the facts that are not schemas (a plan's limits, the operation ids), so
// that the server and the kit type their data from the contract instead of restating it. Only the
// schema keywords the description uses are translated; any other is an error here, never a type
// that silently says less than the schema.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { DEFAULT_SPEC_PATH, type JsonObject } from '../lib/openapi.ts';
import { contractFacts, ContractFactError } from './contract-facts.ts';

type Json = JsonObject[string];

/** The schemas the code types its data with, in the order they are declared. */
export const TYPED_SCHEMAS = ['PetStatus', 'NewPet', 'Pet'] as const;

const REF = '#/components/schemas/';
/** Keywords that constrain values but not their TypeScript type (ajv enforces them). */
const VALUE_ONLY = new Set(['description', 'example', 'format', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'default']);

function fail(where: string, message: string): never {
  throw new ContractFactError(`${where}: ${message}`);
}

function asObject(value: Json | undefined, where: string): JsonObject {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value;
  return fail(where, 'is not a schema object');
}

/** The first clause of a description, for a one-line JSDoc. */
function summary(schema: JsonObject): string | undefined {
  if (typeof schema.description !== 'string') return undefined;
  return schema.description
    .replace(/\s+/g, ' ')
    .split(/(?<=[.;]) /)[0]!
    .replace(/;$/, '')
    .trim();
}

function checkKeywords(schema: JsonObject, where: string, allowed: readonly string[]): void {
  for (const key of Object.keys(schema)) {
    if (!key.startsWith('x-') && !VALUE_ONLY.has(key) && !allowed.includes(key)) fail(where, `the keyword "${key}" has no translation to a type`);
  }
}

/** The type of a schema used inside another: a reference by name, an enumeration, a scalar. */
function typeOf(value: Json | undefined, where: string): string {
  const schema = asObject(value, where);
  if (typeof schema.$ref === 'string') {
    if (!schema.$ref.startsWith(REF)) fail(where, `only ${REF}… references are translated`);
    return schema.$ref.slice(REF.length);
  }
  checkKeywords(schema, where, ['type', 'enum']);
  if (Array.isArray(schema.enum)) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return fail(where, `the type ${JSON.stringify(schema.type)} is not translated`);
  }
}

function members(schema: JsonObject, where: string): string[] {
  checkKeywords(schema, where, ['type', 'properties', 'required']);
  if (schema.type !== 'object') fail(where, 'is not an object schema');
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.entries(asObject(schema.properties, `${where}.properties`)).map(([name, property]) => {
    const doc = summary(asObject(property, `${where}.${name}`));
    return `${doc ? `  /** ${doc} */\n` : ''}  ${name}${required.has(name) ? '' : '?'}: ${typeOf(property, `${where}.${name}`)};`;
  });
}

/** One named schema as a declaration: an interface for an object (extending the schemas it is allOf), else a type alias. */
function declaration(name: string, value: Json | undefined): string {
  const where = `components.schemas.${name}`;
  const schema = asObject(value, where);
  const doc = `/** ${where}${summary(schema) ? `: ${summary(schema)}` : ''} */\n`;
  if (Array.isArray(schema.allOf)) {
    checkKeywords(schema, where, ['allOf']);
    const bases = schema.allOf.filter((part) => typeof asObject(part, where).$ref === 'string').map((part, i) => typeOf(part, `${where}.allOf[${i}]`));
    const own = schema.allOf
      .filter((part) => typeof asObject(part, where).$ref !== 'string')
      .flatMap((part, i) => members(asObject(part, where), `${where}.allOf[${i}]`));
    return `${doc}export interface ${name}${bases.length ? ` extends ${bases.join(', ')}` : ''} {\n${own.join('\n')}\n}\n`;
  }
  if (schema.type === 'object') return `${doc}export interface ${name} {\n${members(schema, where).join('\n')}\n}\n`;
  return `${doc}export type ${name} = ${typeOf(schema, where)};\n`;
}

/** spec/contract-types.ts from a parsed description. */
export function contractTypesModule(document: JsonObject = parseYaml(readFileSync(DEFAULT_SPEC_PATH, 'utf8')) as JsonObject): string {
  const schemas = asObject(asObject(document.components, 'components').schemas, 'components.schemas');
  const facts = contractFacts(document);
  const limitNames = [...new Set(Object.values(facts.planLimits).flatMap((limits) => Object.keys(limits)))];
  const union = (values: readonly string[]) => values.map((v) => JSON.stringify(v)).join(' | ');
  return [
    '// Generated by `npm run generate` from spec/openapi.yaml: do not edit. The types of the contract:',
    '// its pet schemas, and the shapes of facts that spec/rules/contract.js holds as values.',
    '',
    ...TYPED_SCHEMAS.map((name) => declaration(name, schemas[name])),
    '/** info.x-rate-limits: requests per minute and per day of a plan with fixed limits */',
    `export interface PlanLimits {\n${limitNames.map((n) => `  readonly ${n}: number;`).join('\n')}\n}\n`,
    '/** The operationId of every operation */',
    `export type OperationId = ${union(Object.keys(facts.operations))};\n`,
    "/** x-refusal-codes: the reference server's Error codes on a 429 */",
    `export type RefusalCode = ${Object.keys(facts.refusalCodes).length ? union(Object.keys(facts.refusalCodes)) : 'never'};\n`,
  ].join('\n');
}
