// Flaws only overlapping requests show. The proxy emulates each on the reference server from what it
// sees overlap (a request arriving while another is unanswered), so every sequential check passes
// them all; the second implementation builds the first two in for real (race).
import type { Flaw } from './flaw.ts';
import type { FlawState, ProxyRequest, ProxyResponse } from './proxy.ts';
import { mapJson, operationOf, remembered } from './rewrite.ts';
import { LOWER_HEADERS } from '../../../spec/rules/contract.js';

type Pet = Record<string, unknown>;

/** A header the flaw's request hook leaves for its response hook (the request as forwarded is what the response hook sees). */
const TAG = 'x-flaw-overlap';

const tagged = (req: ProxyRequest, value: string | number): ProxyRequest => ({ ...req, headers: { ...req.headers, [TAG]: String(value) } });

// racy-ids: overlapping creates take the id of the first one answered, and the later pet overwrites it.
// Creates overlap in groups: one starts when none is in flight and ends with its last answer.

interface IdRace {
  /** Creates in flight. */
  inFlight: number;
  /** The id the current group's first answered create got; forgotten when the group ends. */
  first?: number;
  /** What a get or list of a taken id returns: the last pet written under it. */
  kept: Map<number, Pet>;
  /** The ids the implementation really gave the later creates, which the emulated store never had. */
  hidden: Set<number>;
}

const idRace = (memory: FlawState['memory']) => remembered<IdRace>(memory, 'racy-ids', () => ({ inFlight: 0, kept: new Map(), hidden: new Set() }));

function takeFirstId(res: ProxyResponse, race: IdRace): ProxyResponse {
  race.inFlight--;
  const served = res.status === 201 ? shareFirstId(res, race) : res;
  if (race.inFlight === 0) race.first = undefined;
  return served;
}

function shareFirstId(res: ProxyResponse, race: IdRace): ProxyResponse {
  const pet = JSON.parse(res.body) as Pet;
  const first = race.first;
  if (first === undefined) {
    race.first = Number(pet.id);
    return res;
  }
  race.hidden.add(Number(pet.id));
  const overwritten = { ...pet, id: first };
  race.kept.set(first, overwritten);
  const location = res.headers.location?.replace(/\d+(\/?)$/, `${first}$1`);
  return { ...res, headers: { ...res.headers, ...(location ? { location } : {}) }, body: JSON.stringify(overwritten) };
}

function serveRaced(res: ProxyResponse, req: ProxyRequest, race: IdRace): ProxyResponse {
  const op = operationOf(req);
  if (op === 'getPet') {
    const pet = race.kept.get(Number(req.url.split('?')[0]!.split('/').pop()));
    return pet ? { ...res, status: 200, body: JSON.stringify(pet) } : res;
  }
  if (op !== 'listPets' || res.status !== 200) return res;
  return mapJson(res, (body) =>
    Array.isArray(body) ? (body as Pet[]).filter((p) => !race.hidden.has(Number(p.id))).map((p) => race.kept.get(Number(p.id)) ?? p) : body,
  );
}

// racy-limiter: overlapping requests of one key all carry the first answer's Remaining, and a 429
// among them is served as the admitted answer before it was.

const RATE_FIELDS = [LOWER_HEADERS.rateLimitRemaining, LOWER_HEADERS.rateLimit];

/**
 * One key's overlapping requests: made when one arrives with none of the key's in flight, deleted
 * with the group's last answer, so that only keys with requests in flight are remembered.
 */
interface KeyRace {
  inFlight: number;
  /** The first admitted answer's Remaining (and RateLimit) in the group. */
  counted?: Record<string, string>;
  admitted?: ProxyResponse;
}

const keyRaceName = (req: ProxyRequest) => `racy-limiter ${req.headers.authorization ?? ''}`;

