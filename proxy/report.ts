// What the proxy says: a console line per finding as it happens, and at the end a report per key in
// every format asked for. Keys appear only as their labels (spec/rules/redact.js); what is named like a
// secret is redacted again here, for a report built elsewhere.
import { curlLine, formatExchange, type CheckResult, type Exchange } from '../judge/index.ts';
import { OBLIGATIONS, readiness, type ClientReport } from '../judge/client-obligations.ts';
import { redactExchange, redactUrl } from '../spec/rules/redact.js';
import { timelineSvg } from '../spec/rules/timeline-svg.js';
import type { Level } from './judge.ts';
import type { Finding, KeyReport, SummarisedKeys } from './findings.ts';

export type FailOn = Level | 'none';

/** Keys the HTML page and the console show in full; the JSON has every key. */
export const KEYS_SHOWN = 50;

export interface ProxyReport {
  target: string;
  startedAt: string;
  durationMs: number;
  requests: number;
  /** Exchanges cut short: by --timeout, by the stop, or by a client that went away. */
  cutShort: number;
  keys: KeyReport[];
  /** Keys summarised to keep memory bounded (--max-keys). */
  summarised?: SummarisedKeys;
  /** The first findings, in the order they appeared (one per cause, per key and check). */
  findings: Finding[];
  /** Every finding told, by level (findings past the kept ones included). */
  counts: { must: number; should: number };
  failOn: FailOn;
  exitCode: number;
}

export function buildReport(input: {
  target: string;
  startedAt: number;
  endedAt: number;
  keys: KeyReport[];
  summarised?: SummarisedKeys | undefined;
  findings: Finding[];
  counts?: { must: number; should: number };
  requests: number;
  cutShort?: number;
  failOn: FailOn;
}): ProxyReport {
  const counts = input.counts ?? {
    must: input.findings.filter((f) => f.level === 'must').length,
    should: input.findings.filter((f) => f.level === 'should').length,
  };
  const failing = input.failOn === 'should' ? counts.must + counts.should > 0 : input.failOn === 'must' && counts.must > 0;
  return {
    target: redactUrl(input.target),
    startedAt: new Date(input.startedAt).toISOString(),
    durationMs: input.endedAt - input.startedAt,
    requests: input.requests,
    cutShort: input.cutShort ?? 0,
    keys: input.keys,
    ...(input.summarised ? { summarised: input.summarised } : {}),
    findings: input.findings,
    counts,
    failOn: input.failOn,
    exitCode: failing ? 1 : 0,
  };
}

/** The keys to show first: those with findings, then the busiest. */
function byInterest(keys: readonly KeyReport[]): KeyReport[] {
  const weight = (k: KeyReport) =>
    k.server.filter((r) => r.outcome === 'failed').length * 4 +
    k.server.filter((r) => r.outcome === 'warned').length +
    Object.values(k.client?.obligations ?? {}).filter((o) => o.verdict === 'no').length * 4;
  return [...keys].sort((a, b) => weight(b) - weight(a) || b.requests - a.requests);
}

/** The console line of one finding, as it happens: time since start, key, side, level, check and what was seen. */
export function findingLine(f: Finding, startedAt: number): string {
  const at = `+${((f.atMs - startedAt) / 1000).toFixed(1)} s`;
  return `${at.padStart(9)}  ${f.key.padEnd(12)} ${f.side.padEnd(6)} ${f.level.toUpperCase().padEnd(6)} ${f.id}: ${f.message} (#${f.seq})`;
}

const MARK: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

