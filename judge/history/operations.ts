// What a store's exchange is, read as an operation on the store: a create and how it ended, a get and
// what it found, a list page with what it lists and whether it lists everything. Only what the answer
// proves is kept; anything the answer leaves open (a body cut short, a query the contract does not
// describe) leaves the operation weaker, never wrong.
import { jsonBody, type Exchange } from '../exchange.ts';
import { linkWithRel, parseLinks } from '../../spec/rules/link.js';
import { LIST_LIMIT, LOWER_HEADERS, PET_STATUSES } from '../../spec/rules/contract.js';

export const STATUSES = PET_STATUSES;
/** The list's default page size (Endpoints › List animals). */
const DEFAULT_LIMIT = LIST_LIMIT.default;

export interface PetSeen {
  id: number;
  name: unknown;
  categoryId: unknown;
  status: unknown;
}

export type CreateOutcome = 'acknowledged' | 'refused' | 'unknown';

/** The path before /pets (/v1): a read says a pet is absent only under the base it was created under. */
interface Based {
  base: string;
}

export interface CreateOp extends Based {
  kind: 'create';
  exchange: Exchange;
  outcome: CreateOutcome;
  /** The name sent, when the body was a JSON object with a string name. */
  name: string | undefined;
  /** The pet the answer acknowledged (its id an integer). */
  pet: PetSeen | undefined;
  /** The status the pet has: the answer's, or the one sent; undefined when neither says. */
  status: string | undefined;
}

export interface GetOp extends Based {
  kind: 'get';
  exchange: Exchange;
  id: number;
  /** The pet found (200), or undefined for a 404. */
  found: PetSeen | undefined;
}

export interface PageOp extends Based {
  kind: 'page';
  exchange: Exchange;
  items: PetSeen[];
  /** How many entries the array holds (pets or not). */
  count: number;
  /** The status filter: a status, 'all', or undefined when the query's filter is not one the contract describes. */
  filter: string | undefined;
  /** The page size asked for, when the query names one the contract describes (or none: 20). */
  limit: number | undefined;
  /** Whether the query holds only limit and status: a walk may start here. */
  plain: boolean;
  /** The request URL, absolute, for matching next links. */
  url: string;
  /** The next link, resolved against the request URL. */
  next: string | undefined;
}

/** A write the contract does not show (PUT, PATCH, DELETE on a pet) that another implementation offers, answered 2xx. */
export interface WriteOp {
  kind: 'write';
  exchange: Exchange;
  id: number;
}

export type StoreOp = CreateOp | GetOp | PageOp | WriteOp;

const BASE = 'http://store.invalid';
// Paths exactly as the description writes them, under any base (/v1): a trailing slash is another
// resource a server may not know, and its 404 says nothing about the pet.
const PETS = /^(.*)\/pets$/;
const PET = /^(.*)\/pets\/([^/]+)$/;

function absolute(url: string, base = BASE): string | undefined {
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
}

function petOf(value: unknown): PetSeen | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.id !== 'number' || !Number.isSafeInteger(v.id)) return undefined;
  return { id: v.id, name: v.name, categoryId: v.categoryId, status: v.status };
}

function idOf(segment: string): number | undefined {
  // The id as the server writes it: another spelling (017, +17) may be read as another id, or as none.
  if (!/^(0|[1-9]\d{0,14})$/.test(segment)) return undefined;
  return Number(segment);
}

