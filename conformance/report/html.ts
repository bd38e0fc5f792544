// One self-contained HTML page of a report: inline CSS and a few lines of inline script, no font,
// image or script from anywhere (its Content-Security-Policy forbids every fetch), so it reads the
// same from a CI artifact on a machine without network. The verdict of each check, and for each
// failure the request, the response (keys redacted) and the curl line that replays it.
import { formatExchange, type Exchange } from '../../judge/exchange.ts';
import type { CheckResult } from '../../judge/ledger.ts';
import { VERDICT as RUN_VERDICT, type Report } from '../run.ts';
import { timelineSvg } from '../../spec/rules/timeline-svg.js';

const VERDICT: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
:root { --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --skip: #6e7781; font-family: system-ui, sans-serif; }
body { margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.verdict { font-weight: bold; padding: .1rem .5rem; border-radius: .3rem; color: #fff; }
.passed { background: var(--pass); } .failed { background: var(--fail); } .warned { background: var(--warn); } .not-run { background: var(--skip); }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
code, pre { font-family: ui-monospace, monospace; font-size: .85rem; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
.summary span { margin-right: 1.2rem; }
nav button { margin-right: .4rem; } nav button[aria-pressed="true"] { font-weight: bold; }
svg { max-width: 100%; height: auto; }
details { margin: .5rem 0 1rem; } .replay { display: flex; gap: .5rem; align-items: flex-start; } .replay pre { flex: 1; margin: 0; }
`;

// Filters the table by verdict and copies replay lines; nothing else, and nothing that fetches.
const SCRIPT = `
document.querySelectorAll('nav button').forEach(function (button) {
  button.addEventListener('click', function () {
    var want = button.getAttribute('data-show');
    document.querySelectorAll('nav button').forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); });
    document.querySelectorAll('tr[data-outcome]').forEach(function (row) {
      row.hidden = want !== 'all' && row.getAttribute('data-outcome') !== want;
    });
  });
});
document.querySelectorAll('button.copy').forEach(function (button) {
  button.addEventListener('click', function () {
    var text = button.parentElement.querySelector('pre').textContent;
    if (navigator.clipboard) navigator.clipboard.writeText(text).then(function () { button.textContent = 'copied'; });
  });
});
`;

function exchangeHtml(ex: Exchange): string {
  const replay = ex.replay ? `<div class="replay"><pre class="curl">${esc(ex.replay)}</pre><button type="button" class="copy">copy</button></div>` : '';
  return `<pre>${esc(formatExchange(ex, 2000))}</pre>${replay}`;
}

/** Links to the checks a cause is told under, or broke. */
const checkLinks = (ids: readonly string[]) => ids.map((id) => `<a href="#${esc(id)}"><code>${esc(id)}</code></a>`).join(', ');

function resultRow(r: CheckResult): string {
  const why =
    r.outcome === 'not-run' ? `<br><small>${esc(r.reason ?? '')}</small>` : r.followsFrom ? `<br><small>follows from ${checkLinks(r.followsFrom)}</small>` : '';
  // A failure's or a warning's notes are shown with its details; any other check's here.
  const notes = r.outcome === 'failed' || r.outcome === 'warned' ? '' : r.notes.map((n) => `<br><small>note: ${esc(n)}</small>`).join('');
  return `<tr data-outcome="${r.outcome}" id="row-${esc(r.id)}"><td><span class="verdict ${r.outcome}">${VERDICT[r.outcome]}</span></td><td>${r.level}</td><td><a href="#${esc(r.id)}"><code>${esc(r.id)}</code></a></td><td>${esc(r.title)}${why}${notes}<br><small>§ ${esc(r.section)}</small></td></tr>`;
}

function failureSection(r: CheckResult): string {
  const failures = r.failures
    .map((f) => {
      const same = f.sameCause?.length ? `<p><small>The same on ${f.sameCause.length} more: ${f.sameCause.map(esc).join('; ')}</small></p>` : '';
      // Told once, under the check it is reported under: elsewhere a link, not the exchanges again.
      if (f.follows)
        return `<details><summary>${esc(f.message)}</summary><p><small>its cause is told under ${checkLinks(f.follows)}</small></p>${same}</details>`;
      const also = f.alsoBroke?.length ? `<p><small>also broke: ${checkLinks(f.alsoBroke)}</small></p>` : '';
      return `<details open><summary>${esc(f.message)}</summary>${also}${f.evidence.slice(0, 3).map(exchangeHtml).join('')}${same}</details>`;
    })
    .join('');
  const notes = r.notes.map((n) => `<p><small>note: ${esc(n)}</small></p>`).join('');
  return `<section id="${esc(r.id)}"><h2><span class="verdict ${r.outcome}">${VERDICT[r.outcome]}</span> <code>${esc(r.id)}</code> (${r.level}; ${esc(r.section)})</h2><p>${esc(r.title)}</p>${failures}${notes}</section>`;
}

export function formatHtml(report: Report): string {
  const verdict = RUN_VERDICT[report.exitCode];
  const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
  const c = report.counts;
  const generated =
    report.phases.length > 0
      ? `<span>generated: ${report.generated.sent} requests, seed <code>${report.seed}</code> (replay with <code>--seed ${report.seed}</code>)</span>`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Conformance of ${esc(report.target)}: ${verdict}</title>
<style>${CSS}</style>
</head>
<body>
<h1>Conformance of <code>${esc(report.target)}</code>: <span class="verdict ${report.exitCode === 0 ? 'passed' : report.exitCode === 1 ? 'failed' : 'not-run'}">${verdict}</span></h1>
${
  report.stopped
    ? `<p><strong>Stopped early:</strong> ${esc(report.stopped)}</p>
`
    : ''
}<p class="summary"><span>profile ${report.profile}${report.strict ? ', strict' : ''}</span><span>${c.passed} passed</span><span>${c.failed} failed${c.causes !== undefined && c.causes < c.failed ? ` (${c.causes} distinct causes)` : ''}</span><span>${c.warned} warned</span><span>${c.notRun} not run</span><span>${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s</span>${generated}<span>started ${esc(report.startedAt)}</span></p>
<nav aria-label="show"><button type="button" data-show="all" aria-pressed="true">all</button><button type="button" data-show="failed">failed</button><button type="button" data-show="warned">warned</button><button type="button" data-show="passed">passed</button><button type="button" data-show="not-run">not run</button></nav>
<table>
<thead><tr><th>verdict</th><th>level</th><th>check</th><th>rule</th></tr></thead>
<tbody>
${report.results.map(resultRow).join('\n')}
</tbody>
</table>
${report.timeline ? `<h2 id="rate-limit-timeline">The rate-limit key's windows</h2>\n${timelineSvg(report.timeline, { width: 1000 })}` : ''}
${problems.length > 0 ? `<h2>Failures and warnings</h2>\n${problems.map(failureSection).join('\n')}` : '<p>No check failed or warned.</p>'}
<script>${SCRIPT}</script>
</body>
</html>
`;
}
