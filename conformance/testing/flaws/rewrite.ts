// The small rewrites flaws are made of: which operation a request is, and editing JSON bodies,
// queries and headers on their way through the flaw proxy.
import type { OperationId } from '../../../spec/contract-types.ts';
import { parseInteger } from '../../../spec/rules/fields.js';
import type { FlawState, ProxyRequest, ProxyResponse } from './proxy.ts';

/** What a flaw keeps in its memory under `name`, made by `fresh` the first time it is asked for. */
export function remembered<T>(memory: FlawState['memory'], name: string, fresh: () => T): T {
  let value = memory.get(name) as T | undefined;
  if (value === undefined) memory.set(name, (value = fresh()));
  return value;
}

export function operationOf(req: ProxyRequest): OperationId | undefined {
  const path = req.url.split('?')[0] ?? '';
  if (/\/pets\/?$/.test(path)) return req.method === 'POST' ? 'createPet' : req.method === 'GET' ? 'listPets' : undefined;
  if (/\/pets\/[^/]+$/.test(path) && req.method === 'GET') return 'getPet';
  return undefined;
}

export function mapJson(res: ProxyResponse, fn: (body: unknown) => unknown): ProxyResponse {
  try {
    return { ...res, body: JSON.stringify(fn(JSON.parse(res.body))) };
  } catch {
    return res;
  }
}

/** Applies fn to every pet in a Pet or Pets body. */
export function mapPets(res: ProxyResponse, fn: (pet: Record<string, unknown>) => Record<string, unknown>): ProxyResponse {
  if (res.status >= 300) return res;
  return mapJson(res, (body) =>
    Array.isArray(body) ? body.map((p) => fn(p as Record<string, unknown>)) : body && typeof body === 'object' ? fn(body as Record<string, unknown>) : body,
  );
}

export function mapErrors(res: ProxyResponse, fn: (error: Record<string, unknown>) => Record<string, unknown>): ProxyResponse {
  if (res.status < 400) return res;
  return mapJson(res, (body) => (body && typeof body === 'object' && !Array.isArray(body) ? fn(body as Record<string, unknown>) : body));
}

export function withQuery(req: ProxyRequest, edit: (q: URLSearchParams) => void): ProxyRequest {
  const [path, query = ''] = req.url.split('?');
  const params = new URLSearchParams(query);
  edit(params);
  const q = params.toString();
  return { ...req, url: q ? `${path}?${q}` : path! };
}

export function withoutHeaders(res: ProxyResponse, ...names: string[]): ProxyResponse {
  const headers = { ...res.headers };
  for (const n of names) delete headers[n];
  return { ...res, headers };
}

/** A rate-limit header the flaw rewrites, when the server sent it as an integer. */
export function num(res: ProxyResponse, name: string): number | undefined {
  return parseInteger(res.headers[name]) ?? undefined;
}
