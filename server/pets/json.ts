// The JSON of pets: a stored pet never changes, so its text is made once and a page is those texts
// joined, with no JSON.stringify per list (npm run bench, profile). Text, not bytes: joining strings costs
// a fraction of Buffer.concat, and Node writes a string body in one piece with the response head.
import type { Pet } from '../types.ts';

const texts = new WeakMap<Pet, string>();

/** A pet's JSON, made once per pet object. */
export function petJson(pet: Pet): string {
  let text = texts.get(pet);
  if (text === undefined) {
    text = JSON.stringify(pet);
    texts.set(pet, text);
  }
  return text;
}

export const JSON_TYPE = 'application/json; charset=utf-8';

/** A page: the pets' JSON joined into a JSON array. */
export function petsJson(pets: readonly Pet[]): string {
  let text = '[';
  for (let i = 0; i < pets.length; i++) text += (i > 0 ? ',' : '') + petJson(pets[i]!);
  return text + ']';
}
