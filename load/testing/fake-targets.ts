// Synchronous fake implementations of the API for the k6 shim (k6-shim.ts): a correct fixed-window
// limiter and the flawed ones the load scripts must catch, plus a small pets service. Time is the
// shim's fake clock, passed in with every request.
import { formatHttpDate } from '../../spec/rules/fields.js';
import type { FakeRequest, FakeResponse, Handler } from './k6-shim.ts';
import { HEADERS } from '../../spec/rules/contract.js';

export type LimiterFault = 'none' | 'over-admit' | 'stuck-remaining' | 'moving-reset' | 'retry-after-zero' | 'no-reset' | 'ban-unenforced';

export interface LimiterOptions {
  limit: number;
  fault?: LimiterFault;
  /** Ban the key after this many 429s in one window; 0 never bans. */
  banAfter?: number;
  banSeconds?: number;
  keys?: string[];
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): FakeResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const bearer = (req: FakeRequest) => /^Bearer (.+)$/.exec(req.headers.Authorization ?? '')?.[1];

/** A per-minute limiter on every request, with or without one deliberate fault. */
export function limitedTarget(opts: LimiterOptions, inner: Handler = () => json(200, [])): Handler {
  const fault = opts.fault ?? 'none';
  const counts = new Map<number, number>();
  const refusals = new Map<number, number>();
  const sliding: number[] = [];
  let banUntil = 0;
  let banWindow = 0;
  return (req, now) => {
    const key = bearer(req);
    if (key === undefined || (opts.keys && !opts.keys.includes(key))) return json(401, { code: 'unauthorized', message: 'no key', status: 401 });
    const nowS = now / 1000;
    const windowStart = Math.floor(nowS / 60) * 60;
    let reset = windowStart + 60;
    const base = { Date: formatHttpDate(now), [HEADERS.rateLimitLimit]: String(opts.limit) };
    const refuse = (retryAfter: number, remaining = 0) => {
      refusals.set(windowStart, (refusals.get(windowStart) ?? 0) + 1);
      if (opts.banAfter && (refusals.get(windowStart) ?? 0) >= opts.banAfter && banUntil <= now) {
        banUntil = now + (opts.banSeconds ?? 300) * 1000;
        banWindow = windowStart;
      }
      return json(
        429,
        { code: 'rate_limited', message: 'slow down', status: 429 },
        {
          ...base,
          [HEADERS.rateLimitRemaining]: String(remaining),
          [HEADERS.rateLimitReset]: String(reset),
          'Retry-After': String(retryAfter),
          'Cache-Control': 'no-store',
        },
      );
    };
    // ban-unenforced announces the ban, then admits the key again as soon as its window reopens.
    if (banUntil > now && !(fault === 'ban-unenforced' && windowStart > banWindow)) return refuse(Math.ceil((banUntil - now) / 1000));
    let admitted: boolean;
    let remaining: number;
    if (fault === 'moving-reset') {
      while (sliding.length && sliding[0]! <= now - 60_000) sliding.shift();
      // Two minutes away, always: past the 60 s window, so no reading (not even a moving window whose Reset is when it is empty) explains it.
      reset = Math.floor(nowS) + 120;
      admitted = sliding.length < opts.limit;
      if (admitted) sliding.push(now);
      remaining = opts.limit - sliding.length;
    } else {
      if (fault === 'no-reset') reset = Math.floor(Date.UTC(2026, 0, 1) / 1000);
      const used = counts.get(windowStart) ?? 0;
      const cap = fault === 'over-admit' ? opts.limit + 2 : opts.limit;
      admitted = used < cap;
      if (admitted) counts.set(windowStart, used + 1);
      remaining = Math.max(0, opts.limit - (used + 1));
      if (fault === 'stuck-remaining') remaining = opts.limit - 1;
    }
    if (!admitted) return refuse(fault === 'retry-after-zero' ? 0 : Math.max(1, Math.ceil(reset - nowS)));
    const res = inner(req, now);
    return {
      ...res,
      headers: { ...res.headers, ...base, [HEADERS.rateLimitRemaining]: String(remaining), [HEADERS.rateLimitReset]: String(reset) },
    };
  };
}

export type PetsFault = 'none' | 'wrapped-list' | 'no-rate-limit-headers' | 'ignores-status' | 'slow';

/** The three operations over an in-memory store, in the contract's shapes, with generous limits. */
export function petsTarget(fault: PetsFault = 'none'): Handler {
  const pets: Array<{ id: number; name: string; categoryId: number; status: string }> = [
    { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
    { id: 2, name: 'Pepper', categoryId: 2, status: 'pending' },
    { id: 3, name: 'Olive', categoryId: 1, status: 'sold' },
  ];
  const service: Handler = (req) => {
    const url = new URL(req.url);
    const path = url.pathname.replace(/^\/v1/, '');
    const latencyMs = fault === 'slow' ? 900 : 3;
    if (req.method === 'GET' && path === '/pets') {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const status = url.searchParams.get('status');
      const list = pets.filter((p) => fault === 'ignores-status' || !status || p.status === status).slice(0, limit);
      return { ...json(200, fault === 'wrapped-list' ? { items: list } : list), latencyMs };
    }
    if (req.method === 'POST' && path === '/pets') {
      const body = JSON.parse(req.body ?? 'null') as { name?: unknown; categoryId?: unknown; status?: unknown } | null;
      if (!body || typeof body.name !== 'string' || !Number.isInteger(body.categoryId)) {
        return { ...json(400, { code: 'validation_failed', message: '"name" is required', status: 400 }), latencyMs };
      }
      const pet = {
        id: pets.length + 1,
        name: body.name,
        categoryId: body.categoryId as number,
        status: typeof body.status === 'string' ? body.status : 'available',
      };
      pets.push(pet);
      return { ...json(201, pet, { Location: `/v1/pets/${pet.id}` }), latencyMs };
    }
    const m = /^\/pets\/(\d+)$/.exec(path);
    if (req.method === 'GET' && m) {
      const pet = pets.find((p) => p.id === Number(m[1]));
      return pet ? { ...json(200, pet), latencyMs } : { ...json(404, { code: 'not_found', message: 'no such pet', status: 404 }), latencyMs };
    }
    return json(404, { code: 'not_found', message: 'no route', status: 404 });
  };
  const limited = limitedTarget({ limit: 100_000 }, service);
  if (fault !== 'no-rate-limit-headers') return limited;
  return (req, now) => {
    const res = limited(req, now);
    const headers = Object.fromEntries(Object.entries(res.headers ?? {}).filter(([k]) => !/^x-ratelimit/i.test(k)));
    return { ...res, headers };
  };
}

/** A target whose latency climbs once the offered rate passes `kneePerSecond`. */
export function kneeTarget(kneePerSecond: number): Handler {
  const pets = petsTarget();
  const recent: number[] = [];
  return (req, now) => {
    while (recent.length && recent[0]! <= now - 1000) recent.shift();
    recent.push(now);
    const res = pets(req, now);
    return { ...res, latencyMs: recent.length > kneePerSecond ? 400 : 4 };
  };
}
