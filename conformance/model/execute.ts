// Sends a program: each round's requests at once, one per client, past the run's pacer (the model
// judges the limiter's answers, 429s included, and sends nothing again). What a step refers to (the
// pet an earlier create was given, the next page of a walk) is read off the answers as they come. Every
// create that carries a name gets one of this sending's own, so a replay never meets an earlier run's pets.
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import { retryWaitOf, snapshotOf } from '../../judge/rate-limit-verdict.ts';
import type { AreaContext } from '../checks/area.ts';
import { nextPage, send } from '../checks/support.ts';
import { UNKNOWN_PET_ID } from '../../judge/answers.ts';
import type { SendOptions } from '../http.ts';
import { INVALID_CREDENTIALS, OPERATION_OF, SPELLINGS, type Credentials, type KeyRole, type Program, type Step } from './program.ts';

/** One step as it went: its exchange, or why nothing was sent (a walk that had ended, a pet never created). */
export interface Sent {
  step: Step;
  /** The round it was sent in: every request of a round was answered before the next round's left. */
  round: number;
  exchange?: Exchange;
  skipped?: string;
  /** The name a create's pet carried. */
  name?: string;
}

export interface Execution {
  /** Every step in program order. */
  sent: Sent[];
  /** Names this sending gave its pets start with it. */
  namespace: string;
}

/** The Authorization value of a step's credentials: null sends none. */
export function authorizationOf(credentials: Credentials, keys: Readonly<Partial<Record<KeyRole, string>>>): string | null {
  const key = keys['invalid' in credentials ? 'api-key' : credentials.key];
  if ('invalid' in credentials) return INVALID_CREDENTIALS[credentials.invalid](key ?? '');
  if (key === undefined) throw new Error(`the program uses ${credentials.key}, which this run was not given`);
  return SPELLINGS[credentials.spelling](key);
}

interface State {
  ids: Map<number, number>;
  walks: Map<number, Exchange | 'ended'>;
}

function requestOf(ctx: AreaContext, step: Step, state: State, name: string): SendOptions | string {
  const r = step.request;
  const common = { operationId: OPERATION_OF[r.op], purpose: `model step ${step.id}: ${step.label}`, phase: 'model', ungated: true as const };
  if (r.op === 'create') {
    let json = r.named && !('raw' in r.body) ? { ...(r.body.json as object), name } : 'raw' in r.body ? undefined : r.body.json;
    if (r.idOf !== undefined) {
      const id = state.ids.get(r.idOf);
      if (id === undefined) return `step ${r.idOf} created no pet`;
      json = { ...(json as object), id };
    }
    const body = 'raw' in r.body ? { rawBody: r.body.raw } : { json };
    return {
      ...common,
      method: 'POST',
      path: '/pets',
      ...body,
      ...(r.contentType ? { contentType: r.contentType } : {}),
      ...('raw' in r.body ? { outside: 'not JSON' } : {}),
    };
  }
  if (r.op === 'other') {
    const path = r.path === '/pets' ? '/pets' : `/pets/${UNKNOWN_PET_ID}`;
    return {
      ...common,
      operationId: r.path === '/pets' ? 'listPets' : 'getPet',
      method: r.method,
      path,
      outside: 'a method the description does not give this path',
    };
  }
  const head = 'head' in r && r.head ? { method: 'HEAD', outside: 'HEAD: judged as GET without a body by the model phase' } : { method: 'GET' };
  if (r.op === 'get') {
    let segment: string;
    if ('literal' in r.pet) segment = r.pet.literal;
    else {
      const id = state.ids.get(r.pet.createdBy);
      if (id === undefined) return `step ${r.pet.createdBy} created no pet`;
      segment = String(id);
    }
    return { ...common, ...head, path: `/pets/${encodeURIComponent(segment)}` };
  }
  if (r.op === 'list') return { ...common, ...head, path: '/pets', query: r.query };
  const last = state.walks.get(r.walk);
  if (last === undefined || last === 'ended') return `the walk of step ${r.walk} ${last === 'ended' ? 'had ended' : 'never started'}`;
  const next = nextPage(ctx, last);
  if ('none' in next) {
    state.walks.set(r.walk, 'ended');
    return `the walk of step ${r.walk} had ended (${next.none})`;
  }
  return { ...common, method: 'GET', path: next.url };
}

