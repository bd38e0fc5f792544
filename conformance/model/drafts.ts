// The kinds of step a program draws, one function each: creates, lists, gets and other methods, from
// the cases the description's schemas give (generate/cases.ts) dealt from seeded decks, and the
// credentials a step is sent with. generate.ts arranges them into rounds; nothing here knows a round.
import type { Json } from '../../lib/openapi.ts';
import { PET_STATUSES } from '../../spec/rules/contract.js';
import type { Contract, Operation } from '../../judge/contract.ts';
import { baseBody, bodyCases, parameterCases, successStatuses, type Case } from '../generate/cases.ts';
import { SPELLINGS, type Credentials, type KeyRole, type Step } from './program.ts';

/** A small fast generator of 32-bit values (mulberry32): the program depends on the seed alone. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Draw = () => number;
export const pick = <T>(draw: Draw, items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;
export const between = (draw: Draw, min: number, max: number): number => min + Math.floor(draw() * (max - min + 1));

/** What a kind of step may be: its request and expectation, before it is given a client and credentials. */
export type Drafted = Pick<Step, 'request' | 'expect' | 'label'>;

export const STATUSES = PET_STATUSES;

/** The inputs the program draws from, read once off the description. */
export interface Domain {
  create: Operation;
  list: Operation;
  get: Operation;
  bodies: Case[];
  listCases: Case[];
  getCases: Case[];
  base: Record<string, Json>;
  /**
   * The next case of a kind, dealt from a deck shuffled by the seed and shuffled again when it runs
   * out: every case of the description comes before any comes twice.
   */
  deal: (draw: Draw, kind: 'bodies' | 'listCases' | 'getCases') => Case;
}

function dealer(cases: Record<'bodies' | 'listCases' | 'getCases', Case[]>): Domain['deal'] {
  const decks: Partial<Record<keyof typeof cases, Case[]>> = {};
  return (draw, kind) => {
    let deck = decks[kind];
    if (!deck || deck.length === 0) {
      deck = [...cases[kind]];
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(draw() * (i + 1));
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
      decks[kind] = deck;
    }
    return deck.pop()!;
  };
}

export function domainOf(contract: Contract): Domain {
  const op = (id: string) => [...contract.operations.values()].find((o) => o.operationId === id)!;
  const create = op('createPet');
  const list = op('listPets');
  const get = op('getPet');
  // The case's own marker is replaced by the program's name: every body that carries a name gets one of its own.
  const cases = { bodies: bodyCases(create, 'model'), listCases: parameterCases(list), getCases: parameterCases(get).filter((c) => !c.expect.valid) };
  return { create, list, get, ...cases, base: baseBody(create) ?? { name: 'model', categoryId: 1 }, deal: dealer(cases) };
}

/** Content-Type values that name plain JSON: a charset parameter has no effect (RFC 8259 §11), type and subtype are case-insensitive (RFC 9110 §8.3.1). */
const JSON_TYPES = ['application/json; charset=utf-8', 'APPLICATION/JSON', 'Application/Json; Charset=UTF-8'] as const;

/** A valid pet of a drawn status (or none: the default is the server's), sometimes in another spelling of application/json. */
export function draftValidCreate(domain: Domain, draw: Draw): Drafted {
  const success = successStatuses(domain.create);
  const status = draw() < 0.2 ? undefined : pick(draw, STATUSES);
  const { status: _, ...base } = domain.base;
  const json = { ...base, name: '', ...(status ? { status } : {}) };
  const contentType = draw() < 0.15 ? pick(draw, JSON_TYPES) : undefined;
  return {
    request: { op: 'create', body: { json }, named: true, ...(contentType ? { contentType } : {}) },
    expect: { valid: true, level: 'must', success },
    label: `create${status ? ` (${status})` : ' without status'}${contentType ? ` as ${contentType}` : ''}`,
  };
}

