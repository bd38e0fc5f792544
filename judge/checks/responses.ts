// Every response the run saw: never a server error, whatever was sent; and, for requests the
// description describes, against the description at must level (the specification), at should
// level (the reference server's decisions too), with error bodies naming their own status.
import { jsonBody, unreadReason, type Exchange } from '../exchange.ts';
import { decisionProblems, validateResponse, type Problem } from '../contract.ts';
import type { CheckDef } from '../check-def.ts';
import { SECTION } from '../check-def.ts';
import type { InspectContext, LiveChecks } from './inspect.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'errors.no-server-error',
    level: 'must',
    profile: 'contract',
    section: `${SECTION.errors}; RFC 9110 §15.6`,
    title: 'No request of any phase, valid or not, is answered with a server error (5xx; a 503 with Retry-After excepted)',
    reads: 'status-and-headers',
  },
  { id: 'errors.status-field', level: 'must', profile: 'contract', section: SECTION.errors, title: "Every error body's status equals the HTTP status" },
  {
    id: 'schema.every-response',
    level: 'must',
    profile: 'contract',
    section: 'Resources and their fields; Errors',
    title: "Every response seen is documented and valid against its OpenAPI schemas (ajv), the reference server's decisions left out",
  },
  {
    id: 'schema.reference-decisions',
    level: 'should',
    profile: 'contract',
    section: 'spec/openapi.yaml x-decision',
    title: "Every response also keeps the reference server's decisions the description marks x-decision (error code enum, name length, header formats)",
  },
];

const text = (problems: Problem[]) => problems.map((p) => `${p.where} ${p.message}`).join('; ');
const causes = (problems: Problem[]) => problems.map((p) => p.cause);

export const responseChecks: LiveChecks = {
  name: 'responses',
  checks,
  inspect: (ex: Exchange, ctx: InspectContext) => {
    const { ledger, contract } = ctx;
    const res = ex.response;
    if (ex.superseded) return;
    if (res && res.status >= 500) {
      // 503 with Retry-After is the one server error that says "later", not "broken" (RFC 9110 §15.6.4).
      const later = res.status === 503 && res.headers['retry-after'] !== undefined;
      if (!later) ledger.fail('errors.no-server-error', `${ex.purpose}: answered ${res.status}`, [ex]);
    } else if (res) ledger.pass('errors.no-server-error');
    // What the description does not describe is judged by the checks that sent it.
    if (ex.outside) return;
    if (!res) {
      ledger.fail('schema.every-response', `no response: ${ex.error}`, [ex]);
      return;
    }
    const unread = unreadReason(res);
    if (unread) {
      // Only the first part of the body was read: its schema, and what it holds, cannot be judged.
      const why = `${ex.purpose}: ${unread}`;
      ledger.unjudged('schema.every-response', why);
      ledger.unjudged('schema.reference-decisions', why);
      if (res.status >= 400) ledger.unjudged('errors.status-field', why);
      return;
    }
    const problems = validateResponse(contract, ex.operationId, res, 'must');
    ledger.assert('schema.every-response', problems.length === 0, `${ex.purpose}: ${text(problems)}`, [ex], causes(problems));
    const decisions = decisionProblems(contract, ex.operationId, res, problems);
    ledger.assert('schema.reference-decisions', decisions.length === 0, `${ex.purpose}: ${text(decisions)}`, [ex], causes(decisions));
    if (res.status >= 400) {
      const body = jsonBody(ex) as Record<string, unknown> | undefined;
      ledger.assert(
        'errors.status-field',
        body?.status === res.status,
        `${ex.purpose}: error body status is ${JSON.stringify(body?.status)}, HTTP status ${res.status}`,
        [ex],
      );
    }
  },
};
