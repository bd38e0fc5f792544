import { readFileSync } from 'node:fs';
import Joi from 'joi';
import { contract } from './contract.ts';
import type { ApiKeyRecord } from './keys.ts';
import type { Pet } from './types.ts';

export const FIXTURES_DIR = new URL('../fixtures/', import.meta.url);

export const petsSchema = Joi.array()
  .items(
    Joi.object({
      id: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
      name: Joi.string().min(1).required(),
      categoryId: Joi.number().integer().min(1).max(Number.MAX_SAFE_INTEGER).required(),
      status: Joi.string()
        .valid(...contract.petStatuses)
        .required(),
    }),
  )
  .unique('id');

function readJson(name: string): unknown {
  return JSON.parse(readFileSync(new URL(name, FIXTURES_DIR), 'utf8'));
}

export function fixtureApiKeys(): ApiKeyRecord[] {
  return readJson('api-keys.json') as ApiKeyRecord[];
}

export function fixturePets(): Pet[] {
  return Joi.attempt(readJson('pets.json'), petsSchema) as Pet[];
}
