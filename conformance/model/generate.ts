// A random program from a seed: creates, gets and list walks of every kind the description allows and
// forbids (the cases of generate/cases.ts, read off its schemas, and valid pets of every status),
// HEAD beside GET, across the run's keys written in every spelling the RFCs allow and credentials
// that carry no key, sent by several clients at once. The same seed and options give the same program.
import type { Contract } from '../../judge/contract.ts';
import { successStatuses } from '../generate/cases.ts';
import {
  between,
  credentialsFor,
  domainOf,
  draftCreate,
  draftGet,
  draftList,
  draftOther,
  draftValidCreate,
  pick,
  random,
  STATUSES,
  validList,
  type Domain,
  type Drafted,
} from './drafts.ts';
import {
  INVALID_CREDENTIALS,
  type Credentials,
  type InvalidCredentials,
  type KeyRole,
  type PetRef,
  type Program,
  type Step,
  type StepRequest,
} from './program.ts';

export { random } from './drafts.ts';

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
