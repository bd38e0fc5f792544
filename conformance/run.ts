// runConformance: the programmatic API behind `npm run conform`. It sends the fewest requests that
// decide each check, keeps every exchange, and validates every response against the description.
import { randomBytes } from 'node:crypto';
import { checkDef, type Profile } from './catalogue.ts';
import { runDredd, type DreddOutcome } from './dredd.ts';
import { parseDeprecation, parseHttpDate, parseLinks, linkWithRel, parseRetryAfter, parseStructuredList, retryAt } from './fields.ts';
import { HttpClient, jsonBody, UnreachableError, type Clock, type Exchange, type SendOptions } from './http.ts';
import { Ledger, type CheckResult } from './ledger.ts';
import { DEFAULT_SPEC_PATH, loadContract, parseHeaderNumber, validateResponse, type Contract } from './openapi.ts';

export { UnreachableError } from './http.ts';
export type { CheckResult, Outcome } from './ledger.ts';

export interface RunOptions {
  /** The prefix `/pets` is appended to, e.g. http://127.0.0.1:3000/v1. */
  baseUrl: string;
  apiKey: string;
  /** A key whose minute window the rate-limit checks may exhaust. Without it they do not run. */
  rateLimitKey?: string;
  profile?: Profile;
  /** Send Prism's `Prefer: code=NNN` where a stateless mock cannot pick the status itself (contract checks only). */
  prefer?: boolean;
  /** Run Dredd as part of the contract checks (default true). */
  dredd?: boolean;
  /** Wait for Retry-After to check re-admission (default true); false reports that check as not run. */
  wait?: boolean;
  /** Longest single wait the run accepts, in seconds (default 120). */
  maxWaitSeconds?: number;
  /** Also repeat requests after a 429 to see a temporary ban (needs rateLimitKey). */
  banCheck?: boolean;
  /** How many requests the ban check sends after the first 429 (default 10). */
  banProbe?: number;
  /** Refuse to exhaust a window larger than this many requests (default 1100). */
  maxRateLimitRequests?: number;
  /** Allowed disagreement between the client's and server's clocks, in seconds (default 2). */
  clockToleranceSeconds?: number;
  timeoutMs?: number;
  strict?: boolean;
  specPath?: string;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  onProgress?: (event: ProgressEvent) => void;
}

export type ProgressEvent =
  | { type: 'phase'; name: string }
  | { type: 'request'; exchange: Exchange }
  | { type: 'wait'; ms: number; why: string }
  | { type: 'dredd'; outcome: DreddOutcome };

export interface Counts {
  passed: number;
  failed: number;
  warned: number;
  notRun: number;
}

export interface Report {
  target: string;
  profile: Profile;
  strict: boolean;
  startedAt: string;
  durationMs: number;
  requests: number;
  results: CheckResult[];
  counts: Counts;
  /** 0 when no check failed, 1 otherwise. */
  exitCode: 0 | 1;
  dredd?: DreddOutcome;
  /** Checks that sent Prism's Prefer header. */
  preferUsed: string[];
}

/** An id no implementation has handed out: the largest safe integer, well inside int64. */
const UNKNOWN_PET_ID = Number.MAX_SAFE_INTEGER;

interface Context {
  http: HttpClient;
  ledger: Ledger;
  contract: Contract;
  options: Required<Omit<RunOptions, 'rateLimitKey' | 'onProgress' | 'clock' | 'sleep'>> & Pick<RunOptions, 'rateLimitKey'>;
  clock: Clock;
  sleep: (ms: number) => Promise<void>;
  progress: (event: ProgressEvent) => void;
  token: string;
  preferUsed: string[];
  /** Facts the contract checks leave for the behaviour checks. */
  list?: Exchange;
  created?: { sent: Record<string, unknown>; exchange: Exchange; id?: number };
  getCreated?: Exchange;
  notFound?: { exchange: Exchange; preferred: boolean };
}

function header(exchange: Exchange, name: string): string | undefined {
  return exchange.response?.headers[name.toLowerCase()];
}

function status(exchange: Exchange): number | undefined {
  return exchange.response?.status;
}

function describeStatus(exchange: Exchange): string {
  if (exchange.error) return `no response (${exchange.error})`;
  return `status ${exchange.response?.status}`;
}

function isPetArray(value: unknown): value is Array<Record<string, unknown>> {
  return Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object');
}

async function send(ctx: Context, options: SendOptions): Promise<Exchange> {
  const exchange = await ctx.http.send(options);
  ctx.progress({ type: 'request', exchange });
  return exchange;
}