function remember(step: Step, exchange: Exchange, state: State): void {
  const r = step.request;
  const ok = exchange.response !== undefined && exchange.response.status >= 200 && exchange.response.status < 300;
  if (r.op === 'create' && ok) {
    const body = jsonBody(exchange) as { id?: unknown } | undefined;
    if (body && Number.isSafeInteger(body.id)) state.ids.set(step.id, body.id as number);
  }
  if (r.op === 'list' && r.walk !== undefined) state.walks.set(r.walk, ok ? exchange : 'ended');
  if (r.op === 'next') state.walks.set(r.walk, ok ? exchange : 'ended');
}

/**
 * When the rate-limit key may be sent to again, on the kit's clock: what its last refusal's
 * Retry-After said, a second of rounding past it (a request then must be admitted: the server's own
 * promise is what is tested); without a usable one, when its last answer's Reset said. Null when
 * nothing says.
 */
function windowPassedAt(ctx: AreaContext, sent: readonly Sent[]): number | null {
  let retry: number | null = null;
  let reset: number | null = null;
  for (const s of sent) {
    const ex = s.exchange;
    if (!ex?.response || !('key' in s.step.credentials) || s.step.credentials.key !== 'rate-limit-key') continue;
    const snapshot = snapshotOf(ex, ctx.options.dateHeader);
    if (snapshot.reset !== null) reset = Math.max(reset ?? 0, snapshot.reset * 1000 + (ex.receivedAt - snapshot.serverNowMs) + 1000);
    const wait = retryWaitOf(ex, ctx.options);
    if (wait !== null) retry = Math.max(retry ?? 0, ex.receivedAt + wait + 1000);
  }
  return retry ?? reset;
}

/** Waits for the rate-limit key's window before a round that asks it, within --max-wait; not with --no-wait. */
async function waitForWindow(ctx: AreaContext, sent: readonly Sent[]): Promise<void> {
  const due = windowPassedAt(ctx, sent);
  if (due === null || !ctx.options.wait) return;
  const ms = due - ctx.clock.now();
  if (ms > 0 && ms <= ctx.options.maxWaitSeconds * 1000) await ctx.wait(ms, "the model phase waits for --rate-limit-key's window to pass, to cross it again");
}

/** Sends the program's rounds in turn; `namespace` prefixes the names of its pets (the run's token and a count). */
/** What the caller does around each round: pace it (before), learn from its answers (after). */
export interface RoundHooks {
  /** Before a round: a reason to send nothing more (the pacer may not wait as long as the key needs), or nothing to go on. */
  before?: (round: readonly Step[]) => Promise<string | undefined>;
  after?: (answers: readonly Sent[]) => Promise<void>;
}

export async function execute(
  ctx: AreaContext,
  program: Program,
  keys: Readonly<Partial<Record<KeyRole, string>>>,
  namespace: string,
  hooks: RoundHooks = {},
): Promise<Execution> {
  const state: State = { ids: new Map(), walks: new Map() };
  const sent: Sent[] = [];
  const waits = new Set(program.windowWaits ?? []);
  for (const [index, round] of program.rounds.entries()) {
    if (waits.has(index)) await waitForWindow(ctx, sent);
    const stop = await hooks.before?.(round);
    if (stop !== undefined) {
      for (const rest of program.rounds.slice(index)) for (const step of rest) sent.push({ step, round: index, skipped: stop });
      break;
    }
    const planned = round.map((step) => {
      const name = `${namespace}-${step.id}`;
      const request = requestOf(ctx, step, state, name);
      return { step, name, request };
    });
    const answers = await Promise.all(
      planned.map(async ({ step, name, request }): Promise<Sent> => {
        if (typeof request === 'string') return { step, round: index, skipped: request };
        const exchange = await send(ctx, { ...request, authorization: authorizationOf(step.credentials, keys) });
        return { step, round: index, exchange, ...(step.request.op === 'create' && step.request.named ? { name } : {}) };
      }),
    );
    for (const a of answers) {
      if (a.exchange) remember(a.step, a.exchange, state);
      sent.push(a);
    }
    await hooks.after?.(answers);
  }
  return { sent, namespace };
}
