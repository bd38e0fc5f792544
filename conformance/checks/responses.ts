// Every response the run saw, against the description: at must level (the specification), at
// should level (the reference server's decisions too), and error bodies naming their own status.
import type { CheckDef } from '../catalogue.ts';
import { jsonBody } from '../http.ts';
import { decisionProblems, validateResponse, type Problem } from '../openapi.ts';
import { SECTION, type Area } from './area.ts';

const checks: readonly CheckDef[] = [
  { id: 'errors.status-field', level: 'must', profile: 'contract', section: SECTION.errors, title: "Every error body's status equals the HTTP status" },
  { id: 'schema.every-response', level: 'must', profile: 'contract', section: 'Resources and their fields; Errors', title: 'Every response seen is documented and valid against its OpenAPI schemas (ajv), the reference server\'s decisions left out' },
  {
    id: 'schema.reference-decisions',
    level: 'should',
    profile: 'contract',
    section: 'spec/openapi.yaml x-decision',
    title: "Every response also keeps the reference server's decisions the description marks x-decision (error code enum, name length, header formats)",
  },
];

const text = (problems: Problem[]) => problems.map((p) => `${p.where} ${p.message}`).join('; ');

export const responsesArea: Area = {
  name: 'responses',
  checks,
  inspect: (ex, ctx) => {
    const { ledger, contract } = ctx;
    const res = ex.response;
    if (!res) {
      ledger.fail('schema.every-response', `no response: ${ex.error}`, [ex]);
      return;
    }
    const problems = validateResponse(contract, ex.operationId, res, 'must');
    ledger.assert('schema.every-response', problems.length === 0, `${ex.purpose}: ${text(problems)}`, [ex]);
    const decisions = decisionProblems(contract, ex.operationId, res);
    ledger.assert('schema.reference-decisions', decisions.length === 0, `${ex.purpose}: ${text(decisions)}`, [ex]);
    if (res.status >= 400) {
      const body = jsonBody(ex) as Record<string, unknown> | undefined;
      ledger.assert('errors.status-field', body?.status === res.status, `${ex.purpose}: error body status is ${JSON.stringify(body?.status)}, HTTP status ${res.status}`, [ex]);
    }
  },
};
