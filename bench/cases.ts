// The cases of `npm run bench` and the servers they load. A case names a server; cases on the same
// server share its process, so its peak RSS covers all of them.
import { BASE_PATH } from '../spec/rules/contract.js';

export const CASE_IDS = [
  'null',
  'ref-list',
  'hapi-list',
  'node-list',
  'prism-list',
  'json-list',
  'ref-get',
  'hapi-get',
  'node-get',
  'prism-get',
  'json-get',
  'ref-post',
  'pg-post',
  'pg-list',
  'pg-redis-list',
  'workers-list',
  'list-100k',
  'floor-list',
  'floor-get',
  'list-1k',
  'deep-1k',
  'deep-100k',
] as const;
export type CaseId = (typeof CASE_IDS)[number];

/** The store-size cases of an earlier issue: kept, but only run when named. */
export const OPTIONAL_CASES: readonly CaseId[] = ['list-1k', 'deep-1k', 'deep-100k'];
export const DEFAULT_CASES: readonly CaseId[] = CASE_IDS.filter((id) => !OPTIONAL_CASES.includes(id));

/** The judging proxy in front of the reference server (bench/proxy-case.ts): a run of its own, only when named. */
export const PROXY_CASE = 'proxy';

/** How long k6 takes to load each k6 script, beside a trivial one (bench/k6-start.ts): only when named. */
export const K6_START_CASE = 'k6-start';

export type ServerId =
  | 'null'
  | 'ref-10k'
  | 'ref-post'
  | 'ref-1k'
  | 'ref-100k'
  | 'pg-10k'
  | 'pg-post'
  | 'pg-redis'
  | 'pg-workers'
  | 'hapi'
  | 'hapi-floor'
  | 'node'
  | 'prism'
  | 'json-server';

/** The pet every get case asks for: in the middle of the 10,000-pet store. */
export const GET_ID = 5000;
export const LIST_PATH = `${BASE_PATH}/pets?limit=20`;
export const GET_PATH = `${BASE_PATH}/pets/${GET_ID}`;
/** Prism serves the document's paths without the server URL's base path. */
export const PRISM_LIST_PATH = '/pets?limit=20';
export const PRISM_GET_PATH = `/pets/${GET_ID}`;
/** json-server's own spelling of the same requests. */
export const JSON_LIST_PATH = '/pets?_limit=20';
export const JSON_GET_PATH = `/pets/${GET_ID}`;
/** One fixed body: every POST creates a new pet, so sameness costs nothing and keeps bytes equal. */
export const POST_BODY = JSON.stringify({ name: 'Bench', categoryId: 2, status: 'available' });

/** What a case measures; the targets compare cases of the same kind. */
export type CaseKind = 'ceiling' | 'list' | 'get' | 'create' | 'store-size';

export interface CaseSpec {
  id: CaseId;
  /** Short number shown in the table. */
  label: string;
  title: string;
  kind: CaseKind;
  server: ServerId;
  method: 'GET' | 'POST';
  /** `deep` is resolved at run time to a mid-store page reached by following `Link: rel="next"`. */
  path: string | 'deep';
  body?: string;
  /** The status every measured response must have. */
  expectStatus: number;
}

const get = (id: CaseId, label: string, kind: CaseKind, server: ServerId, path: string, title: string): CaseSpec => ({
  id,
  label,
  title,
  kind,
  server,
  method: 'GET',
  path,
  expectStatus: 200,
});
const post = (id: CaseId, label: string, server: ServerId, title: string): CaseSpec => ({
  id,
  label,
  title,
  kind: 'create',
  server,
  method: 'POST',
  path: `${BASE_PATH}/pets`,
  body: POST_BODY,
  expectStatus: 201,
});

