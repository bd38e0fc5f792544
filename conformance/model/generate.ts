// A random program from a seed: creates, gets and list walks of every kind the description allows and
// forbids (the cases of generate/cases.ts, read off its schemas, and valid pets of every status),
// HEAD beside GET, across the run's keys written in every spelling the RFCs allow and credentials
// that carry no key, sent by several clients at once. The same seed and options give the same program.
import type { Json } from '../../lib/openapi.ts';
import { PET_STATUSES } from '../../spec/rules/contract.js';
import type { Contract, Operation } from '../../judge/contract.ts';
import { baseBody, bodyCases, parameterCases, successStatuses, type Case } from '../generate/cases.ts';
import {
  INVALID_CREDENTIALS,
  SPELLINGS,
  type Credentials,
  type InvalidCredentials,
  type KeyRole,
  type PetRef,
  type Program,
  type Step,
  type StepRequest,
} from './program.ts';

export interface GenerateOptions {
  seed: number;
  clients: number;
  /** Requests the program sends at most (walks that end early send fewer). */
  steps: number;
  /** The run's keys the program may use: always the API key; the rate-limit key when the run has one. */
  keys: readonly KeyRole[];
  /** Requests to send with the rate-limit key: enough to cross what its window has left (0: none). */
  rateLimitRequests: number;
}

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

type Draw = () => number;
const pick = <T>(draw: Draw, items: readonly T[]): T => items[Math.floor(draw() * items.length)]!;
const between = (draw: Draw, min: number, max: number): number => min + Math.floor(draw() * (max - min + 1));

/** What a kind of step may be: its request and expectation, before it is given a client and credentials. */
type Drafted = Pick<Step, 'request' | 'expect' | 'label'>;

const STATUSES = PET_STATUSES;

