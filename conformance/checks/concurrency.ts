// Concurrency: what only overlapping requests show (conformance/README.md, Concurrency). Answers
// arrive in another order than the server decided them, so every verdict is order-free. Here: the
// checks, the burst and the phase; creates, waves and verdicts in the concurrency-*.ts beside it.
import { parseInteger } from '../../spec/rules/fields.js';
import type { CheckDef } from '../../judge/check-def.ts';
import { type Area, type AreaContext } from './area.ts';
import { SECTION } from '../../judge/check-def.ts';
import { creates } from './concurrency-creates.ts';
import { judgeBurst } from './concurrency-verdicts.ts';
import { inFlight, record } from './concurrency-waves.ts';
import { isAdmitted, snapshotOf } from '../../judge/rate-limit-verdict.ts';
import { describeStatus, header } from '../../judge/answers.ts';
import { send } from './support.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

const PHASE = ['concurrency'] as const;

const checks: readonly CheckDef[] = [
  {
    id: 'concurrency.creates-distinct',
    level: 'must',
    profile: 'full',
    section: 'Resources and their fields › Pet',
    title: 'Creates sent at once get ids of their own: no two 201s carry the same id, nor an id this run was given before',
    needs: PHASE,
  },
  {
    id: 'concurrency.creates-kept',
    level: 'must',
    profile: 'full',
    section: `${SECTION.create}; ${SECTION.get}; ${SECTION.list}`,
    title: 'Every pet created at once with others is kept as sent: GET /pets/{id} and the list return it, none overwritten by another',
    needs: PHASE,
  },
  {
    id: 'concurrency.reads-whole',
    level: 'must',
    profile: 'full',
    section: `${SECTION.list}; Resources and their fields › Pets`,
    title: 'A list read while creates are in flight is a whole bare array of valid Pets: no page cut short, no partial pet, no id twice, at most limit',
    needs: PHASE,
  },
  {
    id: 'concurrency.burst-exact',
    level: 'must',
    profile: 'full',
    section: `${SECTION.exceeded}; ${SECTION.headers}`,
    title: 'A burst sent at once past the Remaining announced admits exactly that many, and each 429 says Remaining 0',
    needs: ['rate-limit-key', ...PHASE],
  },
  {
    id: 'concurrency.burst-remaining-distinct',
    level: 'must',
    profile: 'full',
    section: SECTION.headers,
    title: 'Requests admitted at once in one window never share an X-RateLimit-Remaining value, and each is below what the window had before',
    needs: PHASE,
  },
];

/** Requests past the allowance in the burst on --rate-limit-key: a racy limiter admits some of them. */
const OVER = 3;

// ---------------------------------------------------------------------------------------------
// A burst on --rate-limit-key at the edge of its allowance.

async function burst(ctx: AreaContext): Promise<void> {
  const key = ctx.options.rateLimitKey;
  if (!key) return;
  const id = 'concurrency.burst-exact';
  const verdict = ctx.facts.rateLimitVerdict;
  if (!verdict) return ctx.ledger.notRun(id, 'the rate-limit phase did not run (no ratelimit.* check is selected): nothing is known of the key');
  const authorization = ctx.http.bearer(key);
  const last = ctx.http.exchanges.filter((ex) => ex.request.headers.authorization === authorization).at(-1);
  const announced = last && parseInteger(header(last, LOWER_HEADERS.rateLimitRemaining));
  const reset = last && parseInteger(header(last, LOWER_HEADERS.rateLimitReset));
  if (!last || !isAdmitted(last))
    return ctx.ledger.notRun(
      id,
      `the rate-limit phase left --rate-limit-key ${last ? `refused (${describeStatus(last)})` : 'unused'}${ctx.options.wait ? '' : ', and --no-wait keeps the kit from waiting for its window'}: no allowance to burst into`,
      // Without --no-wait the key was to be admitted again: a refusal left is the target's, and the burst could not be judged.
      last && ctx.options.wait ? [last] : [],
    );
  if (announced === null || announced === undefined || reset === null || reset === undefined)
    return ctx.ledger.notRun(id, 'the last answer to --rate-limit-key lacks integer X-RateLimit-Remaining/Reset');
  const clients = ctx.options.clients;
  const total = Math.min(announced + OVER, ctx.options.maxRateLimitRequests);
  ctx.progress({ type: 'phase', name: `concurrency: ${total} requests on --rate-limit-key, ${clients} at once (Remaining ${announced})` });
  const exchanges = await inFlight(clients, total, (i) =>
    send(ctx, {
      operationId: 'listPets',
      purpose: `burst request ${i + 1} of ${total}, at most ${clients} in flight, sent when Remaining was ${announced}`,
      method: 'GET',
      path: '/pets',
      query: { limit: 1 },
      authorization,
      phase: 'concurrency',
    }),
  );
  // The one judge of the key's window: its rules report to the ratelimit.* checks, and the
  // concurrency checks read their verdict on the burst from the same Outcome.
  const out = verdict.observeBatch(exchanges);
  const judged = judgeBurst(
    out,
    exchanges.map((ex) => snapshotOf(ex, ctx.options.dateHeader)),
    { remaining: announced, reset },
  );
  const what = `the burst of ${total} on --rate-limit-key (at most ${clients} in flight, sent when Remaining was ${announced})`;
  record(ctx, id, judged.exact, what, [last]);
  if (judged.distinct.judged) record(ctx, 'concurrency.burst-remaining-distinct', judged.distinct, what, [last]);
  else ctx.ledger.note('concurrency.burst-remaining-distinct', `the burst on --rate-limit-key was not judged here: ${judged.distinct.why}`);
}

async function concurrency(ctx: AreaContext): Promise<void> {
  if (ctx.options.clients === 1) {
    for (const c of checks) ctx.ledger.notRun(c.id, '--clients 1 sends nothing at once');
    return;
  }
  await creates(ctx);
  await burst(ctx);
  ctx.ledger.notRun('concurrency.burst-remaining-distinct', 'no requests were sent at once (--max-requests left no room: see concurrency.creates-distinct)');
}

/**
 * What the target chose where the specification is silent on its limiter (judge/rules/readings.js):
 * the readings under which the rules explained the key's whole history, after the burst too.
 */
function finish(ctx: AreaContext): void {
  const readings = ctx.facts.rateLimitVerdict?.readings();
  if (readings) ctx.facts.choices?.set('rate-limit-readings', readings);
}

export const concurrencyArea: Area = { name: 'concurrency', checks, phases: { concurrency }, finish };
