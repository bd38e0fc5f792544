// What one generated input's answer says: the check a case belongs to, its verdict (accepted,
// refused with a 4xx, with 400 where the specification says so, or served within range where it
// leaves the refusal open), and how a case is sent. input.ts (examples, coverage) and
// input-fuzzing.ts (fast-check properties) both judge with these.
import type { Case, Expectation } from '../generate/cases.ts';
import type { Judgement } from '../generate/fuzz.ts';
import { jsonBody, type Exchange } from '../../judge/exchange.ts';
import type { AreaContext } from './area.ts';
import { describeStatus, status } from '../../judge/answers.ts';
import { send } from './support.ts';

/** Markers of invalid bodies sent, with the exchange that sent each. */
export type Markers = Map<string, Exchange>;

/** The check a case's outcome belongs to. */
function checkOf(expect: Expectation): string {
  if (expect.valid) return expect.level === 'must' ? 'input.valid-accepted' : 'input.decision-valid-accepted';
  return expect.level === 'must' ? 'input.invalid-rejected' : 'input.decision-invalid-rejected';
}

/** What one answer says about one case: every check it decides, passed or not. */
export function judge(expect: Expectation, ex: Exchange, purpose: string): Judgement {
  const code = status(ex);
  const check = checkOf(expect);
  if (code === undefined) return { problem: { check, message: `${purpose}: ${describeStatus(ex)}` }, passed: [] };
  if (expect.valid) {
    if (expect.success.includes(code)) return { passed: [check] };
    return { problem: { check, message: `${purpose}: answered ${code}, expected ${expect.success.join(' or ')}` }, passed: [] };
  }
  const refused = code >= 400 && code < 500;
  if (!refused && code >= 200 && code < 300 && expect.servedAtMost !== undefined) return servedInRange(expect.servedAtMost, ex, purpose, check);
  if (!refused)
    return {
      problem: { check, message: `${purpose}: answered ${code}, expected a 4xx refusal${code < 300 ? ' (the invalid request was served)' : ''}` },
      passed: [],
    };
  if (expect.level === 'should') {
    return code === 400 ? { passed: [check] } : { problem: { check, message: `${purpose}: refused with ${code}, expected 400` }, passed: [] };
  }
  if (expect.where === 'path' || code === 400) return { passed: expect.where === 'path' ? [check] : [check, 'input.invalid-400'] };
  return { problem: { check: 'input.invalid-400', message: `${purpose}: refused with ${code}, expected 400` }, passed: [check] };
}

/**
 * An out-of-range query value that was served: the specification leaves open whether it is refused,
 * clamped or ignored, so the must-level check holds only the page to what any of those would serve;
 * the reference server's refusal with 400 is asked at should level.
 */
function servedInRange(atMost: number, ex: Exchange, purpose: string, check: string): Judgement {
  const body = jsonBody(ex);
  const count = Array.isArray(body) ? body.length : undefined;
  if (count === undefined || count > atMost)
    return {
      problem: { check, message: `${purpose}: served ${count ?? 'a body that is not a list'} items; clamped or ignored it may serve at most ${atMost}` },
      passed: [],
    };
  return { problem: { check: 'input.invalid-400', message: `${purpose}: served (clamped or ignored) instead of refused with 400` }, passed: [check] };
}

export async function sendCase(ctx: AreaContext, c: Case, phase: string): Promise<Exchange> {
  return send(ctx, {
    operationId: c.operationId,
    purpose: c.purpose,
    method: c.method,
    path: c.path,
    ...(c.query ? { query: c.query } : {}),
    ...(c.raw !== undefined ? { rawBody: c.raw } : c.json !== undefined ? { json: c.json } : {}),
    phase,
  });
}