function staleCount(res: ProxyResponse, req: ProxyRequest, memory: FlawState['memory']): ProxyResponse {
  const name = keyRaceName(req);
  const race = memory.get(name) as KeyRace;
  if (--race.inFlight === 0) memory.delete(name);
  const admitted = res.status >= 200 && res.status < 300;
  if (race.counted === undefined) {
    if (admitted) {
      race.counted = Object.fromEntries(RATE_FIELDS.filter((h) => res.headers[h] !== undefined).map((h) => [h, res.headers[h]!]));
      race.admitted = res;
    }
    return res;
  }
  if (admitted) {
    race.admitted = { ...res, headers: { ...res.headers, ...race.counted } };
    return race.admitted;
  }
  return res.status === 429 && race.admitted ? { ...race.admitted } : res;
}

// torn-list: a list answered while a create is in flight is cut short, or holds a partial pet.

interface Tearing {
  inFlight: number;
  started: number;
  torn: number;
}

const tearing = (memory: FlawState['memory']) => remembered<Tearing>(memory, 'torn-list', () => ({ inFlight: 0, started: 0, torn: 0 }));

function tear(res: ProxyResponse, tearing: Tearing): ProxyResponse {
  tearing.torn++;
  if (tearing.torn % 2 === 1) return { ...res, body: res.body.slice(0, Math.max(1, Math.floor(res.body.length / 2))) };
  return mapJson(res, (body) => {
    if (!Array.isArray(body) || body.length === 0) return body;
    const { name: _name, categoryId: _categoryId, ...partial } = body[body.length - 1] as Pet;
    return [...body.slice(0, -1), partial];
  });
}

export const CONCURRENCY_FLAWS: readonly Flaw[] = [
  {
    id: 'racy-ids',
    area: 'concurrency',
    description:
      'Overlapping creates take the same id (read, then written a moment later): each is answered 201 with it, and the later pet overwrites the earlier',
    caughtBy: 'concurrency.creates-distinct',
    foundBy: 'concurrency',
    secondBuild: { race: { ids: true } },
    request: (req, { memory }) => {
      if (operationOf(req) === 'createPet') idRace(memory).inFlight++;
      return req;
    },
    response: (res, req, { memory }) => {
      const race = idRace(memory);
      return operationOf(req) === 'createPet' ? takeFirstId(res, race) : serveRaced(res, req, race);
    },
  },
  {
    id: 'racy-limiter',
    area: 'concurrency',
    description:
      "The limiter reads and writes a key's counter apart: requests of one key that overlap all carry the first one's X-RateLimit-Remaining, and a 429 among them is served",
    // Remaining repeated within one batch is a reading the rules allow (readings.js: remaining.at-answer);
    // the 429 served among them is over-admission, which only the burst on --rate-limit-key reaches.
    caughtBy: 'concurrency.burst-exact',
    foundBy: 'concurrency',
    secondBuild: { race: { limiter: true } },
    request: (req, { memory }) => {
      remembered<KeyRace>(memory, keyRaceName(req), () => ({ inFlight: 0 })).inFlight++;
      return req;
    },
    response: (res, req, { memory }) => staleCount(res, req, memory),
  },
  {
    id: 'torn-list',
    area: 'concurrency',
    description: 'A list answered while a create is in flight is cut short or holds a partial pet (one without name and categoryId)',
    caughtBy: 'concurrency.reads-whole',
    foundBy: 'concurrency',
    request: (req, { memory }) => {
      const state = tearing(memory);
      const op = operationOf(req);
      if (op === 'createPet') {
        state.inFlight++;
        state.started++;
        return req;
      }
      return op === 'listPets' ? tagged(req, `${state.started} ${state.inFlight}`) : req;
    },
    response: (res, req, { memory }) => {
      const state = tearing(memory);
      const op = operationOf(req);
      if (op === 'createPet') state.inFlight--;
      if (op !== 'listPets' || res.status !== 200) return res;
      const [startedBefore, inFlightBefore] = (req.headers[TAG] ?? '0 0').split(' ').map(Number);
      const overlapped = inFlightBefore! > 0 || state.inFlight > 0 || state.started > startedBefore!;
      return overlapped ? tear(res, state) : res;
    },
  },
];
