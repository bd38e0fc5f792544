// Concurrent store traffic for the history's tests: clients creating pets, getting them and walking
// the list by its next links, all at once, each request recorded as an Exchange with its send and
// receive times on one clock; then a quiet round of walks and gets, with no create running.
import type { Exchange } from '../../exchange.ts';
import { linkWithRel, parseLinks } from '../../../spec/rules/link.js';
import { PET_STATUSES } from '../../../spec/rules/contract.js';

export interface Traffic {
  /** The API's base URL (…/v1). */
  base: string;
  authorization: string;
  clients: number;
  /** Operations (a create, a get, a whole walk) per client in the concurrent round. */
  opsPerClient: number;
  /** Names of created pets start with it. */
  token: string;
  seed?: number;
}

const STATUSES = PET_STATUSES;

export async function storeTraffic(t: Traffic): Promise<{ exchanges: Exchange[]; created: number[] }> {
  const exchanges: Exchange[] = [];
  const created: number[] = [];
  let seq = 0;
  // mulberry32: the same traffic for the same seed.
  let state = t.seed ?? 7;
  const random = (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let x = Math.imul(state ^ (state >>> 15), 1 | state);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) % n;
  };

  const send = async (method: string, url: string, body?: unknown): Promise<Exchange> => {
    const headers: Record<string, string> = { authorization: t.authorization, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) };
    const path = new URL(url).pathname;
    const exchange: Exchange = {
      seq: ++seq,
      operationId: method === 'POST' ? 'createPet' : /\/pets\/\d+$/.test(path) ? 'getPet' : 'listPets',
      purpose: `${method} ${path}`,
      request: { method, url, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) },
      sentAt: Date.now(),
      receivedAt: 0,
    };
    exchanges.push(exchange);
    try {
      const res = await fetch(url, { method, headers, ...(exchange.request.body !== undefined ? { body: exchange.request.body } : {}) });
      const text = await res.text();
      exchange.receivedAt = Date.now();
      exchange.response = { status: res.status, headers: Object.fromEntries(res.headers), body: text };
    } catch (error) {
      exchange.receivedAt = Date.now();
      exchange.error = (error as Error).message;
    }
    return exchange;
  };

  const walk = async (query: string) => {
    let url: string | undefined = `${t.base}/pets${query}`;
    for (let pages = 0; url && pages < 200; pages++) {
      const page = await send('GET', url);
      const next = linkWithRel(parseLinks(page.response?.headers['link']), 'next');
      url = next ? new URL(next.target, url).href : undefined;
    }
  };

  const client = async (c: number) => {
    for (let i = 0; i < t.opsPerClient; i++) {
      const pick = random(3);
      if (pick === 0) {
        const status = random(4);
        const ex = await send('POST', `${t.base}/pets`, {
          name: `${t.token}-${c}-${i}`,
          categoryId: 1 + random(3),
          ...(status < 3 ? { status: STATUSES[status] } : {}),
        });
        if (ex.response?.status === 201) created.push((JSON.parse(ex.response.body) as { id: number }).id);
      } else if (pick === 1 && created.length > 0) await send('GET', `${t.base}/pets/${created[random(created.length)]}`);
      else {
        const status = random(4);
        await walk(`?limit=${3 + random(8)}${status < 3 ? `&status=${STATUSES[status]}` : ''}`);
      }
    }
  };
  await Promise.all(Array.from({ length: t.clients }, (_, c) => client(c)));
  // The quiet round: nothing is created while these read.
  await Promise.all([
    walk('?limit=4'),
    ...STATUSES.map((s) => walk(`?limit=5&status=${s}`)),
    ...created.slice(0, 16).map((id) => send('GET', `${t.base}/pets/${id}`)),
  ]);
  return { exchanges, created };
}
