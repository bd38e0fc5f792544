// The whole report as JSON for tools, keys redacted in every request shown (replay lines name the
// environment variables that hold them).
import { redactHeader, type Exchange } from '../http.ts';
import type { Report } from '../run.ts';

function redactedExchange(ex: Exchange) {
  const headers = Object.fromEntries(Object.entries(ex.request.headers).map(([name, value]) => [name, redactHeader(name, value)]));
  const { bytes, ...request } = ex.request;
  return { ...ex, request: { ...request, headers, ...(bytes ? { bytesBase64: bytes.toString('base64') } : {}) } };
}

/** The whole report as JSON, keys redacted in every request shown. */
export function formatJson(report: Report): string {
  const results = report.results.map((r) => ({
    ...r,
    failures: r.failures.map((f) => ({ message: f.message, evidence: f.evidence.map(redactedExchange) })),
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
