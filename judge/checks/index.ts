// The live checks, in the order conform's areas run them. Each defines its checks and records
// verdicts only for them (its ledger refuses any other id).
import { authChecks } from './auth.ts';
import { createChecks } from './create.ts';
import { deprecationChecks } from './deprecation.ts';
import type { CheckDef } from '../check-def.ts';
import { HISTORY_CHECKS } from './history.ts';
import type { LiveChecks } from './inspect.ts';
import { rateLimitHeaderChecks } from './rate-limit-headers.ts';
import { RATE_LIMIT_CHECKS } from './rate-limit.ts';
import { responseChecks } from './responses.ts';

export type { InspectContext, LiveChecks } from './inspect.ts';

/** Every live check: conform applies them to each exchange of its run, the proxy to live traffic. */
export const LIVE_CHECKS: readonly LiveChecks[] = [createChecks, authChecks, responseChecks, rateLimitHeaderChecks, deprecationChecks];

/** Every check the judge defines: its ids are its own, and nothing below it names another's. */
export const JUDGE_CHECKS: readonly CheckDef[] = [...LIVE_CHECKS.flatMap((live) => live.checks), ...RATE_LIMIT_CHECKS, ...HISTORY_CHECKS];

export { RATE_LIMIT_CHECKS, rateLimitChecks } from './rate-limit.ts';
