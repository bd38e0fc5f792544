// Generated file stores in the reference server's format:
// `{ "nextId": <int>, "pets": [ { "id", "name", "categoryId", "status" }, ... ] }`.
import { writeFile } from 'node:fs/promises';

export interface StoredPet {
  id: number;
  name: string;
  categoryId: number;
  status: 'available' | 'pending' | 'sold';
}

const NAMES = ['Biscuit', 'Luna', 'Rocky', 'Pepper', 'Kiwi', 'Shadow', 'Hazel', 'Clover', 'Maple', 'Juniper'];
const STATUSES = ['available', 'pending', 'sold'] as const;

/** Deterministic, so that two runs serve the same bytes. */
export function generatedPet(id: number): StoredPet {
  return {
    id,
    name: NAMES[(id - 1) % NAMES.length]!,
    categoryId: 1 + ((id - 1) % 5),
    status: STATUSES[(id - 1) % STATUSES.length]!,
  };
}

export function petStoreJson(count: number): string {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`pet count must be a whole number >= 0, got ${count}`);
  const pets: string[] = new Array(count);
  for (let i = 0; i < count; i++) pets[i] = JSON.stringify(generatedPet(i + 1));
  return `{"nextId":${count + 1},"pets":[\n${pets.join(',\n')}\n]}\n`;
}

export async function writePetStore(path: string, count: number): Promise<void> {
  await writeFile(path, petStoreJson(count));
}

/** Reads back how many pets a store file holds; throws if the file is not a whole store. */
export function countStoredPets(json: string): number {
  const parsed = JSON.parse(json) as { nextId?: unknown; pets?: unknown };
  if (!Array.isArray(parsed.pets) || typeof parsed.nextId !== 'number') throw new Error('not a pet store: expected { nextId, pets }');
  return parsed.pets.length;
}