/** A create: a valid pet, one of the description's cases, or JSON cut short (no JSON text: refused, RFC 8259). */
export function draftCreate(domain: Domain, draw: Draw): Drafted {
  const roll = draw();
  if (roll < 0.4) return draftValidCreate(domain, draw);
  if (roll < 0.45) {
    const text = JSON.stringify({ ...domain.base, name: 'model-cut' });
    return {
      request: { op: 'create', body: { raw: text.slice(0, text.length - 2) }, named: false },
      expect: { valid: false, level: 'must', where: 'body' },
      label: 'create with JSON cut short',
    };
  }
  const c = domain.deal(draw, 'bodies');
  const json = c.json as Record<string, unknown> | undefined;
  const named =
    json !== null &&
    typeof json === 'object' &&
    !Array.isArray(json) &&
    typeof json.name === 'string' &&
    (c.marker !== undefined || json.name === domain.base.name);
  const body = c.raw !== undefined ? { raw: c.raw } : { json: c.json as unknown };
  return { request: { op: 'create', body, named }, expect: c.expect, label: c.purpose };
}

/** A method the description does not give the path: never a 5xx (its 405 and Allow are methods.405's, at should level). */
export function draftOther(draw: Draw): Drafted {
  const [method, path] = pick(draw, [
    ['PUT', '/pets'],
    ['PATCH', '/pets'],
    ['OPTIONS', '/pets'],
    ['PUT', '/pets/{unknown}'],
    ['PATCH', '/pets/{unknown}'],
    ['DELETE', '/pets/{unknown}'],
    ['POST', '/pets/{unknown}'],
    ['OPTIONS', '/pets/{unknown}'],
  ] as const);
  return { request: { op: 'other', method, path }, expect: { valid: true, level: 'should', success: [] }, label: `${method} ${path}` };
}

export function draftList(domain: Domain, draw: Draw, walk: number): Drafted {
  const success = successStatuses(domain.list);
  if (draw() < 0.25) {
    const c = domain.deal(draw, 'listCases');
    return { request: { op: 'list', query: c.query ?? {} }, expect: c.expect, label: c.purpose };
  }
  // Small pages cross many page boundaries; a status filter keeps a walk short.
  const query: Record<string, string> = {};
  const size = draw();
  if (size < 0.6) query.limit = String(between(draw, 1, 6));
  else if (size < 0.9) query.limit = String(between(draw, 7, 100));
  if (draw() < 0.6) query.status = pick(draw, STATUSES);
  const words = Object.entries(query).map(([k, v]) => `${k}=${v}`);
  return { request: { op: 'list', query, walk }, expect: { valid: true, level: 'must', success }, label: `list${words.length ? ` ${words.join('&')}` : ''}` };
}

/** A valid list of one page, no walk. */
export function validList(domain: Domain, draw: Draw): Drafted {
  const query: Record<string, string> = { limit: String(between(draw, 1, 100)) };
  if (draw() < 0.5) query.status = pick(draw, STATUSES);
  return {
    request: { op: 'list', query },
    expect: { valid: true, level: 'must', success: successStatuses(domain.list) },
    label: `list ${Object.entries(query)
      .map(([k, v]) => `${k}=${v}`)
      .join('&')}`,
  };
}

export function draftGet(domain: Domain, draw: Draw, created: readonly number[]): Drafted {
  const success = successStatuses(domain.get);
  const roll = draw();
  if (roll < 0.7 && created.length > 0) {
    const by = pick(draw, created);
    return { request: { op: 'get', pet: { createdBy: by } }, expect: { valid: true, level: 'must', success }, label: `get the pet of step ${by}` };
  }
  if (roll < 0.85 || domain.getCases.length === 0) {
    // An id no store hands out this soon: valid, and absent.
    const id = String(9_000_000_000_000 + between(draw, 0, 999_999));
    return { request: { op: 'get', pet: { literal: id } }, expect: { valid: true, level: 'must', success }, label: `get an id never created` };
  }
  const c = domain.deal(draw, 'getCases');
  const segment = decodeURIComponent(c.path.split('/').pop() ?? '');
  return { request: { op: 'get', pet: { literal: segment } }, expect: c.expect, label: c.purpose };
}

export function credentialsFor(draw: Draw, key: KeyRole): Credentials {
  // Most requests spell the field as everyone does; the rest as the RFCs also allow.
  const spelling = draw() < 0.6 ? 'canonical' : pick(draw, Object.keys(SPELLINGS) as Array<keyof typeof SPELLINGS>);
  return { key, spelling };
}