/** Status as documented and every documented header and body rule. */
function expectResponse(ctx: Context, id: string, exchange: Exchange, expected: number): boolean {
  if (!exchange.response) {
    ctx.ledger.fail(id, `expected ${expected}, got ${describeStatus(exchange)}`, [exchange]);
    return false;
  }
  if (exchange.response.status !== expected) {
    const withKey = exchange.request.headers.authorization === ctx.http.bearer();
    const hint =
      exchange.response.status !== 429
        ? ''
        : withKey
          ? ' (rate limited: give --api-key a key with more room than this run needs, about 35 requests)'
          : ' (rate limited: the server limits requests without a valid key, probably per address; run again after its Retry-After)';
    ctx.ledger.fail(id, `expected ${expected}, got ${exchange.response.status}${hint}`, [exchange]);
    return false;
  }
  const problems = validateResponse(ctx.contract, exchange.operationId, exchange.response);
  return ctx.ledger.assert(id, problems.length === 0, problems.map((p) => `${p.where} ${p.message}`).join('; '), [exchange]);
}

function preferHeaders(ctx: Context, id: string, code: number): Record<string, string> | undefined {
  if (!ctx.options.prefer) return undefined;
  ctx.preferUsed.push(id);
  ctx.ledger.note(id, `sent Prefer: code=${code} (--prefer)`);
  return { prefer: `code=${code}` };
}

async function contractChecks(ctx: Context): Promise<void> {
  ctx.progress({ type: 'phase', name: 'contract: status codes, headers, bodies, auth' });
  const { ledger } = ctx;
  const list = await send(ctx, { operationId: 'listPets', purpose: 'list without parameters', method: 'GET', path: '/pets' });
  if (list.error) throw new UnreachableError(`cannot reach ${list.request.url}: ${list.error}`);
  ctx.list = list;
  expectResponse(ctx, 'list.200', list, 200);

  const statuses = ctx.contract.petStatuses;
  const sent = { name: `conformance-${ctx.token}`, categoryId: 3, status: statuses[1] ?? statuses[0] ?? 'available' };
  const created = await send(ctx, { operationId: 'createPet', purpose: 'create a valid pet', method: 'POST', path: '/pets', json: sent });
  const createdBody = jsonBody(created) as Record<string, unknown> | undefined;
  ctx.created = { sent, exchange: created };
  expectResponse(ctx, 'create.201', created, 201);
  if (status(created) === 201 && typeof createdBody?.id === 'number') ctx.created.id = createdBody.id;

  const invalidBodies: Array<[string, string, unknown]> = [
    ['create.400-missing', 'create without name', { categoryId: 3 }],
    ['create.400-missing', 'create without categoryId', { name: `conformance-${ctx.token}-b` }],
    ['create.400-invalid', 'create with a string categoryId', { name: `conformance-${ctx.token}-c`, categoryId: 'three' }],
    ['create.400-invalid', 'create with a status outside PetStatus', { name: `conformance-${ctx.token}-d`, categoryId: 3, status: 'adopted' }],
  ];
  for (const [id, purpose, json] of invalidBodies) {
    const ex = await send(ctx, { operationId: 'createPet', purpose, method: 'POST', path: '/pets', json });
    expectResponse(ctx, id, ex, 400);
  }

  const listed = jsonBody(list);
  const knownId = ctx.created.id ?? (isPetArray(listed) && typeof listed[0]?.id === 'number' ? (listed[0].id as number) : 1);
  const got = await send(ctx, { operationId: 'getPet', purpose: `get pet ${knownId}`, method: 'GET', path: `/pets/${knownId}` });
  if (knownId === ctx.created.id) ctx.getCreated = got;
  expectResponse(ctx, 'get.200', got, 200);

  const prefer404 = preferHeaders(ctx, 'get.404', 404);
  const missing = await send(ctx, {
    operationId: 'getPet',
    purpose: 'get an unknown pet',
    method: 'GET',
    path: `/pets/${UNKNOWN_PET_ID}`,
    ...(prefer404 ? { headers: prefer404 } : {}),
  });
  ctx.notFound = { exchange: missing, preferred: prefer404 !== undefined };
  expectResponse(ctx, 'get.404', missing, 404);

  const unauthenticated: SendOptions[] = [
    { operationId: 'listPets', purpose: 'list without Authorization', method: 'GET', path: '/pets', authorization: null },
    { operationId: 'createPet', purpose: 'create without Authorization', method: 'POST', path: '/pets', authorization: null, json: sent },
    { operationId: 'getPet', purpose: 'get without Authorization', method: 'GET', path: `/pets/${knownId}`, authorization: null },
  ];
  for (const options of unauthenticated) expectResponse(ctx, 'auth.401-missing', await send(ctx, options), 401);

  const basic = `Basic ${Buffer.from(`${ctx.options.apiKey}:`).toString('base64')}`;
  const wrongScheme = await send(ctx, { operationId: 'listPets', purpose: 'list with the key under the Basic scheme', method: 'GET', path: '/pets', authorization: basic });
  expectResponse(ctx, 'auth.401-scheme', wrongScheme, 401);
}

