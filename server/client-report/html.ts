// The client report as one self-contained HTML page (inline CSS, no script, a Content-Security-Policy
// that forbids every fetch): per key, the verdict on each obligation and the key's last requests as a
// timeline (spec/rules/timeline-svg.js), each obligation marked where it was first broken. A broken
// should-level obligation is a warning, in amber: the client stays READY.
import { timelineSvg } from '../../spec/rules/timeline-svg.js';
import { OBLIGATIONS, readiness, type ClientReport, type Obligation } from '../../judge/client-obligations.ts';

function esc(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const CSS = `
body { margin: 2rem auto; max-width: 72rem; padding: 0 1rem; color: #1f2328; font-family: system-ui, sans-serif; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.verdict { font-weight: bold; padding: .1rem .5rem; border-radius: .3rem; color: #fff; white-space: nowrap; }
.yes, .ready { background: #1a7f37; } .no, .not-ready { background: #cf222e; } .warning, .ready-with-warnings { background: #9a6700; } .not-observed { background: #6e7781; }
table { border-collapse: collapse; width: 100%; } td, th { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid #d0d7de; vertical-align: top; }
svg { max-width: 100%; height: auto; }
`;

/** An obligation's verdict; a broken should is a warning. */
function verdictBadge(o: Obligation, level: 'must' | 'should'): string {
  if (o.verdict === 'no' && level === 'should') return '<span class="verdict warning">no (warning)</span>';
  return `<span class="verdict ${o.verdict.replace(' ', '-')}">${o.verdict}</span>`;
}

function clientSection(c: ClientReport): string {
  const rows = (Object.entries(c.obligations) as Array<[keyof ClientReport['obligations'], Obligation]>)
    .map(
      ([name, o]) =>
        `<tr data-verdict="${o.verdict}"><td>${verdictBadge(o, OBLIGATIONS[name].level)}</td><td>${OBLIGATIONS[name].level}</td><td>${esc(OBLIGATIONS[name].title)}</td><td>${esc(o.detail)}</td></tr>`,
    )
    .join('\n');
  return `<section class="client" data-key="${esc(c.key)}">
<h2><code>${esc(c.key)}</code> (${esc(c.plan)}): ${c.requests} requests, ${c.refused} refused with 429 <span class="verdict ${!c.ready ? 'not-ready' : c.warnings > 0 ? 'ready-with-warnings' : 'ready'}">${readiness(c)}</span></h2>
${timelineSvg({ key: c.key, points: c.timeline ?? [], title: `Last requests of ${c.key}` })}
<table><thead><tr><th>verdict</th><th>level</th><th>obligation</th><th>seen</th></tr></thead><tbody>
${rows}
</tbody></table>
</section>`;
}

export function formatHtml(origin: string, generatedAt: string, clients: readonly ClientReport[]): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; connect-src 'none'; form-action 'none'; base-uri 'none'">
<title>Client report of ${esc(origin)}</title>
<style>${CSS}</style>
</head>
<body>
<h1>Client report of <code>${esc(origin)}</code> at ${esc(generatedAt)}</h1>
${clients.length === 0 ? '<p>No client with a valid key has sent a request yet.</p>' : clients.map(clientSection).join('\n')}
</body>
</html>
`;
}
