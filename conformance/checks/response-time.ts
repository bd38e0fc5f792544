// --max-response-time, as Schemathesis users know it: off unless given; then every answer the kit
// receives must arrive within the bound, from the request sent to the answer read whole.
import type { Exchange } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area, AreaContext } from './area.ts';

export const MAX_RESPONSE_TIME = 'responses.max-response-time';

const checks: readonly CheckDef[] = [
  {
    id: MAX_RESPONSE_TIME,
    level: 'must',
    profile: 'contract',
    section: "the user's declaration (--max-response-time) of the slowest answer they accept, as Schemathesis's max_response_time",
    title: 'Every answer arrives within --max-response-time milliseconds, from the request sent to its last byte read',
    needs: ['max-response-time'],
    reads: 'status-and-headers',
  },
];

/** Whether an answer came within the bound; undefined when there is nothing to judge (no answer, a shrunk-away input, no time kept). */
export function withinBound(ex: Exchange, boundMs: number): { ok: true } | { ok: false; message: string } | undefined {
  if (!ex.response || ex.superseded || ex.elapsedMs === undefined) return undefined;
  if (ex.elapsedMs <= boundMs) return { ok: true };
  return { ok: false, message: `${ex.purpose}: answered in ${Math.round(ex.elapsedMs)} ms, over --max-response-time ${boundMs} ms` };
}

function inspect(ex: Exchange, ctx: AreaContext): void {
  const bound = ctx.options.maxResponseTimeMs;
  if (bound === undefined) return;
  const verdict = withinBound(ex, bound);
  if (verdict === undefined) return;
  if (verdict.ok) ctx.ledger.pass(MAX_RESPONSE_TIME);
  else ctx.ledger.fail(MAX_RESPONSE_TIME, verdict.message, [ex]);
}

export const responseTimeArea: Area = { name: 'response time', checks, inspect };
