// Three views of one Report: a console report for people, JUnit XML for CI systems, JSON for tools.
import { formatExchange, redactAuthorization, type Exchange } from './http.ts';
import type { CheckResult } from './ledger.ts';
import type { ProgressEvent, Report } from './run.ts';

const MARK: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

/** Progress lines while the run goes: one per phase, a request count, and every wait. */
export function consoleProgress(write: (text: string) => void, tty: boolean): (event: ProgressEvent) => void {
  let requests = 0;
  let inline = false;
  const endInline = () => {
    if (inline) write('\n');
    inline = false;
  };
  return (event) => {
    if (event.type === 'phase') {
      endInline();
      write(`▸ ${event.name}\n`);
    } else if (event.type === 'request') {
      requests++;
      if (tty) {
        write(`\r  ${requests} requests sent`);
        inline = true;
      } else if (requests % 25 === 0) {
        write(`  ${requests} requests sent\n`);
      }
    } else if (event.type === 'wait') {
      endInline();
      write(`  waiting ${(event.ms / 1000).toFixed(1)} s: ${event.why}\n`);
    } else if (event.type === 'dredd') {
      endInline();
      const counts = new Map<string, number>();
      for (const t of event.outcome.transactions) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
      write(`  Dredd: ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'no transactions'} in ${(event.outcome.durationMs / 1000).toFixed(1)} s${event.outcome.error ? ` (error: ${event.outcome.error})` : ''}\n`);
    }
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function indent(text: string, by = '      '): string {
  return text.replace(/^/gm, by);
}

export function formatConsole(report: Report, options: { verbose?: boolean } = {}): string {
  const out: string[] = [];
  const idWidth = Math.max(...report.results.map((r) => r.id.length));
  out.push('');
  out.push(`Conformance of ${report.target} (profile ${report.profile}${report.strict ? ', strict' : ''})`);
  out.push('');
  out.push(`  ${pad('', 4)}  ${pad('level', 6)}  ${pad('check', idWidth)}  rule`);
  for (const r of report.results) {
    if (r.outcome === 'not-run' && !options.verbose && r.reason?.startsWith('behaviour check')) continue;
    out.push(`  ${MARK[r.outcome]}  ${pad(r.level, 6)}  ${pad(r.id, idWidth)}  ${r.title}`);
  }
  const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
  if (problems.length > 0) {
    out.push('');
    out.push('Details');
    for (const r of problems) {
      out.push('');
      out.push(`  ${MARK[r.outcome]} ${r.id} (${r.level}; ${r.section})`);
      // The first failures show what was sent and received; later ones only say what was wrong.
      r.failures.forEach((failure, i) => {
        out.push(`    - ${failure.message.replace(/\n/g, '\n      ')}`);
        if (i < 2) for (const ex of failure.evidence.slice(0, 2)) out.push(indent(formatExchange(ex)));
      });
      for (const note of r.notes) out.push(`    note: ${note}`);
    }
  }
  const notRun = report.results.filter((r) => r.outcome === 'not-run');
  if (notRun.length > 0) {
    out.push('');
    out.push('Not run');
    const byReason = new Map<string, string[]>();
    for (const r of notRun) byReason.set(r.reason ?? '', [...(byReason.get(r.reason ?? '') ?? []), r.id]);
    for (const [reason, ids] of byReason) out.push(`  ${reason}: ${ids.join(', ')}`);
  }
  if (report.preferUsed.length > 0) {
    out.push('');
    out.push(`Prism's Prefer header was sent (--prefer) for: ${report.preferUsed.join(', ')}; those results show what a mock can be told to do, not what it does by itself.`);
  }
  out.push('');
  out.push('Summary');
  out.push(`  ${pad('passed', 8)} ${report.counts.passed}`);
  out.push(`  ${pad('failed', 8)} ${report.counts.failed}`);
  out.push(`  ${pad('warned', 8)} ${report.counts.warned}`);
  out.push(`  ${pad('not run', 8)} ${report.counts.notRun}`);
  out.push(`  ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s; ${report.exitCode === 0 ? 'CONFORMS' : 'DOES NOT CONFORM'} (exit ${report.exitCode})`);
  return `${out.join('\n')}\n`;
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 cannot carry most control characters, even escaped.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}

function failureText(r: CheckResult): string {
  return r.failures.map((f) => [f.message, ...f.evidence.slice(0, 2).map((ex) => formatExchange(ex))].join('\n')).join('\n\n');
}

/** JUnit XML: one testcase per check. `should` failures are warnings (system-out) unless strict made them failures. */
export function formatJUnit(report: Report): string {
  const seconds = (report.durationMs / 1000).toFixed(3);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="adoption-store-kit conformance" tests="${report.results.length}" failures="${report.counts.failed}" skipped="${report.counts.notRun}" time="${seconds}">`,
    `  <testsuite name="conformance ${xml(report.profile)} ${xml(report.target)}" tests="${report.results.length}" failures="${report.counts.failed}" errors="0" skipped="${report.counts.notRun}" time="${seconds}" timestamp="${report.startedAt}">`,
    '    <properties>',
    `      <property name="target" value="${xml(report.target)}"/>`,
    `      <property name="profile" value="${report.profile}"/>`,
    `      <property name="strict" value="${report.strict}"/>`,
    '    </properties>',
  ];
  for (const r of report.results) {
    const name = `${r.id} [${r.level}] ${r.title}`;
    const classname = `conformance.${r.id.split('.')[0]}`;
    lines.push(`    <testcase classname="${xml(classname)}" name="${xml(name)}" time="0">`);
    if (r.outcome === 'failed') {
      lines.push(`      <failure message="${xml(r.failures[0]?.message ?? 'failed')}" type="${r.level}">${xml(failureText(r))}</failure>`);
    } else if (r.outcome === 'not-run') {
      lines.push(`      <skipped message="${xml(r.reason ?? 'not run')}"/>`);
    } else if (r.outcome === 'warned') {
      lines.push(`      <system-out>${xml(`WARNING (should): ${failureText(r)}`)}</system-out>`);
    }
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}

function redactedExchange(ex: Exchange) {
  const headers = { ...ex.request.headers };
  if (headers.authorization) headers.authorization = redactAuthorization(headers.authorization);
  return { ...ex, request: { ...ex.request, headers } };
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
