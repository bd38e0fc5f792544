// Store exchanges written by hand for the history's tests: a create, a get and a list page, each with
// its send and receive times, numbered in the order they are written.
import type { Exchange } from '../../exchange.ts';
import { formatLinks } from '../../../spec/rules/link.js';

export interface TestPet {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

const BASE = 'http://store.test/v1';
let seq = 0;

export function pet(id: number, name: string, status = 'available'): TestPet {
  return { id, name, categoryId: 1, status };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** A create of `p` (the id is what a 2xx answers): answered 201 with it, another status, or no answer. */
export function createPet(at: [number, number], p: TestPet, answer: { status: number } | 'none' = { status: 201 }): Exchange {
  const request = {
    method: 'POST',
    url: `${BASE}/pets`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: p.name, categoryId: p.categoryId, status: p.status }),
  };
  const base = { seq: ++seq, operationId: 'createPet' as const, purpose: 'create', request, sentAt: at[0], receivedAt: at[1] };
  if (answer === 'none') return { ...base, error: 'socket hang up' };
  const ok = answer.status >= 200 && answer.status < 300;
  return { ...base, response: json(answer.status, ok ? p : { code: 'refused', message: 'refused', status: answer.status }) };
}

export function getPet(at: [number, number], id: number, found: TestPet | 404): Exchange {
  return {
    seq: ++seq,
    operationId: 'getPet',
    purpose: 'get',
    request: { method: 'GET', url: `${BASE}/pets/${id}`, headers: {} },
    response: found === 404 ? json(404, { code: 'not_found', message: 'no such pet', status: 404 }) : json(200, found),
    sentAt: at[0],
    receivedAt: at[1],
  };
}

/** A list page of `query` ('?limit=5'), with a next link to `next` (a query of /v1/pets) when given. */
export function listPage(at: [number, number], query: string, items: TestPet[], next?: string): Exchange {
  return {
    seq: ++seq,
    operationId: 'listPets',
    purpose: 'list',
    request: { method: 'GET', url: `${BASE}/pets${query}`, headers: {} },
    response: json(200, items, next !== undefined ? { link: formatLinks([{ target: `/v1/pets${next}`, params: { rel: 'next' } }]) } : {}),
    sentAt: at[0],
    receivedAt: at[1],
  };
}

/** The same exchanges in another order, the same for the same seed. */
export function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed * 2654435761;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