async function behaviourChecks(ctx: Context): Promise<void> {
  ctx.progress({ type: 'phase', name: 'full: behaviour (auth, persistence, limit, status, pagination)' });
  const { ledger, contract } = ctx;

  const unknownKey = await send(ctx, {
    operationId: 'listPets',
    purpose: 'list with an unknown key',
    method: 'GET',
    path: '/pets',
    authorization: ctx.http.bearer(`conformance-unknown-${ctx.token}`),
  });
  expectResponse(ctx, 'auth.401-unknown-key', unknownKey, 401);

  // Persistence: what was created is what is stored, retrievable and listed.
  const created = ctx.created;
  const createdOk = created?.id !== undefined && status(created.exchange) === 201;
  if (!created || !createdOk) {
    for (const id of ['create.echo', 'create.retrievable', 'create.unique-ids', 'create.listed']) ledger.notRun(id, 'create.201 did not return a pet with an id');
  } else {
    const body = jsonBody(created.exchange) as Record<string, unknown>;
    const differing = Object.entries(created.sent).filter(([k, v]) => body[k] !== v);
    ledger.assert('create.echo', differing.length === 0, `the 201 body differs from what was sent in ${differing.map(([k]) => k).join(', ')}`, [created.exchange]);

    const got = ctx.getCreated ?? (await send(ctx, { operationId: 'getPet', purpose: `get created pet ${created.id}`, method: 'GET', path: `/pets/${created.id}` }));
    const gotBody = jsonBody(got) as Record<string, unknown> | undefined;
    const expected = { ...created.sent, id: created.id };
    const mismatched = Object.entries(expected).filter(([k, v]) => gotBody?.[k] !== v);
    ledger.assert(
      'create.retrievable',
      status(got) === 200 && mismatched.length === 0,
      status(got) !== 200 ? `GET of the created pet ${created.id} answered ${describeStatus(got)}` : `GET of the created pet returned different ${mismatched.map(([k]) => k).join(', ')}`,
      [created.exchange, got],
    );

    const second = await send(ctx, {
      operationId: 'createPet',
      purpose: 'create a second pet',
      method: 'POST',
      path: '/pets',
      json: { ...created.sent, name: `${created.sent.name}-2` },
    });
    const secondId = (jsonBody(second) as Record<string, unknown> | undefined)?.id;
    ledger.assert(
      'create.unique-ids',
      status(second) === 201 && typeof secondId === 'number' && secondId !== created.id,
      status(second) !== 201 ? `the second create answered ${describeStatus(second)}` : `both pets got id ${String(secondId)}`,
      [created.exchange, second],
    );

    await checkListed(ctx, created.id!, String(created.sent.status));
  }

  // limit
  const limitOne = await send(ctx, { operationId: 'listPets', purpose: 'list with limit=1', method: 'GET', path: '/pets', query: { limit: 1 } });
  const limitMax = await send(ctx, { operationId: 'listPets', purpose: `list with limit=${contract.listLimit.maximum}`, method: 'GET', path: '/pets', query: { limit: contract.listLimit.maximum } });
  for (const [ex, limit] of [[limitOne, 1], [limitMax, contract.listLimit.maximum]] as const) {
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !Array.isArray(body)) ledger.fail('list.limit', `limit=${limit} answered ${describeStatus(ex)}`, [ex]);
    else ledger.assert('list.limit', body.length <= limit, `limit=${limit} returned ${body.length} pets`, [ex]);
  }
  const defaultList = ctx.list ? jsonBody(ctx.list) : undefined;
  if (ctx.list && Array.isArray(defaultList)) {
    ledger.assert('list.limit', defaultList.length <= contract.listLimit.default, `without limit ${defaultList.length} pets came back; the default is ${contract.listLimit.default}`, [ctx.list]);
  }
  for (const limit of [contract.listLimit.minimum - 1, contract.listLimit.maximum + 1]) {
    const ex = await send(ctx, { operationId: 'listPets', purpose: `list with limit=${limit}`, method: 'GET', path: '/pets', query: { limit } });
    ledger.assert('list.limit-bounds', status(ex) === 400, `limit=${limit} answered ${describeStatus(ex)}, expected 400`, [ex]);
  }

  // status filter
  for (const value of contract.petStatuses) {
    const ex = await send(ctx, { operationId: 'listPets', purpose: `list with status=${value}`, method: 'GET', path: '/pets', query: { status: value, limit: contract.listLimit.maximum } });
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !isPetArray(body)) {
      ledger.fail('list.status-filter', `status=${value} answered ${describeStatus(ex)}`, [ex]);
      continue;
    }
    const others = body.filter((p) => p.status !== value);
    ledger.assert('list.status-filter', others.length === 0, `status=${value} returned pets with status ${[...new Set(others.map((p) => String(p.status)))].join(', ')} (ids ${others.slice(0, 5).map((p) => String(p.id)).join(', ')})`, [ex]);
  }
  const badStatus = await send(ctx, { operationId: 'listPets', purpose: 'list with status=adopted', method: 'GET', path: '/pets', query: { status: 'adopted' } });
  ledger.assert('list.status-invalid', status(badStatus) === 400, `status=adopted answered ${describeStatus(badStatus)}, expected 400`, [badStatus]);

  // pagination: only what a page itself announces
  const next = linkWithRel(parseLinks(header(limitOne, 'link')), 'next');
  if (!next) {
    ledger.notRun('list.next-link', 'no Link rel="next" on a one-pet page (the pagination mechanism is left open by the specification)');
  } else {
    const target = new URL(next.target, limitOne.request.url).toString();
    const page2 = await send(ctx, { operationId: 'listPets', purpose: 'follow Link rel="next"', method: 'GET', path: target });
    const first = jsonBody(limitOne);
    const second = jsonBody(page2);
    const firstIds = new Set(isPetArray(first) ? first.map((p) => p.id) : []);
    if (status(page2) !== 200 || !isPetArray(second)) ledger.fail('list.next-link', `the next page answered ${describeStatus(page2)}`, [limitOne, page2]);
    else ledger.assert('list.next-link', second.every((p) => !firstIds.has(p.id)), 'the next page repeats pets of the first page', [limitOne, page2]);
  }

  // 404 without any hint: reuse the contract request when it carried no Prefer header.
  const notFound =
    ctx.notFound && !ctx.notFound.preferred
      ? ctx.notFound.exchange
      : await send(ctx, { operationId: 'getPet', purpose: 'get an unknown pet (no Prefer)', method: 'GET', path: `/pets/${UNKNOWN_PET_ID}` });
  expectResponse(ctx, 'get.404-unknown', notFound, 404);
}

