// Sending --api-key's requests at once for the concurrency phase: how big its waves may be, within
// --max-requests, the pacer and --clients in flight, and each batch judged as a set.
import { parseInteger } from '../../spec/rules/fields.js';
import { type Violation } from '../../judge/rules/window-rules.js';
import { type SendOptions } from '../http.ts';
import { type Exchange } from '../../judge/exchange.ts';
import { type AreaContext } from './area.ts';
import { isAdmitted, snapshotOf } from '../../judge/rate-limit-verdict.ts';
import { header } from '../../judge/answers.ts';
import { send } from './support.ts';
import { judgeAtOnce, type Verdict } from './concurrency-verdicts.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

/** How big the two waves are: creates of the first wave, and create-and-list pairs of the second. */
export interface Size {
  creates: number;
  pairs: number;
}

/** Requests of --api-key a size costs: the creates, the pairs, a read of each first-wave pet, one page of the list. */
export const cost = (size: Size) => 2 * size.creates + 2 * size.pairs + 1;
/** The most requests of --api-key one wave of it needs in one window: the second (its pairs and the reads). */
export const widest = (size: Size) => size.creates + 2 * size.pairs;

/**
 * The sizes for --clients `clients`, largest first: that many creates in the first wave and as many
 * creates and lists in the second; smaller, pairs go before creates. At least two creates and one
 * pair, to judge anything: 7 requests.
 */
export function sizes(clients: number): Size[] {
  const ladder: Size[] = [];
  for (let creates = clients; creates >= 2; creates--)
    for (let pairs = Math.max(1, Math.floor(creates / 2)); pairs >= 1; pairs--) ladder.push({ creates, pairs });
  return ladder;
}

/** Takes `n` requests from --max-requests, all or none. */
export function reserve(ctx: AreaContext, n: number): boolean {
  if (ctx.budget.left < n) return false;
  for (let i = 0; i < n; i++) ctx.budget.take();
  return true;
}

/** Runs `count` tasks with at most `n` in flight, each started as one before it is answered; the results in the tasks' order. */
export async function inFlight<T>(n: number, count: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, count) }, worker));
  return results;
}

/**
 * Requests of --api-key sent at once, at most --clients in flight. The pacer makes room for all of
 * them first; it learns their answers in arrival order, which is not the order the server decided
 * them, so it is told last the answer that says least is left.
 */
export async function atOnce(ctx: AreaContext, requests: readonly SendOptions[]): Promise<Exchange[]> {
  await ctx.pacer.ensure('key', requests.length, `${requests.length} requests sent at once`);
  const exchanges = await inFlight(ctx.options.clients, requests.length, (i) => send(ctx, { ...requests[i]!, phase: 'concurrency' }));
  const last = exchanges
    .filter((ex) => isAdmitted(ex) && parseInteger(header(ex, LOWER_HEADERS.rateLimitRemaining)) !== null)
    .sort((a, b) => parseInteger(header(a, LOWER_HEADERS.rateLimitRemaining))! - parseInteger(header(b, LOWER_HEADERS.rateLimitRemaining))!)[0];
  if (last) await ctx.pacer.after(last);
  return exchanges;
}

const refsOf = (v: Violation) => v.refs.filter((r): r is Exchange => typeof r === 'object' && r !== null);

/** A verdict into the ledger: `what` names the requests (no ": " in it), each violation's detail says what broke. */
export function record(ctx: AreaContext, id: string, verdict: Verdict, what: string, evidence: Exchange[] = []): void {
  if (!verdict.judged) return ctx.ledger.notRun(id, verdict.why);
  if (verdict.problems.length === 0) return ctx.ledger.pass(id);
  for (const v of verdict.problems) ctx.ledger.fail(id, `${what}: ${v.detail}`, [...evidence, ...refsOf(v)], v.kind);
}

/** Remaining of a batch of --api-key: other clients of the key only make the values fall further, never repeat. */
export function judgeBatch(ctx: AreaContext, exchanges: Exchange[], what: string): void {
  const own = ctx.http.bearer();
  const first = Math.min(...exchanges.map((ex) => ex.seq));
  const before = new Map<string, Exchange>();
  for (const ex of ctx.http.exchanges) {
    if (ex.seq >= first || ex.request.headers.authorization !== own || !isAdmitted(ex)) continue;
    const known = before.get(ex.operationId);
    if (!known || known.seq < ex.seq) before.set(ex.operationId, ex);
  }
  const read = (ex: Exchange) => snapshotOf(ex, ctx.options.dateHeader);
  const verdict = judgeAtOnce(
    exchanges.map((ex) => ({ operation: ex.operationId, snapshot: read(ex) })),
    new Map([...before].map(([operation, ex]) => [operation, read(ex)])),
    { clockSkewSeconds: ctx.options.clockToleranceSeconds },
  );
  record(ctx, 'concurrency.burst-remaining-distinct', verdict, what);
}
