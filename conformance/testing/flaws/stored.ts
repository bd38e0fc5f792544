// Flaws in what a store keeps: a create that lets the client choose the id (and so overwrite a
// pet), one that keeps whatever properties it was sent, one that coerces a numeric string.
import type { Flaw } from './flaw.ts';
import type { ProxyRequest, ProxyResponse } from './proxy.ts';
import { mapJson, operationOf, remembered } from './rewrite.ts';

type Pet = Record<string, unknown>;

function sentBody(req: ProxyRequest): Pet | undefined {
  try {
    const body = JSON.parse(req.body) as unknown;
    return body && typeof body === 'object' && !Array.isArray(body) ? (body as Pet) : undefined;
  } catch {
    return undefined;
  }
}

/** The pets the flaw keeps in place of the implementation's, by id. */
function kept(memory: Map<string, unknown>): Map<number, Pet> {
  return remembered(memory, 'pets', () => new Map<number, Pet>());
}

/** Replaces, in a Pet or Pets body, every pet the flaw keeps; a getPet of a kept id answers it. */
function serveKept(res: ProxyResponse, req: ProxyRequest, pets: Map<number, Pet>): ProxyResponse {
  const op = operationOf(req);
  if (op === 'getPet') {
    const pet = pets.get(Number(req.url.split('?')[0]!.split('/').pop()));
    return pet ? { ...res, status: 200, headers: { ...res.headers, 'content-type': 'application/json' }, body: JSON.stringify(pet) } : res;
  }
  if (op !== 'listPets' || res.status !== 200) return res;
  return mapJson(res, (body) => (Array.isArray(body) ? body.map((p: Pet) => pets.get(Number(p.id)) ?? p) : body));
}

export const STORED_FLAWS: readonly Flaw[] = [
  {
    id: 'client-id-overwrites',
    area: 'persistence',
    description: 'A create that carries an id keeps it: the client chooses the id, and an existing pet is overwritten',
    caughtBy: 'create.server-assigns-id',
    response: (res, req, { memory }) => {
      const pets = kept(memory);
      const clientId = req.headers['x-flaw-client-id'];
      if (clientId !== undefined && res.status === 201) {
        const pet = { ...(JSON.parse(res.body) as Pet), id: Number(clientId) };
        pets.set(pet.id, pet);
        return { ...res, body: JSON.stringify(pet) };
      }
      return serveKept(res, req, pets);
    },
    // The implementation may refuse the id it is sent: the flaw takes it out, and puts it back.
    request: (req) => {
      const sent = operationOf(req) === 'createPet' ? sentBody(req) : undefined;
      if (!sent || typeof sent.id !== 'number') return req;
      const { id: _id, ...rest } = sent;
      return { ...req, body: JSON.stringify(rest), headers: { ...req.headers, 'x-flaw-client-id': String(sent.id) } };
    },
  },
  {
    id: 'stores-extra-properties',
    area: 'persistence',
    description: 'A create keeps every property it is sent, also those Pet does not have',
    caughtBy: 'create.no-extra-properties',
    request: (req) => {
      const sent = operationOf(req) === 'createPet' ? sentBody(req) : undefined;
      if (!sent) return req;
      const { name, categoryId, status } = sent;
      const extra = Object.keys(sent).filter((k) => !['id', 'name', 'categoryId', 'status'].includes(k));
      if (extra.length === 0) return req;
      // The implementation may refuse unknown fields: it gets the described ones only.
      return {
        ...req,
        body: JSON.stringify({ name, categoryId, ...(status === undefined ? {} : { status }) }),
        headers: { ...req.headers, 'x-flaw-extra': req.body },
      };
    },
    response: (res, req, { memory }) => {
      const pets = kept(memory);
      const extra = req.headers['x-flaw-extra'];
      if (extra && res.status === 201) {
        const pet = { ...(JSON.parse(res.body) as Pet), ...(JSON.parse(extra) as Pet) };
        pet.id = (JSON.parse(res.body) as Pet).id;
        pets.set(Number(pet.id), pet);
        return { ...res, body: JSON.stringify(pet) };
      }
      return serveKept(res, req, pets);
    },
  },
  {
    id: 'location-wrong-pet',
    area: 'persistence',
    description: "The 201's Location names another pet than the one created (the previous id)",
    caughtBy: 'create.location',
    response: (res, req) => {
      const location = res.headers.location;
      if (operationOf(req) !== 'createPet' || res.status !== 201 || !location) return res;
      return { ...res, headers: { ...res.headers, location: location.replace(/(\d+)(\/?)$/, (_, id: string, slash: string) => `${Number(id) - 1}${slash}`) } };
    },
  },
  {
    id: 'categoryid-coerced',
    area: 'types',
    description: 'A numeric string categoryId ("3") is coerced to a number and the pet created',
    caughtBy: 'create.400-invalid',
    request: (req) => {
      const sent = operationOf(req) === 'createPet' ? sentBody(req) : undefined;
      if (!sent || typeof sent.categoryId !== 'string' || !/^\d+$/.test(sent.categoryId)) return req;
      return { ...req, body: JSON.stringify({ ...sent, categoryId: Number(sent.categoryId) }) };
    },
  },
];