async function checkListed(ctx: Context, id: number, petStatus: string): Promise<void> {
  const limit = ctx.contract.listLimit.maximum;
  const seen: Exchange[] = [];
  let path = '/pets';
  let query: SendOptions['query'] = { status: petStatus, limit };
  for (let page = 0; page < 10; page++) {
    const ex = await send(ctx, { operationId: 'listPets', purpose: `find created pet ${id} in the list`, method: 'GET', path, query });
    seen.push(ex);
    const body = jsonBody(ex);
    if (status(ex) !== 200 || !isPetArray(body)) {
      ctx.ledger.fail('create.listed', `listing answered ${describeStatus(ex)}`, [ex]);
      return;
    }
    if (body.some((p) => p.id === id)) {
      ctx.ledger.pass('create.listed');
      return;
    }
    const next = linkWithRel(parseLinks(header(ex, 'link')), 'next');
    if (!next) {
      if (body.length < limit) ctx.ledger.fail('create.listed', `pet ${id} is missing from the complete list of status=${petStatus}`, seen.slice(-2));
      else ctx.ledger.notRun('create.listed', `pet ${id} is not on the first full page and no Link rel="next" leads further`);
      return;
    }
    path = new URL(next.target, ex.request.url).toString();
    query = undefined;
  }
  ctx.ledger.notRun('create.listed', `pet ${id} not found within 10 pages`);
}

