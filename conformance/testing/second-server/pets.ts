// The pets: an in-memory store, the NewPet rules and the list query. No HTTP here; refusals are
// ApiErrors the HTTP layer turns into responses.
import { LIST_LIMIT, PET_STATUSES } from '../../../spec/rules/contract.js';
import { invalid } from './errors.ts';
import type { PetStatus, SeedPet } from './options.ts';

export interface Pet {
  id: number;
  name: string;
  categoryId: number;
  status: PetStatus;
}

export type NewPet = Omit<Pet, 'id'>;

export interface ListQuery {
  page: number;
  limit: number;
  status: PetStatus | undefined;
}

export interface Page {
  pets: Pet[];
  /** More pets match after this page. */
  more: boolean;
}

const FIELDS = new Set(['name', 'categoryId', 'status']);
const DEFAULT_STATUS: PetStatus = 'pending';

function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);

/** The problems of a parsed JSON body as a NewPet; none means it is one. Nothing is coerced. */
export function newPetProblems(body: unknown): string[] {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return [`The body must be a JSON object, not ${describe(body)}.`];
  const record = body as Record<string, unknown>;
  const problems = Object.keys(record)
    .filter((field) => !FIELDS.has(field))
    .map((field) => `Unknown field ${JSON.stringify(field)}: a pet has only name, categoryId and status, and its id is assigned by the server.`);
  if (!('name' in record)) problems.push('name is required.');
  else if (typeof record.name !== 'string' || record.name.length === 0)
    problems.push(`name must be a non-empty string, not ${describe(record.name)}${record.name === '' ? ' (empty)' : ''}.`);
  if (!('categoryId' in record)) problems.push('categoryId is required.');
  else if (typeof record.categoryId !== 'number' || !Number.isSafeInteger(record.categoryId)) {
    problems.push(
      `categoryId must be a JSON integer within ±(2^53 − 1), not ${typeof record.categoryId === 'number' ? String(record.categoryId) : describe(record.categoryId)}.`,
    );
  }
  if ('status' in record && !isPetStatus(record.status)) problems.push(`status must be one of ${PET_STATUSES.join(', ')}.`);
  return problems;
}

export function toNewPet(body: unknown): NewPet {
  const problems = newPetProblems(body);
  if (problems.length > 0) throw invalid(problems.join(' '));
  const { name, categoryId, status } = body as { name: string; categoryId: number; status?: PetStatus };
  // -0 is a safe integer; JSON has no way to say it back.
  return { name, categoryId: categoryId === 0 ? 0 : categoryId, status: status ?? DEFAULT_STATUS };
}

/** An integer written in decimal digits with an optional sign; null for anything else. */
function integerParam(value: string): number | null {
  return /^[+-]?[0-9]+$/.test(value) ? Number(value) : null;
}

export function parseListQuery(params: URLSearchParams): ListQuery {
  const rawLimit = params.get('limit');
  let limit: number = LIST_LIMIT.default;
  if (rawLimit !== null && rawLimit !== '') {
    const n = integerParam(rawLimit);
    if (n === null) throw invalid(`limit must be an integer, not ${JSON.stringify(rawLimit)}.`);
    limit = Math.min(LIST_LIMIT.maximum, Math.max(LIST_LIMIT.minimum, n));
  }
  const rawPage = params.get('page');
  let page = 1;
  if (rawPage !== null && rawPage !== '') {
    const n = integerParam(rawPage);
    if (n === null || n < 1) throw invalid(`page must be an integer of at least 1, not ${JSON.stringify(rawPage)}.`);
    page = n;
  }
  const rawStatus = params.get('status');
  if (rawStatus === null) return { page, limit, status: undefined };
  if (!isPetStatus(rawStatus)) throw invalid(`status must be one of ${PET_STATUSES.join(', ')}, not ${JSON.stringify(rawStatus)}.`);
  return { page, limit, status: rawStatus };
}

export class PetStore {
  /** Oldest first, so that adding is a push; listings walk it backwards, newest first. */
  #pets: Pet[] = [];
  #byId = new Map<number, Pet>();
  #lastId = 0;
  /** The racy build's gap between reading the next id and storing under it; none in the correct build. */
  readonly #raceGap: (() => Promise<void>) | undefined;

  constructor(seed: readonly SeedPet[], options: { raceGap?: () => Promise<void> } = {}) {
    this.#raceGap = options.raceGap;
    for (const pet of seed) {
      const problems = newPetProblems(pet);
      if (problems.length > 0) throw new TypeError(`seed pet ${JSON.stringify(pet)}: ${problems.join(' ')}`);
      this.add(toNewPet(pet));
    }
  }

  add(newPet: NewPet): Pet {
    return this.#store(++this.#lastId, newPet);
  }

  /** add, or in the racy build the next id read before a gap and used after it, whatever was stored meanwhile. */
  async create(newPet: NewPet): Promise<Pet> {
    if (!this.#raceGap) return this.add(newPet);
    const id = this.#lastId + 1;
    await this.#raceGap();
    this.#lastId = id;
    return this.#store(id, newPet);
  }

  /** Under `id`, replacing a pet already there: only the racy build ever stores twice under one id. */
  #store(id: number, newPet: NewPet): Pet {
    const pet: Pet = { id, name: newPet.name, categoryId: newPet.categoryId, status: newPet.status };
    const at = this.#byId.has(id) ? this.#pets.findIndex((p) => p.id === id) : -1;
    if (at < 0) this.#pets.push(pet);
    else this.#pets[at] = pet;
    this.#byId.set(id, pet);
    return { ...pet };
  }

  get(id: number): Pet | undefined {
    const pet = this.#byId.get(id);
    return pet && { ...pet };
  }

  list({ page, limit, status }: ListQuery): Page {
    const skip = (page - 1) * limit;
    const pets: Pet[] = [];
    let seen = 0;
    for (let i = this.#pets.length - 1; i >= 0; i--) {
      const pet = this.#pets[i]!;
      if (status !== undefined && pet.status !== status) continue;
      if (seen++ < skip) continue;
      if (pets.length === limit) return { pets, more: true };
      pets.push({ ...pet });
    }
    return { pets, more: false };
  }
}
