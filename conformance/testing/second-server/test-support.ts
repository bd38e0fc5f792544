// What the second server's test files share: starting a server on a manual clock, one request
// with every answer's X-RateLimit-* and IETF fields checked, raw exchanges, and the assertions on
// errors and pets. No tests here.
import { connect } from 'node:net';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../server/clock.ts';
import { parseInteger } from '../../../spec/rules/fields.js';
import { parseRateLimit, parseRateLimitPolicy, type RateLimitPolicy, type RateLimitState } from '../../../spec/rules/structured-fields.js';
import { startSecondServer, type SecondServer, type SecondServerOptions, type SeedPet } from './index.ts';
import { LOWER_HEADERS } from '../../../spec/rules/contract.js';

export interface Running {
  server: SecondServer;
  clock: ManualClock;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface Call {
  method?: string;
  /** The bearer key; null sends no Authorization. Default: the pro key. */
  key?: string | null;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Shorthand for a JSON body with Content-Type: application/json. */
  json?: unknown;
}

// A second after the window opened, not on a minute boundary: windows here are not clock-aligned.
export const START_MS = Date.UTC(2026, 0, 1, 0, 0, 12, 345);

export async function start(options: SecondServerOptions = {}): Promise<Running> {
  const clock = new ManualClock(START_MS);
  return { server: await startSecondServer({ clock, ...options }), clock };
}

export async function withServer(options: SecondServerOptions, run: (r: Running) => Promise<void>): Promise<void> {
  const running = await start(options);
  try {
    await run(running);
  } finally {
    await running.server.close();
  }
}

/**
 * A race gap (`race.gap`) that, once armed for `n`, holds each reader until `n` are waiting and then
 * lets them all go, so that they all read the same value whatever the timing. Unarmed, it only yields.
 */
export function raceBarrier(): { gap: () => Promise<void>; arm(n: number): void } {
  let size = 0;
  let waiting: Array<() => void> = [];
  return {
    arm: (n) => {
      size = n;
    },
    gap: () =>
      new Promise<void>((resolve) => {
        if (size === 0) return resolve();
        waiting.push(resolve);
        if (waiting.length < size) return;
        for (const open of waiting) open();
        waiting = [];
        size = 0;
      }),
  };
}

export const pets = (n: number, status: SeedPet['status'] = 'available'): SeedPet[] =>
  Array.from({ length: n }, (_, i) => ({ name: `Pet ${i + 1}`, categoryId: 1 + (i % 3), status }));

export interface Ietf {
  policies: RateLimitPolicy[];
  states: RateLimitState[];
}

/**
 * RateLimit-Policy and RateLimit parsed back, held to what every answer of the API must show. A
 * window's t from `nowMs` (the server's clock) may end a second either side of X-RateLimit-Reset:
 * both are the same instant rounded up.
 */
export function ietfFields(get: (name: string) => string | null | undefined, nowMs: number, context: string): Ietf {
  const policies = parseRateLimitPolicy(get(LOWER_HEADERS.rateLimitPolicy));
  const states = parseRateLimit(get(LOWER_HEADERS.rateLimit));
  assert.ok(policies && policies.length > 0, `${context}: RateLimit-Policy ${get(LOWER_HEADERS.rateLimitPolicy)}`);
  assert.ok(states, `${context}: RateLimit ${get(LOWER_HEADERS.rateLimit)}`);
  assert.equal(
    states.map((st) => st.name),
    policies.map((p) => p.name),
    `${context}: the same windows in both fields`,
  );
  states.forEach((st, i) => {
    assert.ok(st.remaining <= policies[i]!.quota, `${context}: ${st.name} r=${st.remaining} over its quota`);
    assert.ok(st.reset !== undefined && st.reset >= 1, `${context}: ${st.name} t=${st.reset}`);
  });
  const limit = Number(get(LOWER_HEADERS.rateLimitLimit));
  const remaining = Number(get(LOWER_HEADERS.rateLimitRemaining));
  const reset = Number(get(LOWER_HEADERS.rateLimitReset));
  assert.ok(
    policies.some((p) => p.quota === limit),
    `${context}: no policy has q=${limit} as X-RateLimit-Limit says`,
  );
  assert.ok(
    states.some((st) => st.remaining === remaining && Math.abs(nowMs / 1000 + st.reset! - reset) < 1),
    `${context}: no RateLimit item has r=${remaining} and t=${reset - nowMs / 1000} (±1) as X-RateLimit-* say: ${get(LOWER_HEADERS.rateLimit)}`,
  );
  return { policies, states };
}

/** The IETF fields of a reply `call` has already checked. */
export const ietf = (reply: Reply): Ietf => ({
  policies: parseRateLimitPolicy(reply.headers.get(LOWER_HEADERS.rateLimitPolicy))!,
  states: parseRateLimit(reply.headers.get(LOWER_HEADERS.rateLimit))!,
});

/** Seconds from the clock's now until `endMs`, rounded up: the `t` RateLimit must name for a window ending then. */
export const until = (r: Running, endMs: number) => Math.ceil((endMs - r.clock.now()) / 1000);

/** Sends one request; every answer of the API must carry X-RateLimit-* as integers, and the IETF fields agreeing with them. */
export async function call({ server, clock }: Running, path: string, options: Call = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? server.keys.pro : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const url = /^https?:/.test(path) ? path : `${server.baseUrl}${path}`;
  const res = await fetch(url, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : new Uint8Array(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  for (const name of [LOWER_HEADERS.rateLimitLimit, LOWER_HEADERS.rateLimitRemaining, LOWER_HEADERS.rateLimitReset]) {
    assert.ok(parseInteger(res.headers.get(name)) !== null, `${res.status} to ${path} has ${name} ${res.headers.get(name)}`);
  }
  ietfFields((name) => res.headers.get(name), clock.now(), `${res.status} to ${path}`);
  return { status: res.status, headers: res.headers, text, body: parsed };
}

export const rate = (reply: Reply) => ({
  limit: Number(reply.headers.get(LOWER_HEADERS.rateLimitLimit)),
  remaining: Number(reply.headers.get(LOWER_HEADERS.rateLimitRemaining)),
  reset: Number(reply.headers.get(LOWER_HEADERS.rateLimitReset)),
});

export function assertError(reply: Reply, status: number, code: string, context = ''): void {
  assert.is(reply.status, status, `${context}: ${reply.text}`);
  assert.match(reply.headers.get('content-type') ?? '', /^application\/json\b/, context);
  assert.equal(Object.keys(reply.body ?? {}).sort(), ['code', 'message', 'status'], `${context}: ${reply.text}`);
  assert.is(reply.body.code, code, context);
  assert.is(reply.body.status, status, context);
  assert.ok(typeof reply.body.message === 'string' && reply.body.message.length > 0, context);
}

export function assertPet(value: unknown): void {
  assert.ok(value !== null && typeof value === 'object', JSON.stringify(value));
  assert.equal(Object.keys(value as object).sort(), ['categoryId', 'id', 'name', 'status'], JSON.stringify(value));
}

export const ids = (reply: Reply) => (reply.body as Array<{ id: number }>).map((p) => p.id);

export interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `chunks` on a fresh connection and reads until the server closes it. */
export function exchange(server: SecondServer, chunks: Array<string | Buffer>, limitMs = 3000): Promise<Raw> {
  const { hostname, port } = new URL(server.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => chunks.forEach((c) => socket.write(c)));
    const parts: Buffer[] = [];
    socket.on('data', (d: Buffer) => parts.push(d));
    socket.on('error', reject);
    const timer = setTimeout(() => socket.destroy(new Error(`still open after ${limitMs} ms: ${Buffer.concat(parts).toString().slice(0, 200)}`)), limitMs);
    socket.on('close', (hadError) => {
      clearTimeout(timer);
      if (hadError) return;
      const text = Buffer.concat(parts).toString('utf8');
      const cut = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...lines] = text.slice(0, cut).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: text.slice(cut + 4) });
    });
  });
}