/** Checks over everything seen: headers on every response, error bodies, schemas, deprecation. */
function crossChecks(ctx: Context, profile: Profile): void {
  const { ledger, contract } = ctx;
  for (const ex of ctx.http.exchanges) {
    const res = ex.response;
    if (!res) {
      ledger.fail('schema.every-response', `no response: ${ex.error}`, [ex]);
      continue;
    }
    const problems = validateResponse(contract, ex.operationId, res);
    ledger.assert('schema.every-response', problems.length === 0, `${ex.purpose}: ${problems.map((p) => `${p.where} ${p.message}`).join('; ')}`, [ex]);

    const limit = parseHeaderNumber(res.headers['x-ratelimit-limit'] ?? '');
    const remaining = parseHeaderNumber(res.headers['x-ratelimit-remaining'] ?? '');
    const reset = parseHeaderNumber(res.headers['x-ratelimit-reset'] ?? '');
    const bad = [
      ['X-RateLimit-Limit', limit],
      ['X-RateLimit-Remaining', remaining],
      ['X-RateLimit-Reset', reset],
    ].filter(([, v]) => typeof v !== 'number' || v < 0);
    if (bad.length > 0) {
      ledger.fail('headers.rate-limit', `${ex.purpose} (${res.status}): ${bad.map(([n]) => n).join(', ')} missing or not a non-negative integer`, [ex]);
    } else {
      ledger.assert('headers.rate-limit', (remaining as number) <= (limit as number), `${ex.purpose}: Remaining ${remaining} exceeds Limit ${limit}`, [ex]);
    }

    if (res.status >= 400) {
      const body = jsonBody(ex) as Record<string, unknown> | undefined;
      ledger.assert('errors.status-field', body?.status === res.status, `${ex.purpose}: error body status is ${JSON.stringify(body?.status)}, HTTP status ${res.status}`, [ex]);
    }
    if (res.status === 401) {
      const challenge = res.headers['www-authenticate'];
      ledger.assert('auth.www-authenticate', challenge !== undefined && /(^|,)\s*bearer(\s|,|$)/i.test(challenge), `${ex.purpose}: WWW-Authenticate is ${challenge === undefined ? 'missing' : JSON.stringify(challenge)}`, [ex]);
    }

    if (profile !== 'full') continue;
    const op = contract.operations.get(ex.operationId);
    if (op?.deprecated) {
      const deprecation = res.headers.deprecation;
      const deprecatedAt = parseDeprecation(deprecation);
      ledger.assert('deprecation.header', deprecatedAt !== undefined, `${ex.purpose} (${res.status}): Deprecation is ${deprecation === undefined ? 'missing' : `${JSON.stringify(deprecation)}, not an RFC 9745 date (@<epoch seconds>)`}`, [ex]);
      const sunset = res.headers.sunset;
      const sunsetAt = sunset === undefined ? undefined : parseHttpDate(sunset);
      const sunsetDay = sunsetAt === undefined ? undefined : new Date(sunsetAt).toISOString().slice(0, 10);
      // The removal day comes from the description; any time on that day (UTC) will do.
      const announced = op.sunsetDate;
      const dayOk = announced === undefined || sunsetDay === announced;
      ledger.assert(
        'deprecation.sunset',
        sunsetAt !== undefined && dayOk && (deprecatedAt === undefined || deprecatedAt <= sunsetAt),
        `${ex.purpose} (${res.status}): Sunset is ${sunset === undefined ? 'missing' : sunsetAt === undefined ? `${JSON.stringify(sunset)}, not an HTTP-date` : !dayOk ? `${sunset}, not the announced removal day ${announced}` : `${sunset}, earlier than Deprecation`}`,
        [ex],
      );
    } else {
      const stray = ['deprecation', 'sunset'].filter((h) => res.headers[h] !== undefined);
      ledger.assert('deprecation.scope', stray.length === 0, `${ex.purpose}: ${ex.operationId} is not deprecated but carries ${stray.join(', ')}`, [ex]);
    }

    const policy = res.headers['ratelimit-policy'];
    const state = res.headers.ratelimit;
    const policies = policy === undefined ? undefined : parseStructuredList(policy);
    const states = state === undefined ? undefined : parseStructuredList(state);
    const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
    const problems2: string[] = [];
    if (!policies) problems2.push(policy === undefined ? 'RateLimit-Policy missing' : `RateLimit-Policy ${JSON.stringify(policy)} is malformed`);
    else if (!policies.every((p) => int(p.params.q) && (p.params.w === undefined || int(p.params.w)))) problems2.push(`RateLimit-Policy ${JSON.stringify(policy)} lacks integer q (and w)`);
    if (!states) problems2.push(state === undefined ? 'RateLimit missing' : `RateLimit ${JSON.stringify(state)} is malformed`);
    else if (!states.every((s) => int(s.params.r) && (s.params.t === undefined || int(s.params.t)))) problems2.push(`RateLimit ${JSON.stringify(state)} lacks integer r (and t)`);
    else if (typeof remaining === 'number' && !states.some((s) => s.params.r === remaining)) problems2.push(`no RateLimit item has r=${remaining} as X-RateLimit-Remaining says`);
    ledger.assert('ratelimit.ietf-fields', problems2.length === 0, `${ex.purpose}: ${problems2.join('; ')}`, [ex]);
  }
}