/** NOT READY only on a must; should-level breaches are warnings, as conform counts them. */
function clientVerdict(c: ClientReport | undefined): string {
  return c ? `client ${readiness(c)}` : 'client: not judged (no key)';
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
    `Traffic through the proxy to ${report.target}: ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s, ${report.counts.must + report.counts.should} findings${report.cutShort > 0 ? `, ${report.cutShort} exchanges cut short` : ''}`,
  ];
  if (report.keys.length === 0 && !report.summarised) lines.push('No request passed.');
  const shown = byInterest(report.keys);
  for (const k of shown.slice(0, KEYS_SHOWN)) {
    lines.push('', `${k.key}: ${k.requests} requests, ${k.refused} refused  ${serverCounts(k.server)}; ${clientVerdict(k.client)}`);
    if (k.readings !== undefined) lines.push(`  what the target chose: ${k.readings}`);
    for (const r of k.server) {
      if (r.outcome === 'passed' && !options.verbose) continue;
      const times = r.failed > 1 ? ` (${r.failed} times)` : '';
      lines.push(`  ${MARK[r.outcome]} ${r.level.padEnd(6)} ${r.id}${times}: ${r.outcome === 'passed' ? r.title : (r.failures[0]?.message ?? r.reason ?? '')}`);
    }
    if (k.client) {
      for (const [name, o] of Object.entries(k.client.obligations) as Array<
        [keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]
      >) {
        if (o.verdict === 'yes' && !options.verbose) continue;
        lines.push(
          `  ${o.verdict === 'no' ? (OBLIGATIONS[name].level === 'must' ? 'FAIL' : 'WARN') : o.verdict === 'yes' ? 'PASS' : 'n/a '} ${OBLIGATIONS[name].level.padEnd(6)} ${OBLIGATIONS[name].id}: ${OBLIGATIONS[name].title}: ${o.detail}`,
        );
      }
    }
  }
  if (shown.length > KEYS_SHOWN) lines.push('', `… and ${shown.length - KEYS_SHOWN} more keys (every key is in --json)`);
  if (report.summarised) lines.push('', summaryLine(report.summarised));
  const verdict =
    report.failOn === 'none'
      ? ''
      : report.exitCode === 0
        ? `  (no ${report.failOn}-level finding: exit 0)`
        : `  (a ${report.failOn}-level finding was seen: exit 1)`;
  lines.push('', `${report.counts.must} must, ${report.counts.should} should findings${verdict}`);
  return `${lines.join('\n')}\n`;
}

function summaryLine(s: SummarisedKeys): string {
  const failed = Object.entries(s.failed)
    .map(([id, n]) => `${id} (${n})`)
    .join(', ');
  return `${s.keys} idle keys summarised past --max-keys: ${s.requests} requests, ${s.refused} refused${failed ? `; failed: ${failed}` : ''}`;
}

/** An exchange as the reports keep it: no raw bytes, and a curl line that sends it again with $API_KEY. */
function redactedExchange(given: Exchange): Exchange {
  const ex = redactExchange(given);
  const { bytes: _bytes, ...request } = ex.request;
  const auth = /^(\S+)\s/.exec(request.headers.authorization ?? '');
  const replay =
    ex.replay ??
    curlLine({ ...request, headers: { ...request.headers, ...(auth ? { authorization: `${auth[1]} \u0000key` } : {}) } }, auth ? { API_KEY: '\u0000key' } : {});
  return { ...ex, request, replay };
}

