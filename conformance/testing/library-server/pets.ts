// The pets: an in-memory store, createPet's body rules and listPets' query (offset paging).
import { LIST_LIMIT, PET_STATUSES } from '../../../spec/rules/contract.js';
import { badRequest } from './errors.ts';
import type { PetStatus, SeedPet } from './options.ts';

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export interface ListQuery {
  limit: number;
  offset: number;
  status: PetStatus | undefined;
}

/** The status a pet gets when createPet's body names none. */
export const DEFAULT_STATUS: PetStatus = 'available';

const isStatus = (value: unknown): value is PetStatus => (PET_STATUSES as readonly unknown[]).includes(value);

export class PetStore {
  #pets = new Map<number, Pet>();
  #nextId = 1;

  constructor(seed: readonly SeedPet[]) {
    for (const pet of seed) this.add(pet);
  }

  add(pet: SeedPet): Pet {
    const stored: Pet = { id: this.#nextId++, name: pet.name, categoryId: pet.categoryId, status: pet.status ?? DEFAULT_STATUS };
    this.#pets.set(stored.id, stored);
    return stored;
  }

  get(id: number): Pet | undefined {
    return this.#pets.get(id);
  }

  /** One page in ascending id order, and whether more pets match after it. */
  list(query: ListQuery): { pets: Pet[]; more: boolean } {
    const matching = [...this.#pets.values()].filter((p) => query.status === undefined || p.status === query.status);
    return { pets: matching.slice(query.offset, query.offset + query.limit), more: matching.length > query.offset + query.limit };
  }
}

type Query = Record<string, unknown>;

function integerParam(query: Query, name: string, fallback: number, min: number, max: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  if (typeof raw !== 'string' || !/^[0-9]{1,9}$/.test(raw)) throw badRequest(`${name} must be an integer from ${min} to ${max}.`);
  const value = Number(raw);
  if (value < min || value > max) throw badRequest(`${name} must be an integer from ${min} to ${max}.`);
  return value;
}

export function parseListQuery(query: Query): ListQuery {
  const status = query.status;
  if (status !== undefined && !isStatus(status)) throw badRequest(`status must be one of ${PET_STATUSES.join(', ')}.`);
  return {
    limit: integerParam(query, 'limit', LIST_LIMIT.default, LIST_LIMIT.minimum, LIST_LIMIT.maximum),
    offset: integerParam(query, 'offset', 0, 0, 999_999_999),
    status,
  };
}

/** NewPet from a parsed JSON body: name and categoryId required, status optional; other properties are dropped. */
export function toNewPet(body: unknown): SeedPet {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw badRequest('The body must be a JSON object (NewPet).');
  const { name, categoryId, status } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '') problems.push('name must be a non-empty string');
  if (typeof categoryId !== 'number' || !Number.isSafeInteger(categoryId) || categoryId < 1) problems.push('categoryId must be a positive integer');
  if (status !== undefined && !isStatus(status)) problems.push(`status must be one of ${PET_STATUSES.join(', ')}`);
  if (problems.length > 0) throw badRequest(`${problems.join('; ')}.`);
  return { name: name as string, categoryId: categoryId as number, ...(status === undefined ? {} : { status: status as PetStatus }) };
}
