// The cases of `npm run bench`, in the order the issue numbers them, and the servers they load.
// A case names a server; cases on the same store share one server process, so its peak RSS
// covers all of them.

export const CASE_IDS = [
  'ref-get',
  'hapi',
  'node',
  'prism',
  'ref-post',
  'ref-redis',
  'list-1k',
  'list-100k',
  'deep-1k',
  'deep-100k',
] as const;
export type CaseId = (typeof CASE_IDS)[number];

export type ServerId = 'ref-10k' | 'ref-redis' | 'ref-post' | 'ref-1k' | 'ref-100k' | 'hapi' | 'node' | 'prism';

export const LIST_PATH = '/v1/pets?limit=20';
/** Prism serves the document's paths without the server URL's `/v1` prefix. */
export const PRISM_LIST_PATH = '/pets?limit=20';
/** One fixed body: every POST creates a new pet, so sameness costs nothing and keeps bytes equal. */
export const POST_BODY = JSON.stringify({ name: 'Bench', categoryId: 2, status: 'available' });

export interface CaseSpec {
  id: CaseId;
  /** The numbering; the store-size cases have none. */
  label: string;
  title: string;
  server: ServerId;
  method: 'GET' | 'POST';
  /** `deep` is resolved at run time to a mid-store page reached by following `Link: rel="next"`. */
  path: string | 'deep';
  body?: string;
  /** The status every measured response must have. */
  expectStatus: number;
}

export const CASES: Readonly<Record<CaseId, CaseSpec>> = {
  'ref-get': {
    id: 'ref-get',
    label: '1',
    title: 'reference GET, file store 10,000 pets',
    server: 'ref-10k',
    method: 'GET',
    path: LIST_PATH,
    expectStatus: 200,
  },
  hapi: { id: 'hapi', label: '2', title: 'bare hapi, same bytes', server: 'hapi', method: 'GET', path: LIST_PATH, expectStatus: 200 },
  node: { id: 'node', label: '3', title: 'bare node:http, same bytes', server: 'node', method: 'GET', path: LIST_PATH, expectStatus: 200 },
  prism: {
    id: 'prism',
    label: '4',
    title: 'Prism mock of spec/openapi.yaml',
    server: 'prism',
    method: 'GET',
    path: PRISM_LIST_PATH,
    expectStatus: 200,
  },
  'ref-post': {
    id: 'ref-post',
    label: '5',
    title: 'reference POST, durable, from 10,000 pets',
    server: 'ref-post',
    method: 'POST',
    path: '/v1/pets',
    body: POST_BODY,
    expectStatus: 201,
  },
  'ref-redis': {
    id: 'ref-redis',
    label: '6',
    title: 'reference GET, Redis limiter, 10,000 pets',
    server: 'ref-redis',
    method: 'GET',
    path: LIST_PATH,
    expectStatus: 200,
  },
  'list-1k': { id: 'list-1k', label: 's1', title: 'reference GET first page, 1,000 pets', server: 'ref-1k', method: 'GET', path: LIST_PATH, expectStatus: 200 },
  'list-100k': {
    id: 'list-100k',
    label: 's2',
    title: 'reference GET first page, 100,000 pets',
    server: 'ref-100k',
    method: 'GET',
    path: LIST_PATH,
    expectStatus: 200,
  },
  'deep-1k': {
    id: 'deep-1k',
    label: 's3',
    title: 'reference GET mid-store page, status filter, 1,000 pets',
    server: 'ref-1k',
    method: 'GET',
    path: 'deep',
    expectStatus: 200,
  },
  'deep-100k': {
    id: 'deep-100k',
    label: 's4',
    title: 'reference GET mid-store page, status filter, 100,000 pets',
    server: 'ref-100k',
    method: 'GET',
    path: 'deep',
    expectStatus: 200,
  },
};

export interface ReferenceServerSpec {
  kind: 'reference';
  pets: number;
  redis: boolean;
  /** A fresh copy of the store and a fresh process every round, so every round starts at `pets`. */
  freshPerRound: boolean;
}

export type ServerSpec = ReferenceServerSpec | { kind: 'hapi' } | { kind: 'node' } | { kind: 'prism' };

export const SERVERS: Readonly<Record<ServerId, ServerSpec>> = {
  'ref-10k': { kind: 'reference', pets: 10_000, redis: false, freshPerRound: false },
  'ref-redis': { kind: 'reference', pets: 10_000, redis: true, freshPerRound: false },
  'ref-post': { kind: 'reference', pets: 10_000, redis: false, freshPerRound: true },
  'ref-1k': { kind: 'reference', pets: 1_000, redis: false, freshPerRound: false },
  'ref-100k': { kind: 'reference', pets: 100_000, redis: false, freshPerRound: false },
  hapi: { kind: 'hapi' },
  node: { kind: 'node' },
  prism: { kind: 'prism' },
};

/** The status the deep-page cases filter on; a third of the generated pets have it. */
export const DEEP_STATUS = 'available';
