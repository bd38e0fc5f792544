// The run's keys out of its report, once, where the report is made: every format (console, JSON,
// JUnit, HTML, the library's Report) then holds labels only. The rules are spec/rules/redact.js's;
// this applies them to the parts of a report that can carry a key.
import { KnownKeys, redactHeaders, redactText, redactUrl, secretsOf } from '../../spec/rules/redact.js';
import { redactResults } from '../../judge/redact-results.ts';
import type { ProgressEvent } from '../checks/area.ts';
import type { DreddOutcome } from '../dredd/run.ts';
import type { CheckResult } from '../../judge/ledger.ts';

/** The keys a run knows: --api-key, --rate-limit-key and the secrets its --header values carry. */
export function runKeys(options: { apiKey: string; rateLimitKey?: string | undefined; headers?: Record<string, string> | undefined }): KnownKeys {
  return new KnownKeys([options.apiKey, options.rateLimitKey, ...secretsOf(options.headers ?? {})]);
}

function redactDredd(dredd: DreddOutcome, keys: KnownKeys): DreddOutcome {
  const text = (t: string) => redactText(t, keys);
  return {
    ...dredd,
    log: text(dredd.log),
    ...(dredd.error !== undefined ? { error: text(dredd.error) } : {}),
    ...(dredd.stopped !== undefined ? { stopped: text(dredd.stopped) } : {}),
    transactions: dredd.transactions.map((t) => ({
      ...t,
      message: text(t.message),
      ...(t.request
        ? {
            request: {
              ...t.request,
              uri: redactUrl(t.request.uri, keys),
              headers: redactHeaders(t.request.headers, keys),
              ...(t.request.body !== undefined ? { body: text(t.request.body) } : {}),
            },
          }
        : {}),
      ...(t.response
        ? {
            response: {
              ...t.response,
              headers: redactHeaders(t.response.headers, keys),
              ...(t.response.body !== undefined ? { body: text(t.response.body) } : {}),
            },
          }
        : {}),
    })),
  };
}

/** The parts of a report (run.ts's Report) that can carry a key. */
interface Redactable {
  target: string;
  results: CheckResult[];
  pacing: { waits: Array<{ ms: number; why: string }> };
  choices: Record<string, string>;
  dredd?: DreddOutcome;
  stopped?: string;
}

/** The report with every place a key can appear redacted: the target, results, waits, choices and Dredd's transactions. */
export function redactReport<R extends Redactable>(report: R, keys: KnownKeys): R {
  const text = (t: string) => redactText(t, keys);
  return {
    ...report,
    target: redactUrl(report.target, keys),
    results: redactResults(report.results, keys),
    pacing: { ...report.pacing, waits: report.pacing.waits.map((w) => ({ ...w, why: text(w.why) })) },
    choices: Object.fromEntries(Object.entries(report.choices).map(([point, value]) => [point, text(value)])),
    ...(report.dredd ? { dredd: redactDredd(report.dredd, keys) } : {}),
    ...(report.stopped !== undefined ? { stopped: text(report.stopped) } : {}),
  };
}

/** Progress as the console shows it while the run goes, keys replaced in every line it prints. */
export function redactedProgress(listener: (event: ProgressEvent) => void, keys: KnownKeys): (event: ProgressEvent) => void {
  return (event) => {
    if (event.type === 'note') listener({ ...event, text: redactText(event.text, keys) });
    else if (event.type === 'wait') listener({ ...event, why: redactText(event.why, keys) });
    else if (event.type === 'phase') listener({ ...event, name: redactText(event.name, keys) });
    else if (event.type === 'dredd') listener({ ...event, outcome: redactDredd(event.outcome, keys) });
    else listener(event);
  };
}