async function rateLimitChecks(ctx: Context, key: string): Promise<void> {
  ctx.progress({ type: 'phase', name: 'rate limits: exhausting the window of --rate-limit-key' });
  const { ledger, options } = ctx;
  const ids = ['ratelimit.limit-constant', 'ratelimit.remaining-decrements', 'ratelimit.reset-future', 'ratelimit.reset-stable', 'ratelimit.exhaustion-exact', 'ratelimit.429', 'ratelimit.retry-after-valid', 'ratelimit.retry-after-consistent', 'ratelimit.retry-after-integer', 'ratelimit.429-no-store', 'ratelimit.readmitted', 'ratelimit.refused-until-retry', 'ratelimit.ban-lifts'];
  const giveUp = (reason: string) => ids.forEach((id) => ledger.notRun(id, reason));
  const tolMs = options.clockToleranceSeconds * 1000;
  let n = 0;
  const probe = () =>
    send(ctx, { operationId: 'listPets', purpose: `rate-limit request ${++n}`, method: 'GET', path: '/pets', query: { limit: 1 }, authorization: ctx.http.bearer(key) });
  const num = (ex: Exchange, name: string) => {
    const v = parseHeaderNumber(header(ex, name) ?? '');
    return typeof v === 'number' ? v : undefined;
  };

  let first = await probe();
  if (status(first) === 429) {
    const at = retryAt(parseRetryAfter(header(first, 'retry-after')), first.receivedAt);
    const wait = at === undefined ? undefined : Math.max(0, at - ctx.clock.now());
    if (!options.wait || wait === undefined || wait > options.maxWaitSeconds * 1000) {
      return giveUp('the --rate-limit-key is refused (429) before the checks started; use a fresh key');
    }
    ctx.progress({ type: 'wait', ms: wait, why: 'the rate-limit key starts refused; waiting for its Retry-After' });
    await ctx.sleep(wait);
    first = await probe();
  }
  if (status(first) !== 200) return giveUp(`the --rate-limit-key is not admitted (${describeStatus(first)})`);
  let base = first;
  let announced = num(first, 'x-ratelimit-remaining');
  const limit0 = num(first, 'x-ratelimit-limit');
  if (announced === undefined || limit0 === undefined) return giveUp('the first response lacks integer X-RateLimit-Limit/Remaining (see headers.rate-limit)');
  if (announced > options.maxRateLimitRequests) {
    return giveUp(`Remaining is ${announced}, above --max-rate-limit-requests ${options.maxRateLimitRequests}; use a key on a smaller plan`);
  }

  // Send until the first 429: Remaining said how many more are admitted. A few extra catch over-admission.
  let admitted: Exchange[] = [first];
  let refused: Exchange | undefined;
  let rolledOver = false;
  const slack = 3;
  for (let sent = 0; sent <= announced + slack; sent++) {
    const ex = await probe();
    if (status(ex) === 429) {
      refused = ex;
      break;
    }
    if (status(ex) !== 200) {
      ledger.fail('ratelimit.exhaustion-exact', `a rate-limit request answered ${describeStatus(ex)}`, [ex]);
      return giveUp('the window could not be exhausted');
    }
    const prev = admitted[admitted.length - 1]!;
    const rem = num(ex, 'x-ratelimit-remaining');
    const prevRem = num(prev, 'x-ratelimit-remaining');
    if (!rolledOver && rem !== undefined && prevRem !== undefined && rem > prevRem && num(ex, 'x-ratelimit-reset') !== num(prev, 'x-ratelimit-reset')) {
      // The window rolled over while we counted: start again from this response, once.
      rolledOver = true;
      ledger.note('ratelimit.exhaustion-exact', 'the window rolled over during the run; counting restarted once');
      base = ex;
      announced = rem;
      admitted = [ex];
      sent = -1;
      continue;
    }
    admitted.push(ex);
  }
  ctx.progress({ type: 'phase', name: `rate limits: ${admitted.length} admitted, ${refused ? 'then 429' : 'no 429'}` });

  for (const ex of [...admitted, ...(refused ? [refused] : [])]) {
    const limit = num(ex, 'x-ratelimit-limit');
    ledger.assert('ratelimit.limit-constant', limit === limit0, `X-RateLimit-Limit changed from ${limit0} to ${String(limit)} within the window`, [admitted[0]!, ex]);
    const reset = num(ex, 'x-ratelimit-reset');
    ledger.assert(
      'ratelimit.reset-future',
      reset !== undefined && reset * 1000 >= ex.receivedAt - tolMs && reset * 1000 <= ex.receivedAt + 86_400_000 + tolMs,
      `X-RateLimit-Reset ${String(reset)} is not a Unix time (seconds) between now (${Math.floor(ex.receivedAt / 1000)}) and a day ahead`,
      [ex],
    );
  }
  for (let i = 1; i < admitted.length; i++) {
    const prev = num(admitted[i - 1]!, 'x-ratelimit-remaining');
    const cur = num(admitted[i]!, 'x-ratelimit-remaining');
    ledger.assert('ratelimit.remaining-decrements', prev !== undefined && cur === prev - 1, `Remaining went from ${String(prev)} to ${String(cur)} on an admitted request`, [admitted[i - 1]!, admitted[i]!]);
    const reset0 = num(base, 'x-ratelimit-reset');
    const reset = num(admitted[i]!, 'x-ratelimit-reset');
    ledger.assert('ratelimit.reset-stable', reset0 !== undefined && reset !== undefined && Math.abs(reset - reset0) <= 1, `Reset moved from ${String(reset0)} to ${String(reset)} within one window`, [base, admitted[i]!]);
  }
  const admittedAfterBase = admitted.length - 1;
  if (!refused) {
    ledger.fail('ratelimit.exhaustion-exact', `no 429 after ${admittedAfterBase} requests past one announcing Remaining ${announced}`, admitted.slice(-2));
    return giveUp('no 429 was received');
  }
  ledger.assert('ratelimit.exhaustion-exact', admittedAfterBase === announced, `Remaining announced ${announced} more requests, but ${admittedAfterBase} were admitted before the first 429`, [base, admitted[admitted.length - 1]!, refused]);

  checkRefusal(ctx, refused, 'first');
  const parsed = parseRetryAfter(header(refused, 'retry-after'));
  const at = retryAt(parsed, refused.receivedAt);
  const reset = num(refused, 'x-ratelimit-reset');
  if (at !== undefined && reset !== undefined) {
    ledger.assert('ratelimit.retry-after-consistent', Math.abs(at - reset * 1000) <= tolMs + 1000, `Retry-After ${header(refused, 'retry-after')} points to ${new Date(at).toISOString()}, X-RateLimit-Reset to ${new Date(reset * 1000).toISOString()}`, [refused]);
  } else {
    ledger.notRun('ratelimit.retry-after-consistent', 'Retry-After or X-RateLimit-Reset is unusable on the 429');
  }
  ledger.assert('ratelimit.retry-after-integer', parsed.kind === 'delay-seconds' && parsed.seconds >= 1, `Retry-After is ${JSON.stringify(header(refused, 'retry-after') ?? null)}, not integer seconds >= 1`, [refused]);
  const cacheControl = header(refused, 'cache-control') ?? '';
  ledger.assert('ratelimit.429-no-store', /(^|,)\s*no-store\s*(,|$)/i.test(cacheControl), `Cache-Control is ${JSON.stringify(cacheControl || null)}`, [refused]);

  let retryFrom: Exchange = refused;
  let retryMoment = at;
  if (options.banCheck) {
    ctx.progress({ type: 'phase', name: `rate limits: ${options.banProbe} requests after the 429 (ban check)` });
    let banned: Exchange | undefined;
    for (let i = 0; i < options.banProbe; i++) {
      const ex = await probe();
      if (!ledger.assert('ratelimit.refused-until-retry', status(ex) === 429, `request ${i + 1} after the first 429 answered ${describeStatus(ex)} before Retry-After`, [refused, ex])) break;
      checkRefusal(ctx, ex, `repeated (${i + 1})`);
      const exAt = retryAt(parseRetryAfter(header(ex, 'retry-after')), ex.receivedAt);
      if (exAt !== undefined) {
        retryFrom = ex;
        retryMoment = exAt;
        if (at !== undefined && exAt > at + tolMs + 1000) banned = ex;
      }
    }
    if (!banned) ledger.notRun('ratelimit.ban-lifts', `no ban within ${options.banProbe} repeated requests (the specification says a ban "may" follow)`);
    else ledger.note('ratelimit.ban-lifts', `banned until ${new Date(retryMoment!).toISOString()}`);
  }

  if (!options.wait) {
    ledger.notRun('ratelimit.readmitted', 'waiting for Retry-After was disabled (--no-wait)');
    ledger.notRun('ratelimit.ban-lifts', 'waiting for Retry-After was disabled (--no-wait)');
    return;
  }
  if (retryMoment === undefined) {
    ledger.notRun('ratelimit.readmitted', 'Retry-After is unusable, so there is nothing to wait for');
    return;
  }
  const wait = Math.max(0, retryMoment - ctx.clock.now());
  if (wait > options.maxWaitSeconds * 1000) {
    ledger.notRun('ratelimit.readmitted', `Retry-After asks for ${Math.ceil(wait / 1000)} s, above --max-wait ${options.maxWaitSeconds}`);
    ledger.notRun('ratelimit.ban-lifts', `Retry-After asks for ${Math.ceil(wait / 1000)} s, above --max-wait ${options.maxWaitSeconds}`);
    return;
  }
  ctx.progress({ type: 'wait', ms: wait, why: `Retry-After ${header(retryFrom, 'retry-after')}` });
  await ctx.sleep(wait);
  const again = await probe();
  const ok = status(again) === 200;
  ledger.assert('ratelimit.readmitted', ok, `after waiting ${Math.ceil(wait / 1000)} s as Retry-After said, the key got ${describeStatus(again)}`, [retryFrom, again]);
  if (options.banCheck && !ledger.hasFailed('ratelimit.refused-until-retry') && retryFrom !== refused) {
    const lastAt = retryAt(parseRetryAfter(header(retryFrom, 'retry-after')), retryFrom.receivedAt);
    if (at !== undefined && lastAt !== undefined && lastAt > at + tolMs + 1000) {
      ledger.assert('ratelimit.ban-lifts', ok, `the ban did not lift at the time its Retry-After named (${describeStatus(again)})`, [retryFrom, again]);
    }
  }
}

