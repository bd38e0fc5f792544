// A random program from a seed: creates, gets and list walks of every kind the description allows and
// forbids (the cases of generate/cases.ts, read off its schemas, and valid pets of every status),
// HEAD beside GET, across the run's keys written in every spelling the RFCs allow and credentials
// that carry no key, sent by several clients at once. The same seed and options give the same program.
import type { Json } from '../../lib/openapi.ts';
import type { Contract, Operation } from '../../judge/contract.ts';
import { baseBody, bodyCases, parameterCases, successStatuses, type Case } from '../generate/cases.ts';
import { INVALID_CREDENTIALS, SPELLINGS, type Credentials, type KeyRole, type PetRef, type Program, type Step, type StepRequest } from './program.ts';

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

const STATUSES = ['available', 'pending', 'sold'] as const;

/** The inputs the program draws from, read once off the description. */
interface Domain {
  create: Operation;
  list: Operation;
  get: Operation;
  bodies: Case[];
  listCases: Case[];
  getCases: Case[];
  base: Record<string, Json>;
}

function domainOf(contract: Contract): Domain {
  const op = (id: string) => [...contract.operations.values()].find((o) => o.operationId === id)!;
  const create = op('createPet');
  const list = op('listPets');
  const get = op('getPet');
  return {
    create,
    list,
    get,
    // The case's own marker is replaced by the program's name: every body that carries a name gets one of its own.
    bodies: bodyCases(create, 'model'),
    listCases: parameterCases(list),
    getCases: parameterCases(get).filter((c) => !c.expect.valid),
    base: baseBody(create) ?? { name: 'model', categoryId: 1 },
  };
}

/** A create: a valid pet of a drawn status (or none: the default is the server's), or one of the description's cases. */
function draftCreate(domain: Domain, draw: Draw): Drafted {
  const success = successStatuses(domain.create);
  if (draw() < 0.55) {
    const status = draw() < 0.2 ? undefined : pick(draw, STATUSES);
    const json = { ...domain.base, name: '', ...(status ? { status } : {}) };
    delete (json as Record<string, unknown>).status;
    if (status) (json as Record<string, unknown>).status = status;
    return {
      request: { op: 'create', body: { json }, named: true },
      expect: { valid: true, level: 'must', success },
      label: `create${status ? ` (${status})` : ' without status'}`,
    };
  }
  const c = pick(draw, domain.bodies);
  const named =
    c.json !== null &&
    typeof c.json === 'object' &&
    !Array.isArray(c.json) &&
    typeof (c.json as Record<string, unknown>).name === 'string' &&
    (c.marker !== undefined || (c.json as Record<string, unknown>).name === domain.base.name);
  const body = c.raw !== undefined ? { raw: c.raw } : { json: c.json as unknown };
  return { request: { op: 'create', body, named }, expect: c.expect, label: c.purpose };
}

function draftList(domain: Domain, draw: Draw, walk: number): Drafted {
  const success = successStatuses(domain.list);
  if (draw() < 0.25) {
    const c = pick(draw, domain.listCases);
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
  const c = pick(draw, domain.getCases);
  const segment = decodeURIComponent(c.path.split('/').pop() ?? '');
  return { request: { op: 'get', pet: { literal: segment } }, expect: c.expect, label: c.purpose };
}

function credentialsFor(draw: Draw, key: KeyRole): Credentials {
  // Most requests spell the field as everyone does; the rest as the RFCs also allow.
  const spelling = draw() < 0.6 ? 'canonical' : pick(draw, Object.keys(SPELLINGS) as Array<keyof typeof SPELLINGS>);
  return { key, spelling };
}

/** The program of a seed: rounds of at most `clients` requests, walks followed page by page, the rate-limit key's requests in rounds of their own. */
export function generateProgram(contract: Contract, options: GenerateOptions): Program {
  const draw = random(options.seed);
  const domain = domainOf(contract);
  const rounds: Step[][] = [];
  const created: number[] = [];
  const openWalks: Array<{ walk: number; client: number; credentials: Credentials }> = [];
  let id = 0;
  let sent = 0;
  let invalid = 0;
  let rateLimited = 0;
  let afterWait = 0;
  const windowWaits: number[] = [];
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
    for (let client = 0; client < width && sent < total; client++) {
      const stepId = ++id;
      let drafted: Drafted;
      let credentials: Credentials;
      const walk = openWalks.findIndex((w) => w.client === client);
      if (burst && rateLimited < rateLimitTarget && (client % 2 === 0 || options.keys.length === 1 || draw() < 0.5)) {
        credentials = credentialsFor(draw, 'rate-limit-key');
        drafted = draw() < 0.5 ? draftList(domain, draw, stepId) : draftCreate(domain, draw);
        if (drafted.request.op === 'list') delete drafted.request.walk;
        rateLimited++;
      } else if (walk >= 0 && draw() < 0.85) {
        const w = openWalks[walk]!;
        credentials = w.credentials;
        drafted = {
          request: { op: 'next', walk: w.walk },
          expect: { valid: true, level: 'must', success: successStatuses(domain.list) },
          label: `next page of the walk of step ${w.walk}`,
        };
        if (draw() < 0.04) openWalks.splice(walk, 1);
      } else if (invalid < 10 && draw() < 0.08) {
        invalid++;
        credentials = { invalid: pick(draw, Object.keys(INVALID_CREDENTIALS) as Array<keyof typeof INVALID_CREDENTIALS>) };
        drafted = draw() < 0.5 ? draftList(domain, draw, stepId) : draftCreate(domain, draw);
        if (drafted.request.op === 'list') delete drafted.request.walk;
      } else {
        credentials = credentialsFor(draw, 'api-key');
        const roll = draw();
        if (roll < 0.4) drafted = draftCreate(domain, draw);
        else if (roll < 0.65) drafted = draftGet(domain, draw, created);
        else drafted = draftList(domain, draw, stepId);
        if (drafted.request.op === 'list' && drafted.request.walk !== undefined) {
          if (walk >= 0) delete drafted.request.walk;
          else openWalks.push({ walk: stepId, client, credentials });
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
  return { seed: options.seed, clients: options.clients, rounds, ...(windowWaits.length > 0 ? { windowWaits } : {}) };
}

export type { PetRef };