/** The inputs the program draws from, read once off the description. */
interface Domain {
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

function domainOf(contract: Contract): Domain {
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
function draftValidCreate(domain: Domain, draw: Draw): Drafted {
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
function draftCreate(domain: Domain, draw: Draw): Drafted {
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
function draftOther(draw: Draw): Drafted {
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

function draftList(domain: Domain, draw: Draw, walk: number): Drafted {
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
function validList(domain: Domain, draw: Draw): Drafted {
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

function draftGet(domain: Domain, draw: Draw, created: readonly number[]): Drafted {
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

function credentialsFor(draw: Draw, key: KeyRole): Credentials {
  // Most requests spell the field as everyone does; the rest as the RFCs also allow.
  const spelling = draw() < 0.6 ? 'canonical' : pick(draw, Object.keys(SPELLINGS) as Array<keyof typeof SPELLINGS>);
  return { key, spelling };
}

/** Pages a closing walk follows at most. */
const SWEEP_PAGES = 12;

/**
 * The close of every program: the whole store walked with nothing created meanwhile, unfiltered and
 * by each status, in pages of 100 (as many walks at once as there are clients): every pet acknowledged
 * must be listed where its status says, and none refused.
 */
function sweep(domain: Domain, options: GenerateOptions, lastId: number): Step[][] {
  const success = successStatuses(domain.list);
  const filters: Array<Record<string, string>> = [{ limit: '100' }, ...STATUSES.map((status) => ({ limit: '100', status }))].slice(
    0,
    Math.max(1, options.clients),
  );
  const credentials: Credentials = { key: 'api-key', spelling: 'canonical' };
  let id = lastId;
  const walks = filters.map((query, client) => ({ id: ++id, client, query }));
  const expect = { valid: true, level: 'must', success } as const;
  const rounds: Step[][] = [
    walks.map((w) => ({
      id: w.id,
      client: w.client,
      credentials,
      request: { op: 'list', query: w.query, walk: w.id },
      expect,
      label: `closing walk ${Object.entries(w.query)
        .map(([k, v]) => `${k}=${v}`)
        .join('&')}`,
    })),
  ];
  for (let page = 1; page < SWEEP_PAGES; page++) {
    rounds.push(
      walks.map((w) => ({
        id: ++id,
        client: w.client,
        credentials,
        request: { op: 'next', walk: w.id },
        expect,
        label: `next page of the closing walk of step ${w.id}`,
      })),
    );
  }
  return rounds;
}

/** The program of a seed: rounds of at most `clients` requests, walks followed page by page, the rate-limit key's requests in rounds of their own. */
export function generateProgram(contract: Contract, options: GenerateOptions): Program {
  const draw = random(options.seed);
  const domain = domainOf(contract);
  const rounds: Step[][] = [];
  const created: number[] = [];
  const openWalks: Array<{ walk: number; client: number; credentials: Credentials; pages: number }> = [];
  let id = 0;
  let sent = 0;
  let invalid = 0;
  let rateLimited = 0;
  let afterWait = 0;
  /** Rounds left in a quiet stretch. */
  let quiet = 0;
  const windowWaits: number[] = [];
  // Every kind of credentials without a key before any comes twice, in an order the seed decides.
  const invalidDeck = (Object.keys(INVALID_CREDENTIALS) as InvalidCredentials[])
    .map((k) => ({ k, r: draw() }))
    .sort((a, b) => a.r - b.r)
    .map((x) => x.k);
  const extra = options.rateLimitRequests > 0 ? Math.max(2 * options.clients, 8) : 0;
  const total = options.steps + options.rateLimitRequests + extra;
  // Where the rate-limit key's requests go: after a third of the rest, so creates and walks of the API key overlap them.
  const rateLimitFrom = Math.floor(options.steps / 3);
  while (sent < total) {
    const round: Step[] = [];
    // A step reads only pets of earlier rounds: their ids are known when it is sent.
    const createdNow: number[] = [];
    const width = draw() < 0.2 ? between(draw, 1, options.clients) : options.clients;
    // The rate-limit key crosses its window twice: past what it has left, then again once the window has passed.
    if (options.rateLimitRequests > 0 && rateLimited >= options.rateLimitRequests && afterWait === 0) {
      afterWait = extra;
      windowWaits.push(rounds.length);
    }
    const rateLimitTarget = options.rateLimitRequests + afterWait;
    const burst = rateLimited < rateLimitTarget && sent - rateLimited >= rateLimitFrom;
    if (quiet > 0) quiet--;
    else if (draw() < 0.08) quiet = between(draw, 3, 8);
    for (let client = 0; client < width && sent < total; client++) {
      const stepId = ++id;
      let drafted: Drafted;
      let credentials: Credentials;
      const walk = openWalks.findIndex((w) => w.client === client);
      if (burst && rateLimited < rateLimitTarget && (client % 2 === 0 || options.keys.length === 1 || draw() < 0.5)) {
        // Valid requests only: an answer neither admitted nor refused (a 400) leaves the window's count open.
        credentials = credentialsFor(draw, 'rate-limit-key');
        drafted = draw() < 0.5 || quiet > 0 ? validList(domain, draw) : draftValidCreate(domain, draw);
        rateLimited++;
      } else if (invalid < 16 && draw() < 0.1) {
        invalid++;
        credentials = { invalid: invalidDeck[invalid % invalidDeck.length]! };
        drafted = draw() < 0.5 ? draftList(domain, draw, stepId) : draftCreate(domain, draw);
        if (drafted.request.op === 'list') delete drafted.request.walk;
      } else if (walk >= 0 && draw() < 0.55) {
        const w = openWalks[walk]!;
        credentials = w.credentials;
        drafted = {
          request: { op: 'next', walk: w.walk },
          expect: { valid: true, level: 'must', success: successStatuses(domain.list) },
          label: `next page of the walk of step ${w.walk}`,
        };
        // A walk is followed for 30 pages at most; a small page over a large store takes longer than a run.
        if (++w.pages >= 30 || draw() < 0.02) openWalks.splice(walk, 1);
      } else {
        credentials = credentialsFor(draw, 'api-key');
        // In a quiet stretch nothing is created: the walks under way can be judged for what they miss.
        const roll = quiet > 0 ? 0.4 + draw() * 0.57 : draw();
        if (roll < 0.4) {
          drafted = draftCreate(domain, draw);
          // Sometimes with the id of a pet made before: whether an unknown field is refused or ignored is open, never that it overwrites.
          if (drafted.request.op === 'create' && drafted.request.named && drafted.expect.valid && created.length > 0 && draw() < 0.1) {
            const idOf = pick(draw, created);
            drafted = {
              request: { ...drafted.request, idOf },
              expect: { ...drafted.expect, level: 'should' },
              label: `${drafted.label} carrying the id of step ${idOf}`,
            };
          } else if (drafted.request.op === 'create' && drafted.request.named && 'json' in drafted.request.body && drafted.expect.valid && draw() < 0.1) {
            // A property Pet does not have: refused or ignored (open), never kept.
            const json = { ...(drafted.request.body.json as object), extraModel: 'ignored' };
            drafted = {
              request: { ...drafted.request, body: { json } },
              expect: { ...drafted.expect, level: 'should' },
              label: `${drafted.label} with a property Pet does not have`,
            };
          }
        } else if (roll < 0.62) drafted = draftGet(domain, draw, created);
        else if (roll < 0.97) drafted = draftList(domain, draw, stepId);
        else drafted = draftOther(draw);
        if (drafted.request.op === 'list' && drafted.request.walk !== undefined) {
          if (walk >= 0) delete drafted.request.walk;
          else openWalks.push({ walk: stepId, client, credentials, pages: 0 });
        }
      }
      const request: StepRequest = drafted.request;
      // HEAD beside GET: the same answer without its body (RFC 9110 §9.3.2).
      if ((request.op === 'get' || (request.op === 'list' && request.walk === undefined)) && draw() < 0.12) request.head = true;
      if (request.op === 'create' && 'key' in credentials && drafted.expect.valid) createdNow.push(stepId);
      round.push({
        id: stepId,
        client,
        credentials,
        ...drafted,
        request,
        ...(request.op !== 'next' && 'head' in request && request.head ? { label: `HEAD ${drafted.label}` } : {}),
      });
      sent++;
    }
    rounds.push(round);
    created.push(...createdNow);
  }
  rounds.push(...sweep(domain, options, id));
  return { seed: options.seed, clients: options.clients, rounds, ...(windowWaits.length > 0 ? { windowWaits } : {}) };
}

export type { PetRef };
