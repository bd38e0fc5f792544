// A real Dredd 14 run over the description derived from spec/openapi.yaml, bodies checked against
// the must-level schemas (conformance/dredd/run.ts explains why Dredd needs that help).
import { causeKey } from '../../judge/causes.ts';
import { runDredd, transactionPlans, type DreddOutcome } from '../dredd/run.ts';
import type { Exchange } from '../../judge/exchange.ts';
import { TargetStoppedError } from '../silence.ts';
import { TOO_LARGE } from '../../judge/exchange.ts';
import type { CheckDef } from '../../judge/check-def.ts';
import type { Area, AreaContext } from './area.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'dredd.transactions',
    level: 'must',
    profile: 'contract',
    section: 'Endpoints (Dredd 14 over the description)',
    title: 'Dredd passes every documented transaction, bodies checked against the full schemas',
    needs: ['dredd'],
  },
];

function lowerKeys(headers: Record<string, string> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]));
}

/** A Dredd transaction shown like the kit's own exchanges. */
function evidence(ctx: AreaContext, t: DreddOutcome['transactions'][number]): Exchange[] {
  const baseUrl = ctx.options.baseUrl;
  if (!t.request) return [];
  const exchange: Exchange = {
    seq: 0,
    operationId: 'listPets',
    purpose: `Dredd: ${t.name}`,
    request: { method: t.request.method, url: `${baseUrl.replace(/\/+$/, '')}${t.request.uri}`, headers: lowerKeys(t.request.headers) },
    sentAt: 0,
    receivedAt: 0,
  };
  if (t.request.body) exchange.request.body = t.request.body;
  exchange.replay = ctx.http.replay(exchange.request);
  if (t.response) exchange.response = { status: t.response.statusCode, headers: lowerKeys(t.response.headers), body: t.response.body ?? '' };
  return [exchange];
}

/** Gavel's words for a header the answer lacks. */
const GAVEL_MISSING = /^headers: At '\/([^']+)' Missing required property: \S+$/;

/**
 * The causes of a failed transaction when all Gavel found is headers missing from the answer: the
 * same causes as the kit's own checks give them, so Dredd's failure joins theirs (causes.ts).
 */
export function missingHeaderCauses(t: Pick<DreddOutcome['transactions'][number], 'message' | 'response'>): string[] | undefined {
  const lines = t.message
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const names = lines.map((line) => GAVEL_MISSING.exec(line)?.[1]);
  const present = lowerKeys(t.response?.headers);
  if (!t.response || names.length === 0 || names.some((name) => name === undefined || present[name.toLowerCase()] !== undefined)) return undefined;
  return [...new Set(names.map((name) => causeKey.headerMissing(name!)))];
}

async function dredd(ctx: AreaContext): Promise<void> {
  const { options, ledger } = ctx;
  if (options.prefer) ctx.preferUsed.push('dredd.transactions');
  // Dredd's requests cannot be paced one by one: both allowances must hold all of them first.
  const plans = Object.values(transactionPlans(ctx.contract));
  await ctx.pacer.ensure('address', plans.filter((p) => p.authorization === 'none').length + 1, 'the Dredd run');
  await ctx.pacer.ensure('key', plans.filter((p) => p.authorization === 'key').length, 'the Dredd run');
  const outcome = await runDredd({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    prefer: options.prefer,
    contract: ctx.contract,
    specPath: options.specPath,
    timeoutMs: Math.max(60_000, options.timeoutMs * 6),
    headers: options.headers,
    tls: options.tls,
    maxBodyBytes: options.maxBodyBytes,
    hookfiles: options.hookfiles,
    requestTimeoutMs: options.timeoutMs,
    ...(ctx.http.silence.lastAnswered !== undefined ? { lastAnswered: ctx.http.silence.lastAnswered } : {}),
  });
  ctx.facts.dredd = outcome;
  const sent = outcome.transactions.filter((t) => t.status !== 'skip' && t.response);
  ctx.pacer.spent('address', sent.filter((t) => !t.request?.headers.Authorization).length);
  ctx.pacer.spent('key', sent.filter((t) => t.request?.headers.Authorization).length);
  ctx.progress({ type: 'dredd', outcome });
  if (options.prefer) ledger.note('dredd.transactions', 'the 404 transaction sent Prefer: code=404 (--prefer)');
  // Dredd ending early (killed, crashed on an answer, timed out) says nothing of the target: not judged, never failed.
  if (outcome.error) ledger.unjudged('dredd.transactions', `Dredd did not complete: ${outcome.error}`);
  for (const t of outcome.transactions) {
    if (t.status === 'pass') ledger.pass('dredd.transactions');
    else if (t.status === 'error' && t.message.startsWith(TOO_LARGE)) ledger.unjudged('dredd.transactions', `${t.name}: ${t.message}`);
    else if (t.status !== 'skip') ledger.fail('dredd.transactions', `${t.name}: ${t.message}`, evidence(ctx, t), undefined, missingHeaderCauses(t));
  }
  if (!outcome.error && outcome.transactions.length === 0) ledger.fail('dredd.transactions', 'Dredd compiled no transactions');
  // The run ends with Dredd's: nothing more is sent to a target that stopped answering.
  if (outcome.stopped) ctx.http.halt(new TargetStoppedError(outcome.stopped));
}

export const dreddArea: Area = { name: 'dredd', checks, phases: { dredd } };
