// The rate-limit headers of every response: the X-RateLimit-* the specification defines, and the
// IETF RateLimit fields as good practice.
import { rateLimitHeaderProblems, readSnapshot } from '../../spec/rules/snapshot.js';
import { parseRateLimit, parseRateLimitPolicy } from '../../spec/rules/structured-fields.js';
import type { Exchange } from '../exchange.ts';
import type { CheckDef } from '../check-def.ts';
import { SECTION } from '../check-def.ts';
import type { InspectContext, LiveChecks } from './inspect.ts';
import { HEADERS, LOWER_HEADERS } from '../../spec/rules/contract.js';
import { causeKey } from '../causes.ts';

const RATE_LIMIT_HEADERS = [HEADERS.rateLimitLimit, HEADERS.rateLimitRemaining, HEADERS.rateLimitReset];

const checks: readonly CheckDef[] = [
  {
    id: 'headers.rate-limit',
    level: 'must',
    profile: 'contract',
    section: SECTION.headers,
    title: 'Every response carries X-RateLimit-Limit/Remaining/Reset as integers, Remaining <= Limit',
    reads: 'status-and-headers',
  },
  {
    id: 'ratelimit.ietf-fields',
    level: 'should',
    profile: 'full',
    section: `${SECTION.headers}; draft-ietf-httpapi-ratelimit-headers`,
    title: 'RateLimit-Policy and RateLimit are well-formed structured fields agreeing with X-RateLimit-*',
  },
];

/** A server names the same policies on every answer: each distinct RateLimit-Policy is read once in a row. */
let lastPolicy: { text: string; wellFormed: boolean } | undefined;

function policyWellFormed(text: string): boolean {
  if (lastPolicy?.text !== text) lastPolicy = { text, wellFormed: Boolean(parseRateLimitPolicy(text)) };
  return lastPolicy.wellFormed;
}

function ietfProblems(headers: Record<string, string>, remaining: number | null): string[] {
  const policy = headers[LOWER_HEADERS.rateLimitPolicy];
  const state = headers[LOWER_HEADERS.rateLimit];
  const problems: string[] = [];
  if (policy === undefined) problems.push('RateLimit-Policy missing');
  else if (!policyWellFormed(policy)) problems.push(`RateLimit-Policy ${JSON.stringify(policy)} is not a list of items with integer q (and w)`);
  const states = parseRateLimit(state);
  if (state === undefined) problems.push('RateLimit missing');
  else if (!states) problems.push(`RateLimit ${JSON.stringify(state)} is not a list of items with integer r (and t)`);
  else if (remaining !== null && !states.some((s) => s.remaining === remaining))
    problems.push(`no RateLimit item has r=${remaining} as X-RateLimit-Remaining says`);
  return problems;
}

/**
 * The causes of the problems, when each is an X-RateLimit-* header missing (the same cause as the
 * schema's "is required but missing"); a value present but wrong is this check's own finding.
 */
export function missingCauses(headers: Record<string, string>, problems: readonly string[]): string[] | undefined {
  const missing = RATE_LIMIT_HEADERS.filter((name) => headers[name.toLowerCase()] === undefined);
  if (problems.length === 0 || missing.length === 0 || problems.some((p) => !missing.some((name) => p.startsWith(`${name} `)))) return undefined;
  return missing.map((name) => causeKey.headerMissing(name));
}

function inspect(ex: Exchange, ctx: InspectContext): void {
  const res = ex.response;
  if (!res || ex.outside) return;
  const { ledger } = ctx;
  const snapshot = readSnapshot({ status: res.status, headers: res.headers, receivedAtMs: Date.now() });
  const problems = rateLimitHeaderProblems(snapshot);
  ledger.assert(
    'headers.rate-limit',
    problems.length === 0,
    `${ex.purpose} (${res.status}): ${problems.join('; ')}`,
    [ex],
    missingCauses(res.headers, problems),
  );
  if (ctx.options.profile !== 'full') return;
  const ietf = ietfProblems(res.headers, snapshot.remaining);
  ledger.assert('ratelimit.ietf-fields', ietf.length === 0, `${ex.purpose}: ${ietf.join('; ')}`, [ex]);
}

export const rateLimitHeaderChecks: LiveChecks = { name: 'rate-limit headers', checks, inspect };