function checkRefusal(ctx: Context, ex: Exchange, which: string): void {
  const { ledger } = ctx;
  const problems = validateResponse(ctx.contract, 'listPets', ex.response!);
  const remaining = parseHeaderNumber(header(ex, 'x-ratelimit-remaining') ?? '');
  const retryAfter = header(ex, 'retry-after');
  const issues = [
    ...problems.map((p) => `${p.where} ${p.message}`),
    ...(retryAfter === undefined ? ['Retry-After is missing'] : []),
    ...(remaining !== 0 ? [`X-RateLimit-Remaining is ${JSON.stringify(remaining)}, not 0`] : []),
  ];
  ledger.assert('ratelimit.429', issues.length === 0, `${which} 429: ${issues.join('; ')}`, [ex]);
  const parsed = parseRetryAfter(retryAfter);
  ledger.assert('ratelimit.retry-after-valid', parsed.kind !== 'invalid', `${which} 429: Retry-After ${parsed.kind === 'invalid' ? parsed.reason : ''}`, [ex]);
}

/** A Dredd transaction shown like the kit's own exchanges. */
function dreddEvidence(baseUrl: string, t: DreddOutcome['transactions'][number]): Exchange[] {
  if (!t.request) return [];
  const exchange: Exchange = {
    seq: 0,
    operationId: 'listPets',
    purpose: `Dredd: ${t.name}`,
    request: { method: t.request.method, url: `${baseUrl.replace(/\/+$/, '')}${t.request.uri}`, headers: lowerKeys(t.request.headers) },
    receivedAt: 0,
  };
  if (t.request.body) exchange.request.body = t.request.body;
  if (t.response) exchange.response = { status: t.response.statusCode, headers: lowerKeys(t.response.headers), body: t.response.body ?? '' };
  return [exchange];
}

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

