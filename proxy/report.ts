// What the proxy says: one console line per finding as it happens, and at the end a report per key
// in every format asked for (console, JSON, JUnit, HTML with each key's timeline, HAR of the
// traffic). Keys never appear: the exchanges the proxy keeps already carry redacted Authorization
// and secret-named headers, and keys are shown by their first characters.
import { formatExchange, type Exchange } from '../conformance/http.ts';
import type { CheckResult } from '../conformance/ledger.ts';
import { OBLIGATIONS, type ClientReport } from '../server/client-report/recorder.ts';
import { timelineSvg } from '../spec/rules/timeline-svg.js';
import type { Finding, KeyReport, Level } from './judge.ts';

export type FailOn = Level | 'none';

export interface ProxyReport {
  target: string;
  startedAt: string;
  durationMs: number;
  requests: number;
  keys: KeyReport[];
  /** Every finding, in the order it appeared (one per cause, per key and check). */
  findings: Finding[];
  failOn: FailOn;
  exitCode: number;
}

export function buildReport(input: {
  target: string;
  startedAt: number;
  endedAt: number;
  keys: KeyReport[];
  findings: Finding[];
  requests: number;
  failOn: FailOn;
}): ProxyReport {
  const failing = input.findings.some((f) => input.failOn === 'should' || (input.failOn === 'must' && f.level === 'must'));
  return {
    target: input.target,
    startedAt: new Date(input.startedAt).toISOString(),
    durationMs: input.endedAt - input.startedAt,
    requests: input.requests,
    keys: input.keys,
    findings: input.findings,
    failOn: input.failOn,
    exitCode: input.failOn !== 'none' && failing ? 1 : 0,
  };
}

/** The console line of one finding, as it happens: time since start, key, side, level, check and what was seen. */
export function findingLine(f: Finding, startedAt: number): string {
  const at = `+${((f.atMs - startedAt) / 1000).toFixed(1)} s`;
  return `${at.padStart(9)}  ${f.key.padEnd(12)} ${f.side.padEnd(6)} ${f.level.toUpperCase().padEnd(6)} ${f.id}: ${f.message} (#${f.seq})`;
}

const MARK: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

function clientVerdict(c: ClientReport | undefined): string {
  if (!c) return 'client: not judged (no key)';
  return `client ${c.ready ? 'READY' : 'NOT READY'}`;
}

function serverCounts(server: CheckResult[]): string {
  const failed = server.filter((r) => r.outcome === 'failed').length;
  const warned = server.filter((r) => r.outcome === 'warned').length;
  const passed = server.filter((r) => r.outcome === 'passed').length;
  return `server: ${failed} failed, ${warned} warned, ${passed} passed`;
}

/** The report per key for a terminal. */
export function formatConsole(report: ProxyReport, options: { verbose?: boolean } = {}): string {
  const lines = [
    '',
    `Traffic through the proxy to ${report.target}: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s, ${report.findings.length} findings`,
  ];
  if (report.keys.length === 0) lines.push('No request passed.');
  for (const k of report.keys) {
    lines.push('', `${k.key}: ${k.requests} requests, ${k.refused} refused  ${serverCounts(k.server)}; ${clientVerdict(k.client)}`);
    for (const r of k.server) {
      if (r.outcome === 'passed' && !options.verbose) continue;
      const times = r.failed > 1 ? ` (${r.failed} times)` : '';
      lines.push(`  ${MARK[r.outcome]} ${r.level.padEnd(6)} ${r.id}${times}: ${r.outcome === 'passed' ? r.title : (r.failures[0]?.message ?? '')}`);
    }
    if (k.client) {
      for (const [name, o] of Object.entries(k.client.obligations) as Array<
        [keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]
      >) {
        if (o.verdict === 'yes' && !options.verbose) continue;
        lines.push(
          `  ${o.verdict === 'no' ? 'FAIL' : o.verdict === 'yes' ? 'PASS' : 'n/a '} ${OBLIGATIONS[name].level.padEnd(6)} ${OBLIGATIONS[name].id}: ${OBLIGATIONS[name].title}: ${o.detail}`,
        );
      }
    }
  }
  const verdict =
    report.failOn === 'none'
      ? ''
      : report.exitCode === 0
        ? `  (no ${report.failOn}-level finding: exit 0)`
        : `  (a ${report.failOn}-level finding was seen: exit 1)`;
  lines.push(
    '',
    `${report.findings.filter((f) => f.level === 'must').length} must, ${report.findings.filter((f) => f.level === 'should').length} should findings${verdict}`,
  );
  return `${lines.join('\n')}\n`;
}

