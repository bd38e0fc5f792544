// What a fault scenario did to its creates, counted alike in postgres-scenarios.ts and
// workers-scenarios.ts: acknowledged, lost, duplicated, reused ids, 5xx without an Error body, exits.
// Each request has a connection of its own (no keep-alive pool) and a bound: one that neither answers
// nor fails within it is counted as hung, never waited for.
import http from 'node:http';
import { bodies } from './leaks.ts';

export interface CreateOutcome {
  name: string;
  /** The HTTP status; 'error' when the connection failed, 'hung' when nothing came within the bound. */
  status: number | 'error' | 'hung';
  body: unknown;
  retryAfter: string | null;
  /** How long until the answer, the failure or the bound. */
  ms: number;
  /** The socket error's code, when the connection failed. */
  error?: string;
}

/** One request; settles within `boundMs` whatever the server or the network does. */
export function request(
  url: string,
  init: { method?: string; body?: string; headers?: Record<string, string> },
  boundMs: number,
): Promise<Omit<CreateOutcome, 'name'>> {
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    const settle = (outcome: Omit<CreateOutcome, 'name' | 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, ms: Date.now() - started });
    };
    const req = http.request(url, { method: init.method ?? 'GET', agent: false, headers: init.headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (error: NodeJS.ErrnoException) => settle({ status: 'error', body: null, retryAfter: null, error: error.code ?? error.message }));
      res.on('end', () => {
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: counted as a body without the Error shape
        }
        const retryAfter = res.headers['retry-after'];
        bodies.see(url, res.statusCode ?? 0, body);
        settle({ status: res.statusCode ?? 0, body, retryAfter: typeof retryAfter === 'string' ? retryAfter : null });
      });
    });
    const timer = setTimeout(() => {
      settle({ status: 'hung', body: null, retryAfter: null });
      req.destroy();
    }, boundMs);
    req.on('error', (error: NodeJS.ErrnoException) => settle({ status: 'error', body: null, retryAfter: null, error: error.code ?? error.message }));
    req.end(init.body);
  });
}

/** A key whose limits never get in the way of a fault scenario. */
export const KEY = 'Bearer test-enterprise-key';

const CREATE_HEADERS = { authorization: KEY, 'content-type': 'application/json' };

/** POST {apiBase}/pets of a pet named `name`. */
export async function create(apiBase: string, name: string, boundMs: number): Promise<CreateOutcome> {
  return { name, ...(await request(`${apiBase}/pets`, { method: 'POST', headers: CREATE_HEADERS, body: JSON.stringify({ name, categoryId: 1 }) }, boundMs)) };
}

/** Whether `body` is the Error body `{ code, message, status }` of an answer with `status`. */
export function isErrorBody(body: unknown, status: number): boolean {
  const { code, message, status: said } = (body ?? {}) as Record<string, unknown>;
  return typeof code === 'string' && typeof message === 'string' && said === status;
}

export interface Tally {
  scenario: string;
  sent: number;
  acknowledged: number;
  /** Answered 503 with the Error body and Retry-After: refused honestly. */
  refused: number;
  /** No answer: the connection failed (a reset when a process died). */
  failed: number;
  hung: number;
  /** Acknowledged (201) but not in the store under its id and name. */
  lost: number;
  /** Names stored more than once. */
  duplicated: number;
  /** Ids acknowledged for more than one pet. */
  reusedIds: number;
  bare5xx: number;
  /** Server processes that exited although nothing asked them to. */
  exits: number;
}

/** A round of a scenario counted by a Tally: the tally, and what the round checked that its columns do not say. */
export interface Checked {
  tally: Tally;
  checks: Record<string, boolean>;
}

/** Counts `outcomes` against `stored`, the pets the store holds afterwards (those the scenario named). */
export function tally(scenario: string, outcomes: readonly CreateOutcome[], stored: readonly { id: number; name: string }[], exits: number): Tally {
  const acknowledged = outcomes.filter((o) => o.status === 201);
  const byId = new Map(stored.map((p) => [Number(p.id), p.name]));
  const names = new Map<string, number>();
  for (const pet of stored) names.set(pet.name, (names.get(pet.name) ?? 0) + 1);
  const ackIds = new Map<number, number>();
  for (const o of acknowledged) {
    const id = (o.body as { id: number }).id;
    ackIds.set(id, (ackIds.get(id) ?? 0) + 1);
  }
  return {
    scenario,
    sent: outcomes.length,
    acknowledged: acknowledged.length,
    refused: outcomes.filter((o) => o.status === 503 && isErrorBody(o.body, 503) && o.retryAfter !== null).length,
    failed: outcomes.filter((o) => o.status === 'error').length,
    hung: outcomes.filter((o) => o.status === 'hung').length,
    lost: acknowledged.filter((o) => byId.get((o.body as { id: number }).id) !== o.name).length,
    duplicated: [...names.values()].filter((n) => n > 1).length,
    reusedIds: [...ackIds.values()].filter((n) => n > 1).length,
    bare5xx: outcomes.filter((o) => typeof o.status === 'number' && o.status >= 500 && !isErrorBody(o.body, o.status)).length,
    exits,
  };
}

const COLUMNS: [keyof Tally, string][] = [
  ['sent', 'sent'],
  ['acknowledged', 'acknowledged'],
  ['refused', '503+Retry-After'],
  ['failed', 'connection error'],
  ['hung', 'hung'],
  ['lost', 'lost'],
  ['duplicated', 'duplicated'],
  ['reusedIds', 'reused ids'],
  ['bare5xx', '5xx without Error body'],
  ['exits', 'process exits'],
];
let headed = false;

/** Prints the scenario's line, under a header the first time. */
export function printTally(t: Tally): void {
  if (!headed) {
    headed = true;
    process.stdout.write(`\n${'scenario'.padEnd(50)} ${COLUMNS.map(([, title]) => title).join(' | ')}\n`);
  }
  process.stdout.write(`${t.scenario.padEnd(50)} ${COLUMNS.map(([key, title]) => String(t[key]).padStart(title.length)).join(' | ')}\n`);
}