export const CASES: Readonly<Record<CaseId, CaseSpec>> = {
  null: get('null', '0', 'ceiling', 'null', '/', "null node:http server, 2-byte body: the load generator's ceiling"),
  'ref-list': get('ref-list', '1', 'list', 'ref-10k', LIST_PATH, 'reference list, file store 10,000 pets'),
  'hapi-list': get('hapi-list', '2', 'list', 'hapi', LIST_PATH, "bare hapi, the reference list's bytes"),
  'node-list': get('node-list', '3', 'list', 'node', LIST_PATH, "bare node:http, the reference list's bytes"),
  'prism-list': get('prism-list', '4', 'list', 'prism', PRISM_LIST_PATH, 'Prism mock of spec/openapi.yaml, list'),
  'json-list': get('json-list', '5', 'list', 'json-server', JSON_LIST_PATH, 'json-server 0.17, 10,000 pets, ?_limit=20'),
  'ref-get': get('ref-get', '6', 'get', 'ref-10k', GET_PATH, 'reference get by id, file store 10,000 pets'),
  'hapi-get': get('hapi-get', '7', 'get', 'hapi', GET_PATH, "bare hapi, the reference get's bytes"),
  'node-get': get('node-get', '8', 'get', 'node', GET_PATH, "bare node:http, the reference get's bytes"),
  'prism-get': get('prism-get', '9', 'get', 'prism', PRISM_GET_PATH, 'Prism mock of spec/openapi.yaml, get'),
  'json-get': get('json-get', '10', 'get', 'json-server', JSON_GET_PATH, 'json-server 0.17, 10,000 pets, get by id'),
  'ref-post': post('ref-post', '11', 'ref-post', 'reference create, durable, file store from 10,000 pets'),
  'pg-post': post('pg-post', '12', 'pg-post', 'reference create, durable, PostgreSQL from 10,000 pets'),
  'pg-list': get('pg-list', '13', 'list', 'pg-10k', LIST_PATH, 'reference list, PostgreSQL 10,000 pets'),
  'pg-redis-list': get('pg-redis-list', '14', 'list', 'pg-redis', LIST_PATH, 'reference list, PostgreSQL + Redis limiter, one instance'),
  'workers-list': get('workers-list', '15', 'list', 'pg-workers', LIST_PATH, 'reference list, PostgreSQL + Redis, --workers 2'),
  'list-100k': get('list-100k', '16', 'store-size', 'ref-100k', LIST_PATH, 'reference list, file store 100,000 pets'),
  'floor-list': get('floor-list', '17', 'list', 'hapi-floor', LIST_PATH, 'hapi with no-op auth, hooks, listener, validator, 6 headers: list'),
  'floor-get': get('floor-get', '18', 'get', 'hapi-floor', GET_PATH, 'hapi with no-op auth, hooks, listener, validator, 6 headers: get'),
  'list-1k': get('list-1k', 's1', 'store-size', 'ref-1k', LIST_PATH, 'reference list, file store 1,000 pets'),
  'deep-1k': get('deep-1k', 's2', 'store-size', 'ref-1k', 'deep', 'reference mid-store page, status filter, 1,000 pets'),
  'deep-100k': get('deep-100k', 's3', 'store-size', 'ref-100k', 'deep', 'reference mid-store page, status filter, 100,000 pets'),
};

export interface ReferenceServerSpec {
  kind: 'reference';
  store: 'file' | 'postgres';
  pets: number;
  redis: boolean;
  /** `--workers`: 1 is a single process. */
  workers: number;
  /** A fresh store and a fresh process every round, so every round starts at `pets` (the create cases). */
  freshPerRound: boolean;
}

export type ServerSpec =
  | ReferenceServerSpec
  | { kind: 'hapi' }
  | { kind: 'hapi-floor' }
  | { kind: 'node' }
  | { kind: 'null' }
  | { kind: 'prism' }
  | { kind: 'json-server'; pets: number };

const reference = (store: 'file' | 'postgres', pets: number, extra: Partial<ReferenceServerSpec> = {}): ReferenceServerSpec => ({
  kind: 'reference',
  store,
  pets,
  redis: false,
  workers: 1,
  freshPerRound: false,
  ...extra,
});

export const SERVERS: Readonly<Record<ServerId, ServerSpec>> = {
  null: { kind: 'null' },
  'ref-10k': reference('file', 10_000),
  'ref-post': reference('file', 10_000, { freshPerRound: true }),
  'ref-1k': reference('file', 1_000),
  'ref-100k': reference('file', 100_000),
  'pg-10k': reference('postgres', 10_000),
  'pg-post': reference('postgres', 10_000, { freshPerRound: true }),
  'pg-redis': reference('postgres', 10_000, { redis: true }),
  'pg-workers': reference('postgres', 10_000, { redis: true, workers: 2 }),
  hapi: { kind: 'hapi' },
  'hapi-floor': { kind: 'hapi-floor' },
  node: { kind: 'node' },
  prism: { kind: 'prism' },
  'json-server': { kind: 'json-server', pets: 10_000 },
};

/** The status the deep-page cases filter on; a third of the generated pets have it. */
export const DEEP_STATUS = 'available';

/** The bare servers answer exactly what the reference server answers to these two requests. */
export const CANNED_PATHS = { list: LIST_PATH, get: GET_PATH } as const;

export function needsPostgres(spec: ServerSpec): boolean {
  return spec.kind === 'reference' && spec.store === 'postgres';
}

export function needsRedis(spec: ServerSpec): boolean {
  return spec.kind === 'reference' && spec.redis;
}
