// The whole report as JSON for tools. The run replaced its keys where it made the report; what is
// named like a secret is redacted again here, for a report built elsewhere (replay lines name the
// environment variables that hold the keys).
import { redactExchange } from '../../spec/rules/redact.js';
import type { Exchange } from '../../judge/exchange.ts';
import type { Report } from '../run.ts';

function redactedExchange(given: Exchange) {
  const ex = redactExchange(given);
  const { bytes, ...request } = ex.request;
  return { ...ex, request: { ...request, ...(bytes ? { bytesBase64: bytes.toString('base64') } : {}) } };
}

/** The whole report as JSON, keys redacted in every request shown. */
export function formatJson(report: Report): string {
  const results = report.results.map((r) => ({
    ...r,
    failures: r.failures.map((f) => ({ ...f, evidence: f.evidence.map(redactedExchange) })),
  }));
  const dredd = report.dredd
    ? {
        durationMs: report.dredd.durationMs,
        error: report.dredd.error,
        transactions: report.dredd.transactions.map((t) => ({ name: t.name, status: t.status, message: t.message })),
      }
    : undefined;
  return `${JSON.stringify({ ...report, results, dredd }, null, 2)}\n`;
}
