// The rate-limit headers of every response: the X-RateLimit-* the specification defines, and the
// IETF RateLimit fields as good practice.
import { parseInteger } from '../../spec/rules/fields.js';
import { parseRateLimit, parseRateLimitPolicy } from '../../spec/rules/structured-fields.js';
import type { CheckDef } from '../catalogue.ts';
import type { Exchange } from '../http.ts';
import { SECTION, type InspectContext, type LiveArea } from './area.ts';

const checks: readonly CheckDef[] = [
  { id: 'headers.rate-limit', level: 'must', profile: 'contract', section: SECTION.headers, title: 'Every response carries X-RateLimit-Limit/Remaining/Reset as integers, Remaining <= Limit' },
  {
    id: 'ratelimit.ietf-fields',
    level: 'should',
    profile: 'full',
    section: `${SECTION.headers}; draft-ietf-httpapi-ratelimit-headers`,
    title: 'RateLimit-Policy and RateLimit are well-formed structured fields agreeing with X-RateLimit-*',
  },
];

function ietfProblems(headers: Record<string, string>, remaining: number | null): string[] {
  const policy = headers['ratelimit-policy'];
  const state = headers.ratelimit;
  const problems: string[] = [];
  if (policy === undefined) problems.push('RateLimit-Policy missing');
  else if (!parseRateLimitPolicy(policy)) problems.push(`RateLimit-Policy ${JSON.stringify(policy)} is not a list of items with integer q (and w)`);
  const states = parseRateLimit(state);
  if (state === undefined) problems.push('RateLimit missing');
  else if (!states) problems.push(`RateLimit ${JSON.stringify(state)} is not a list of items with integer r (and t)`);
  else if (remaining !== null && !states.some((s) => s.remaining === remaining)) problems.push(`no RateLimit item has r=${remaining} as X-RateLimit-Remaining says`);
  return problems;
}

function inspect(ex: Exchange, ctx: InspectContext): void {
  const res = ex.response;
  if (!res || ex.outside) return;
  const { ledger } = ctx;
  const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((h) => parseInteger(res.headers[h]));
  const bad = (
    [
      ['X-RateLimit-Limit', limit],
      ['X-RateLimit-Remaining', remaining],
      ['X-RateLimit-Reset', reset],
    ] as const
  ).filter(([, v]) => v === null || v === undefined || v < 0);
  if (bad.length > 0) ledger.fail('headers.rate-limit', `${ex.purpose} (${res.status}): ${bad.map(([n]) => n).join(', ')} missing or not a non-negative integer`, [ex]);
  else ledger.assert('headers.rate-limit', remaining! <= limit!, `${ex.purpose}: Remaining ${remaining} exceeds Limit ${limit}`, [ex]);
  if (ctx.options.profile !== 'full') return;
  const problems = ietfProblems(res.headers, remaining ?? null);
  ledger.assert('ratelimit.ietf-fields', problems.length === 0, `${ex.purpose}: ${problems.join('; ')}`, [ex]);
}

export const rateLimitHeadersArea: LiveArea = { name: 'rate-limit headers', checks, inspect };
