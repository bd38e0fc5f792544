// The ids a store may hand out, the same for every store. JSON clients in JavaScript read a number
// into a double: past 2^53 - 1 two ids may read as one (9007199254740993 arrives as ...992), and the
// store's own counter stops counting (nextId++ on 2^53 gives 2^53 again). So the last id is the
// largest integer a double holds exactly, and a create past it is refused, never given a repeated id.
import { KitError, UsageError } from '../../lib/errors.ts';
import type { Pet } from '../types.ts';

/** The last id any store hands out: 2^53 - 1. */
export const LAST_ID = Number.MAX_SAFE_INTEGER;

/**
 * The counter of a store that has handed out LAST_ID: 2^53, which a double still holds exactly, so a
 * counter may reach it and say "none left" without anything beyond it ever being computed.
 */
export const SPENT = LAST_ID + 1;

/** Whether `value` is an id: an integer from 1 to LAST_ID. */
export function isId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= LAST_ID;
}

/** Whether `value` can be a store's next id: an id, or SPENT once every id was handed out. */
export function isNextId(value: unknown): value is number {
  return isId(value) || value === SPENT;
}

/** Every id up to LAST_ID was handed out: a create is refused, and nothing is stored. */
export class IdSpaceExhaustedError extends KitError {
  constructor() {
    super('id_space_exhausted', `No pet can be created: every id up to ${LAST_ID} has been given out. Nothing was created.`);
  }
}

/** What a store logs, once, when it hands out LAST_ID or first refuses a create for want of an id. */
export const ID_SPACE_SPENT = `Every id up to ${LAST_ID} has been handed out: creates are refused (id_space_exhausted) from now on, reads go on. Move the pets to a new store to take more.`;

/** Refuses pets a store is given to keep (a seed, an admin reset) whose ids lie outside the id space or repeat. */
export function checkPetIds(pets: readonly Pet[], what: string): void {
  const seen = new Set<number>();
  for (const [index, pet] of pets.entries()) {
    if (!isId(pet.id)) throw new UsageError(`${what}: [${index}] has id ${String(pet.id)}, outside the ids a store hands out (1 to ${LAST_ID}).`);
    if (seen.has(pet.id)) throw new UsageError(`${what}: [${index}] repeats id ${pet.id}.`);
    seen.add(pet.id);
  }
}