function redactedExchange(ex: Exchange) {
  const { bytes: _bytes, ...request } = ex.request;
  return { ...ex, request };
}

/** The whole report as JSON; the exchanges shown are the redacted ones the proxy kept. */
export function formatJson(report: ProxyReport): string {
  const keys = report.keys.map((k) => ({
    ...k,
    server: k.server.map((r) => ({ ...r, failures: r.failures.map((f) => ({ ...f, evidence: f.evidence.map(redactedExchange) })) })),
  }));
  return `${JSON.stringify({ ...report, keys }, null, 2)}\n`;
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}

/** JUnit: one testsuite per key, a testcase per server check that judged its traffic and per client obligation. */
export function formatJUnit(report: ProxyReport): string {
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="adoption-kit proxy ${xml(report.target)}" time="${(report.durationMs / 1000).toFixed(3)}">`,
  ];
  for (const k of report.keys) {
    const cases: string[] = [];
    let failures = 0;
    for (const r of k.server) {
      cases.push(`    <testcase classname="proxy.server.${xml(r.id.split('.')[0]!)}" name="${xml(`${r.id} [${r.level}] ${r.title}`)}" time="0">`);
      if (r.outcome === 'failed') {
        failures++;
        const text = r.failures.map((f) => [f.message, ...f.evidence.slice(0, 2).map((ex) => formatExchange(ex))].join('\n')).join('\n\n');
        cases.push(`      <failure message="${xml(r.failures[0]?.message ?? 'failed')}" type="${r.level}">${xml(text)}</failure>`);
      } else if (r.outcome === 'warned')
        cases.push(`      <system-out>${xml(`WARNING (should): ${r.failures.map((f) => f.message).join('\n')}`)}</system-out>`);
      cases.push('    </testcase>');
    }
    for (const [name, o] of Object.entries(k.client?.obligations ?? {}) as Array<
      [keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]
    >) {
      const def = OBLIGATIONS[name];
      cases.push(`    <testcase classname="proxy.client" name="${xml(`${def.id} [${def.level}] ${def.title}`)}" time="0">`);
      if (o.verdict === 'no' && def.level === 'must') {
        failures++;
        cases.push(`      <failure message="${xml(o.detail)}" type="${def.level}"/>`);
      } else if (o.verdict === 'no') cases.push(`      <system-out>${xml(`WARNING (should): ${o.detail}`)}</system-out>`);
      else if (o.verdict === 'not observed') cases.push(`      <skipped message="${xml(o.detail)}"/>`);
      cases.push('    </testcase>');
    }
    const tests = cases.filter((c) => c.startsWith('    <testcase')).length;
    lines.push(
      `  <testsuite name="${xml(`key ${k.key}`)}" tests="${tests}" failures="${failures}" errors="0" timestamp="${report.startedAt}">`,
      ...cases,
      '  </testsuite>',
    );
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root { --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; font-family: system-ui, sans-serif; }
body { margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 2.5rem; } h3 { font-size: 1rem; }
.verdict { font-weight: bold; padding: .1rem .5rem; border-radius: .3rem; color: #fff; white-space: nowrap; }
.passed, .yes { background: var(--pass); } .failed, .no { background: var(--fail); } .warned { background: var(--warn); } .not-run, .not-observed { background: var(--skip); }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
code, pre { font-family: ui-monospace, monospace; font-size: .85rem; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
svg { max-width: 100%; height: auto; }
`;

function serverRow(r: CheckResult): string {
  const detail = r.outcome === 'passed' ? esc(r.title) : `${esc(r.failures[0]?.message ?? '')}${r.failed > 1 ? ` <small>(${r.failed} times)</small>` : ''}`;
  const evidence = r.failures[0]?.evidence[0];
  const shown = evidence ? `<details><summary>exchange</summary><pre>${esc(formatExchange(evidence, 2000))}</pre></details>` : '';
  return `<tr data-outcome="${r.outcome}"><td><span class="verdict ${r.outcome}">${MARK[r.outcome]}</span></td><td>${r.level}</td><td><code>${esc(r.id)}</code></td><td>${detail}${shown}<br><small>§ ${esc(r.section)}</small></td></tr>`;
}

function keySection(k: KeyReport): string {
  const client = k.client
    ? `<table><thead><tr><th>verdict</th><th>level</th><th>obligation</th><th>seen</th></tr></thead><tbody>${(
        Object.entries(k.client.obligations) as Array<[keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]>
      )
        .map(
          ([name, o]) =>
            `<tr data-verdict="${o.verdict}"><td><span class="verdict ${o.verdict.replace(' ', '-')}">${o.verdict}</span></td><td>${OBLIGATIONS[name].level}</td><td><code>${OBLIGATIONS[name].id}</code> ${esc(OBLIGATIONS[name].title)}</td><td>${esc(o.detail)}<br><small>§ ${esc(OBLIGATIONS[name].section)}</small></td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>Requests without a key: no client obligation to judge.</p>';
  return `<section class="key" data-key="${esc(k.key)}">
<h2>Key <code>${esc(k.key)}</code>: ${k.requests} requests, ${k.refused} refused</h2>
${timelineSvg(k.timeline)}
<h3>Server (${esc(serverCounts(k.server))})</h3>
<table><thead><tr><th>verdict</th><th>level</th><th>check</th><th>seen</th></tr></thead><tbody>${k.server.map(serverRow).join('\n')}</tbody></table>
<h3>${esc(clientVerdict(k.client))}</h3>
${client}
</section>`;
}

/** One self-contained page: per key its timeline, the server's checks and the client's obligations. */
export function formatHtml(report: ProxyReport): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Traffic to ${esc(report.target)}: ${report.findings.length} findings</title>
<style>${CSS}</style>
</head>
<body>
<h1>Traffic through the proxy to <code>${esc(report.target)}</code></h1>
<p>${report.requests} requests from ${esc(report.startedAt)} in ${(report.durationMs / 1000).toFixed(1)} s; ${report.findings.filter((f) => f.level === 'must').length} must and ${report.findings.filter((f) => f.level === 'should').length} should findings.</p>
${report.keys.map(keySection).join('\n')}
</body>
</html>
`;
}

/** The traffic as HAR 1.2 (keys redacted), for a browser's network panel or any HAR viewer. */
export function formatHar(exchanges: readonly Exchange[]): string {
  const pairs = (headers: Record<string, string>) => Object.entries(headers).map(([name, value]) => ({ name, value }));
  const entries = exchanges.map((ex) => {
    const url = new URL(ex.request.url);
    const res = ex.response;
    const wait = Math.max(0, ex.receivedAt - ex.sentAt);
    return {
      startedDateTime: new Date(ex.sentAt).toISOString(),
      time: wait,
      request: {
        method: ex.request.method,
        url: ex.request.url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: pairs(ex.request.headers),
        queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
        ...(ex.request.body !== undefined ? { postData: { mimeType: ex.request.headers['content-type'] ?? '', text: ex.request.body } } : {}),
        headersSize: -1,
        bodySize: ex.request.body?.length ?? 0,
      },
      response: {
        status: res?.status ?? 0,
        statusText: ex.error ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: pairs(res?.headers ?? {}),
        content: { size: res?.body.length ?? 0, mimeType: res?.headers['content-type'] ?? '', text: res?.body ?? '' },
        redirectURL: res?.headers.location ?? '',
        headersSize: -1,
        bodySize: res?.body.length ?? -1,
      },
      cache: {},
      timings: { send: 0, wait, receive: 0 },
      comment: ex.outside ? `outside the description: ${ex.outside}` : ex.operationId,
    };
  });
  return `${JSON.stringify({ log: { version: '1.2', creator: { name: 'adoption-kit proxy', version: '1' }, entries } }, null, 2)}\n`;
}
