// spec/contract-types.ts is what the description's schemas say (scripts/generate.test.ts holds the
// file current): required properties are required, a reference is the named type, and a keyword
// the generator cannot translate is refused rather than dropped.
import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import type { JsonObject } from '../lib/openapi.ts';
import { contractTypesModule } from './schema-types.ts';

type Described = JsonObject & { components: { schemas: Record<string, JsonObject>; responses: Record<string, JsonObject> } };
const described = () => parse(readFileSync(new URL('openapi.yaml', import.meta.url), 'utf8')) as Described;

test('the types follow the schemas: the enum, required and optional properties, allOf as extends', () => {
  const text = contractTypesModule(described());
  assert.match(text, /export type PetStatus = "available" \| "pending" \| "sold";/);
  assert.match(text, /export interface NewPet \{[^}]*\n {2}name: string;[^}]*\n {2}categoryId: number;[^}]*\n {2}status\?: PetStatus;\n\}/);
  assert.match(text, /export interface Pet extends NewPet \{[^}]*\n {2}id: number;\n\}/);
  assert.match(text, /export type OperationId = "listPets" \| "createPet" \| "getPet";/);
  assert.match(text, /export interface PlanLimits \{\n {2}readonly perMinute: number;\n {2}readonly perDay: number;\n\}/);
});

test('a change of the description changes the types', () => {
  const document = described();
  const newPet = document.components.schemas.NewPet as { required: string[] };
  newPet.required.push('status');
  (document.components.schemas.PetStatus as { enum: string[] }).enum.push('adopted');
  const text = contractTypesModule(document);
  assert.match(text, /\n {2}status: PetStatus;/);
  assert.match(text, /"sold" \| "adopted"/);
});

test('a keyword with no translation to a type is refused, naming where it is', () => {
  const document = described();
  (document.components.schemas.NewPet as { additionalProperties?: boolean }).additionalProperties = false;
  assert.throws(() => contractTypesModule(document), /components\.schemas\.NewPet: the keyword "additionalProperties"/);
});

test('a description without x-refusal-codes gets no refusal codes', () => {
  const document = described();
  delete document.components.responses.TooManyRequests!['x-refusal-codes'];
  assert.match(contractTypesModule(document), /export type RefusalCode = never;/);
});

test.run();
