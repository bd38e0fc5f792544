// Generated file stores in the reference server's format:
// `{ "nextId": <int>, "pets": [ { "id", "name", "categoryId", "status" }, ... ] }`, the same pets
// as a JSON array (PostgreSQL's `--seed`, json-server), and the check of a store read back after
// SIGKILL.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PET_STATUSES } from '../spec/rules/contract.js';

export interface StoredPet {
  id: number;
  name: string;
  categoryId: number;
  status: (typeof PET_STATUSES)[number];
}

const NAMES = ['Biscuit', 'Luna', 'Rocky', 'Pepper', 'Kiwi', 'Shadow', 'Hazel', 'Clover', 'Maple', 'Juniper'];

/** Deterministic, so that two runs serve the same bytes. */
export function generatedPet(id: number): StoredPet {
  return {
    id,
    name: NAMES[(id - 1) % NAMES.length]!,
    categoryId: 1 + ((id - 1) % 5),
    status: PET_STATUSES[(id - 1) % PET_STATUSES.length]!,
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

/** The same pets as a plain JSON array. */
export function petArrayJson(count: number): string {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`pet count must be a whole number >= 0, got ${count}`);
  const pets: string[] = new Array(count);
  for (let i = 0; i < count; i++) pets[i] = JSON.stringify(generatedPet(i + 1));
  return `[\n${pets.join(',\n')}\n]\n`;
}

export async function writePetArray(path: string, count: number): Promise<void> {
  await writeFile(path, petArrayJson(count));
}

/** Reads back how many pets a store file holds; throws if the file is not a whole store. */
/** One file per size in `dir`, written by `write` (`<prefix>-<size>.json`): size to path. */
export async function writeStores(
  dir: string,
  sizes: Iterable<number>,
  prefix: string,
  write: (path: string, count: number) => Promise<void>,
): Promise<Map<number, string>> {
  const paths = new Map<number, string>();
  for (const size of sizes) {
    const path = join(dir, `${prefix}-${size}.json`);
    await write(path, size);
    paths.set(size, path);
  }
  return paths;
}

export function countStoredPets(json: string): number {
  return storedIds(json).length;
}

/** The ids of the pets a store file holds, in file order; throws if the file is not a whole store. */
export function storedIds(json: string): number[] {
  const parsed = JSON.parse(json) as { nextId?: unknown; pets?: unknown };
  if (!Array.isArray(parsed.pets) || typeof parsed.nextId !== 'number') throw new Error('not a pet store: expected { nextId, pets }');
  return (parsed.pets as Array<{ id: number }>).map((p) => p.id);
}

/** A create round's store, read back after SIGKILL. */
export interface Durability {
  /** Pets in the store when the round started (ids 1..before). */
  before: number;
  /** 201 responses received (warm-up and measured). */
  acknowledged: number;
  /** Pets found after SIGKILL. */
  after: number;
  /** Acknowledged creates, and pets of the original store, not found. */
  missing: number;
  /** Ids stored, or acknowledged, more than once. */
  duplicated: number;
  /** Pets stored but never acknowledged: creates in flight when the load stopped. */
  unacknowledged: number;
  /** Whether the acknowledged ids were read from the 201 bodies (else only counts are compared). */
  idsChecked: boolean;
  ok: boolean;
  /** What went wrong, for the round's void reason. */
  problem?: string | undefined;
}

/**
 * Pets stored without an acknowledgement can only be creates in flight when the load stopped, hence
 * at most `inFlightBound`. A store that cannot be read back (`storedIds` an Error) proves nothing.
 */
export function checkDurability(input: {
  before: number;
  acknowledged: number;
  acknowledgedIds: readonly number[] | undefined;
  storedIds: readonly number[] | Error;
  inFlightBound: number;
}): Durability {
  if (input.storedIds instanceof Error) {
    const { before, acknowledged } = input;
    return {
      before,
      acknowledged,
      after: -1,
      missing: acknowledged,
      duplicated: 0,
      unacknowledged: 0,
      idsChecked: false,
      ok: false,
      problem: `store unreadable after SIGKILL: ${input.storedIds.message}`,
    };
  }
  const stored = new Set(input.storedIds);
  let duplicated = input.storedIds.length - stored.size;
  let originalsMissing = 0;
  for (let id = 1; id <= input.before; id++) if (!stored.has(id)) originalsMissing++;
  const ids = input.acknowledgedIds;
  let missing: number;
  if (ids) {
    const acked = new Set(ids);
    duplicated += ids.length - acked.size;
    missing = originalsMissing;
    for (const id of acked) if (!stored.has(id)) missing++;
  } else {
    // Counts only: whatever is short of the original pets and every acknowledged create.
    missing = Math.max(originalsMissing, input.before + input.acknowledged - stored.size);
  }
  const unacknowledged = Math.max(0, stored.size - input.before - (input.acknowledged - missing));
  const problems: string[] = [];
  if (missing) problems.push(`${missing} acknowledged or original pets missing after SIGKILL`);
  if (duplicated) problems.push(`${duplicated} ids stored or acknowledged twice`);
  if (unacknowledged > input.inFlightBound)
    problems.push(`${unacknowledged} pets stored without an acknowledgement, more than the ${input.inFlightBound} creates that can be in flight`);
  return {
    before: input.before,
    acknowledged: input.acknowledged,
    after: input.storedIds.length,
    missing,
    duplicated,
    unacknowledged,
    idsChecked: ids !== undefined,
    ok: problems.length === 0,
    problem: problems.length ? problems.join('; ') : undefined,
  };
}