/** The store operation an exchange is, or undefined when it tells nothing about the store. */
export function storeOp(exchange: Exchange): StoreOp | undefined {
  // Methods are case-sensitive (RFC 9110 §9.1): "get" is not GET.
  const method = exchange.request.method;
  const url = absolute(exchange.request.url);
  if (!url) return undefined;
  const parsed = new URL(url);
  const path = parsed.pathname;
  const response = exchange.response;
  const status = response?.status;
  const list = PETS.exec(path);
  // An answer a client asked to be shaped (Prefer: code=, example=; RFC 7240) or that says it was
  // injected is not the store's: a read proves nothing, a create may or may not have been made.
  const shaped =
    Object.keys(exchange.request.headers).some((name) => name.toLowerCase() === LOWER_HEADERS.prefer) ||
    response?.headers[LOWER_HEADERS.faultInjected] !== undefined;
  if (method === 'POST' && list) return createOp(exchange, list[1]!, shaped);
  if (shaped) return undefined;
  const petPath = PET.exec(path);
  if (petPath) {
    const id = idOf(petPath[2]!);
    if (id === undefined) return undefined;
    if ((method === 'PUT' || method === 'PATCH' || method === 'DELETE') && status !== undefined && status >= 200 && status < 300)
      return { kind: 'write', exchange, id };
    if (method !== 'GET' || !response || exchange.outside) return undefined;
    const base = petPath[1]!;
    if (status === 404) return { kind: 'get', exchange, base, id, found: undefined };
    if (status !== 200) return undefined;
    const found = petOf(jsonBody(exchange));
    // A pet other than the one asked for proves nothing about either.
    return found && found.id === id ? { kind: 'get', exchange, base, id, found } : undefined;
  }
  if (method !== 'GET' || !list || !response || status !== 200 || exchange.outside) return undefined;
  const body = jsonBody(exchange);
  if (!Array.isArray(body)) return undefined;
  const items: PetSeen[] = [];
  for (const item of body) {
    const pet = petOf(item);
    if (pet) items.push(pet);
  }
  const query = parsed.searchParams;
  const statuses = query.getAll('status');
  const limits = query.getAll('limit');
  const filter = statuses.length === 0 ? 'all' : statuses.length === 1 && (STATUSES as readonly string[]).includes(statuses[0]!) ? statuses[0] : undefined;
  let limit: number | undefined = DEFAULT_LIMIT;
  if (limits.length > 0) {
    const n = limits.length === 1 && /^\d{1,3}$/.test(limits[0]!) ? Number(limits[0]) : NaN;
    limit = n >= LIST_LIMIT.minimum && n <= LIST_LIMIT.maximum ? n : undefined;
  }
  const plain = [...query.keys()].every((k) => k === 'status' || k === 'limit');
  const nextLink = linkWithRel(parseLinks(response.headers['link']), 'next');
  const next = nextLink ? absolute(nextLink.target, url) : undefined;
  return { kind: 'page', exchange, base: list[1]!, items, count: body.length, filter, limit, plain, url, next };
}

function createOp(exchange: Exchange, base: string, shaped: boolean): CreateOp {
  let sent: Record<string, unknown> | undefined;
  try {
    const value =
      exchange.request.truncatedFrom === undefined && exchange.request.body !== undefined ? (JSON.parse(exchange.request.body) as unknown) : undefined;
    if (value && typeof value === 'object' && !Array.isArray(value)) sent = value as Record<string, unknown>;
  } catch {
    sent = undefined;
  }
  const name = typeof sent?.name === 'string' ? sent.name : undefined;
  const sentStatus = typeof sent?.status === 'string' ? sent.status : undefined;
  const status = exchange.response?.status;
  if (shaped) return { kind: 'create', exchange, base, outcome: 'unknown', name, pet: undefined, status: sentStatus };
  if (status !== undefined && status >= 400 && status < 500)
    return { kind: 'create', exchange, base, outcome: 'refused', name, pet: undefined, status: sentStatus };
  const pet = status !== undefined && status >= 200 && status < 300 ? petOf(jsonBody(exchange)) : undefined;
  if (pet) {
    const answered = typeof pet.status === 'string' ? pet.status : undefined;
    return { kind: 'create', exchange, base, outcome: 'acknowledged', name, pet, status: answered };
  }
  // No answer, a 5xx, or a 2xx whose pet cannot be read: it may or may not have taken effect.
  return { kind: 'create', exchange, base, outcome: 'unknown', name, pet: undefined, status: sentStatus };
}