/** The whole report as JSON; the exchanges shown are the redacted ones the proxy kept. */
export function formatJson(report: ProxyReport): string {
  const keys = report.keys.map((k) => ({
    ...k,
    server: k.server.map((r) => ({ ...r, failures: r.failures.map((f) => ({ ...f, evidence: f.evidence.map(redactedExchange) })) })),
    sample: { ...k.sample, exchanges: k.sample.exchanges.map(redactedExchange) },
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
  const detail =
    r.outcome === 'passed' ? esc(r.title) : `${esc(r.failures[0]?.message ?? r.reason ?? '')}${r.failed > 1 ? ` <small>(${r.failed} times)</small>` : ''}`;
  const evidence = r.failures[0]?.evidence[0];
  // One exchange per check here; the JSON report has every failure the ledger kept, with its exchanges.
  const kept = r.failures.reduce((n, f) => n + f.evidence.length, 0);
  const more = kept > 1 ? ` <small>(${kept - 1} more in the JSON report)</small>` : '';
  const shown = evidence ? `<details><summary>exchange${more}</summary><pre>${esc(formatExchange(evidence, 2000))}</pre></details>` : '';
  return `<tr data-outcome="${r.outcome}"><td><span class="verdict ${r.outcome}">${MARK[r.outcome]}</span></td><td>${r.level}</td><td><code>${esc(r.id)}</code></td><td>${detail}${shown}<br><small>§ ${esc(r.section)}</small></td></tr>`;
}

/** The HTML shows a few of the exchanges kept; the JSON has them all. */
const SAMPLE_SHOWN = 5;

function sampleSection(k: KeyReport): string {
  const { exchanges, dropped } = k.sample;
  const shown = exchanges.slice(-SAMPLE_SHOWN);
  const more = exchanges.length - shown.length;
  const note = `${k.requests} exchanges: the last ${shown.length} shown${more > 0 ? `, ${more} more kept in the JSON report (--json)` : ''}${dropped > 0 ? `, ${dropped} not kept (--keep sizes the sample)` : ''}.`;
  return `<details class="sample"><summary>Exchanges</summary><p><small>${esc(note)}</small></p>${shown
    .map((ex) => `<pre>${esc(formatExchange(ex, 1000))}</pre>`)
    .join('\n')}</details>`;
}

function keySection(k: KeyReport): string {
  const client = k.client
    ? `<table><thead><tr><th>verdict</th><th>level</th><th>obligation</th><th>seen</th></tr></thead><tbody>${(
        Object.entries(k.client.obligations) as Array<[keyof ClientReport['obligations'], ClientReport['obligations'][keyof ClientReport['obligations']]]>
      )
        .map(
          ([name, o]) =>
            `<tr data-verdict="${o.verdict}"><td>${o.verdict === 'no' && OBLIGATIONS[name].level === 'should' ? '<span class="verdict warned">no (warning)</span>' : `<span class="verdict ${o.verdict.replace(' ', '-')}">${o.verdict}</span>`}</td><td>${OBLIGATIONS[name].level}</td><td><code>${OBLIGATIONS[name].id}</code> ${esc(OBLIGATIONS[name].title)}</td><td>${esc(o.detail)}<br><small>§ ${esc(OBLIGATIONS[name].section)}</small></td></tr>`,
        )
        .join('')}</tbody></table>`
    : '<p>Requests without a key: no client obligation to judge.</p>';
  return `<section class="key" data-key="${esc(k.key)}">
<h2>Key <code>${esc(k.key)}</code>: ${k.requests} requests, ${k.refused} refused</h2>
${timelineSvg(k.timeline)}${k.timelineDropped > 0 ? `\n<p><small>The timeline draws the last ${k.timeline.points.length} answers; ${k.timelineDropped} earlier ones were judged and are not drawn.</small></p>` : ''}
${k.readings !== undefined ? `<p class="readings">What the target chose: ${esc(k.readings)}</p>\n` : ''}<h3>Server (${esc(serverCounts(k.server))})</h3>
<table><thead><tr><th>verdict</th><th>level</th><th>check</th><th>seen</th></tr></thead><tbody>${k.server.map(serverRow).join('\n')}</tbody></table>
<h3>${esc(clientVerdict(k.client))}</h3>
${client}
${sampleSection(k)}
</section>`;
}

/** A key not shown in full: one row. */
function keyRow(k: KeyReport): string {
  return `<tr data-key="${esc(k.key)}"><td><code>${esc(k.key)}</code></td><td>${k.requests}</td><td>${k.refused}</td><td>${esc(serverCounts(k.server))}</td><td>${esc(clientVerdict(k.client))}</td></tr>`;
}

function otherKeys(report: ProxyReport, rest: readonly KeyReport[]): string {
  const rows = rest.length
    ? `<h2>${rest.length} more keys</h2><p>Shown in full in the JSON report (--json).</p><table><thead><tr><th>key</th><th>requests</th><th>refused</th><th>server</th><th>client</th></tr></thead><tbody>${rest.map(keyRow).join('\n')}</tbody></table>`
    : '';
  const summary = report.summarised ? `<h2>Summarised keys</h2><p>${esc(summaryLine(report.summarised))}</p>` : '';
  return rows + summary;
}

/** One self-contained page: per key its timeline, the server's checks and the client's obligations. */
export function formatHtml(report: ProxyReport): string {
  const shownKeys = byInterest(report.keys);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Traffic to ${esc(report.target)}: ${report.counts.must + report.counts.should} findings</title>
<style>${CSS}</style>
</head>
<body>
<h1>Traffic through the proxy to <code>${esc(report.target)}</code></h1>
<p>${report.requests} requests from ${esc(report.startedAt)} in ${(report.durationMs / 1000).toFixed(1)} s; ${report.counts.must} must and ${report.counts.should} should findings${report.cutShort > 0 ? `; ${report.cutShort} exchanges cut short` : ''}.</p>
${shownKeys.slice(0, KEYS_SHOWN).map(keySection).join('\n')}
${otherKeys(report, shownKeys.slice(KEYS_SHOWN))}
</body>
</html>
`;
}
