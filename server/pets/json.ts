// The JSON of pets. A stored pet never changes (ids only grow, nothing edits a pet), so its JSON
// text is made once and kept beside it; a page is those texts joined. Answering a list then costs
// no JSON.stringify of the page (npm run bench, profile). Text rather than bytes: joining strings
// costs a fraction of Buffer.concat over 41 small buffers, and Node writes a string body in one
// piece with the response head, where a Buffer body is a second chunk of a writev.
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
