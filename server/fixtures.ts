// The fixtures a server starts with unless told otherwise, and the checks any key list or seed
// (the fixtures, a file given on the command line, an option) must pass against the contract.
import type { ValidateFunction } from 'ajv';
import { readFileSync } from 'node:fs';
import { UsageError } from '../lib/errors.ts';
import { createAjv } from '../lib/openapi.ts';
import type { Contract } from './contract.ts';
import type { ApiKeyRecord } from './keys.ts';
import type { Pet } from './types.ts';

export const FIXTURES_DIR = new URL('../fixtures/', import.meta.url);

/** A JSON file's content; a file that cannot be read or parsed is a UsageError naming it. */
export function readJsonFile(path: string | URL, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${what} ${String(path)} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} ${String(path)} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

export function fixtureApiKeys(): ApiKeyRecord[] {
  return readJsonFile(new URL('api-keys.json', FIXTURES_DIR), 'The API key file') as ApiKeyRecord[];
}

export function fixturePets(): Pet[] {
  return readJsonFile(new URL('pets.json', FIXTURES_DIR), 'The seed file') as Pet[];
}

/** A seed pet's schema compiled once per contract: a process may build many servers on one. */
const seedValidators = new WeakMap<Contract, ValidateFunction>();

/**
 * Seed pets as the contract describes a Pet, each with a status (the store keeps one for every pet),
 * ids unique. Returns them unchanged; throws a UsageError naming the first bad entry.
 */
export function checkSeedPets(pets: readonly unknown[], contract: Contract): Pet[] {
  let valid = seedValidators.get(contract);
  if (!valid) {
    valid = createAjv({ allErrors: false }).compile({ allOf: [contract.schemas.pet, { required: ['status'] }] });
    seedValidators.set(contract, valid);
  }
  const seen = new Set<unknown>();
  pets.forEach((pet, index) => {
    if (!valid(pet)) {
      const e = valid.errors?.[0];
      throw new UsageError(`Invalid seed pets: [${index}]${e?.instancePath ?? ''} ${e?.message ?? 'is invalid'}`);
    }
    const id = (pet as Pet).id;
    if (seen.has(id)) throw new UsageError(`Invalid seed pets: [${index}] repeats id ${id}`);
    seen.add(id);
  });
  return pets as Pet[];
}