function selection(options: Context['options']) {
  return (def: ReturnType<typeof checkDef>): string | undefined => {
    if (def.profile === 'full' && options.profile === 'contract') return 'behaviour check: not part of the contract profile';
    if (def.id === 'dredd.transactions' && !options.dredd) return 'Dredd was disabled (--no-dredd)';
    if (def.needsRateLimitKey && !options.rateLimitKey) return 'needs --rate-limit-key (a key whose window the kit may exhaust)';
    if (def.needsBanCheck && !options.banCheck) return 'needs --ban-check';
    return undefined;
  };
}

export async function runConformance(input: RunOptions): Promise<Report> {
  const clock = input.clock ?? { now: () => Date.now() };
  const options: Context['options'] = {
    baseUrl: input.baseUrl,
    apiKey: input.apiKey,
    profile: input.profile ?? 'full',
    prefer: input.prefer ?? false,
    dredd: input.dredd ?? true,
    wait: input.wait ?? true,
    maxWaitSeconds: input.maxWaitSeconds ?? 120,
    banCheck: input.banCheck ?? false,
    banProbe: input.banProbe ?? 10,
    maxRateLimitRequests: input.maxRateLimitRequests ?? 1100,
    clockToleranceSeconds: input.clockToleranceSeconds ?? 2,
    timeoutMs: input.timeoutMs ?? 10_000,
    strict: input.strict ?? false,
    specPath: input.specPath ?? DEFAULT_SPEC_PATH,
    ...(input.rateLimitKey ? { rateLimitKey: input.rateLimitKey } : {}),
  };
  const started = Date.now();
  const ctx: Context = {
    http: new HttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, clock, timeoutMs: options.timeoutMs }),
    ledger: new Ledger(),
    contract: await loadContract(options.specPath),
    options,
    clock,
    sleep: input.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    progress: input.onProgress ?? (() => {}),
    token: randomBytes(4).toString('hex'),
    preferUsed: [],
  };

  await contractChecks(ctx);
  let dredd: DreddOutcome | undefined;
  if (options.dredd) {
    ctx.progress({ type: 'phase', name: 'Dredd 14 over the derived description' });
    if (options.prefer) ctx.preferUsed.push('dredd.transactions');
    dredd = await runDredd({ baseUrl: options.baseUrl, apiKey: options.apiKey, prefer: options.prefer, contract: ctx.contract, specPath: options.specPath, timeoutMs: Math.max(60_000, options.timeoutMs * 6) });
    ctx.progress({ type: 'dredd', outcome: dredd });
    if (options.prefer) ctx.ledger.note('dredd.transactions', 'the 404 transaction sent Prefer: code=404 (--prefer)');
    if (dredd.error) ctx.ledger.fail('dredd.transactions', `Dredd did not complete: ${dredd.error}`);
    for (const t of dredd.transactions) {
      if (t.status === 'pass') ctx.ledger.pass('dredd.transactions');
      else if (t.status !== 'skip') ctx.ledger.fail('dredd.transactions', `${t.name}: ${t.message}`, dreddEvidence(options.baseUrl, t));
    }
    if (!dredd.error && dredd.transactions.length === 0) ctx.ledger.fail('dredd.transactions', 'Dredd compiled no transactions');
  }
  if (options.profile === 'full') {
    await behaviourChecks(ctx);
    if (options.rateLimitKey) await rateLimitChecks(ctx, options.rateLimitKey);
  }
  crossChecks(ctx, options.profile);

  const results = ctx.ledger.results({ strict: options.strict, selected: selection(options) });
  const counts: Counts = { passed: 0, failed: 0, warned: 0, notRun: 0 };
  for (const r of results) {
    if (r.outcome === 'passed') counts.passed++;
    else if (r.outcome === 'failed') counts.failed++;
    else if (r.outcome === 'warned') counts.warned++;
    else counts.notRun++;
  }
  const report: Report = {
    target: options.baseUrl,
    profile: options.profile,
    strict: options.strict,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    requests: ctx.http.exchanges.length + (dredd?.transactions.filter((t) => t.status !== 'skip').length ?? 0),
    results,
    counts,
    exitCode: counts.failed > 0 ? 1 : 0,
    preferUsed: [...new Set(ctx.preferUsed)],
  };
  if (dredd) report.dredd = dredd;
  return report;
}
