// The proxy's HTML report: one self-contained page, per key its rate-limit timeline (drawn with
// spec/rules/timeline-svg.js), the server's checks and the client's obligations; report.ts builds the
// report and writes the other formats.
import { formatExchange, type CheckResult } from '../judge/index.ts';
import { OBLIGATIONS, type ClientReport } from '../judge/client-obligations.ts';
import { timelineSvg } from '../spec/rules/timeline-svg.js';
import type { KeyReport } from './findings.ts';
import { byInterest, clientVerdict, KEYS_SHOWN, MARK, notJudged, serverCounts, summaryLine, type ProxyReport } from './report.ts';

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
<p>${report.requests} requests from ${esc(report.startedAt)} in ${(report.durationMs / 1000).toFixed(1)} s; ${report.counts.must} must and ${report.counts.should} should findings${report.cutShort > 0 ? `; ${report.cutShort} exchanges cut short` : ''}.</p>${report.unjudged > 0 ? `\n<p><strong>${esc(notJudged(report.unjudged))}</strong></p>` : ''}
${shownKeys.slice(0, KEYS_SHOWN).map(keySection).join('\n')}
${otherKeys(report, shownKeys.slice(KEYS_SHOWN))}
</body>
</html>
`;
}
