// JUnit XML for CI systems: one testcase per check; should-level failures are warnings (system-out)
// unless --strict made them failures.
import { formatExchange } from '../../judge/exchange.ts';
import type { CheckResult } from '../../judge/ledger.ts';
import type { Report } from '../run.ts';

function xml(text: string): string {
  return (
    text
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      // XML 1.0 cannot carry most control characters, even escaped.
      .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '')
  );
}

function failureText(r: CheckResult): string {
  return r.failures
    .map((f) => {
      // A failure whose cause is told under another check names that check instead of repeating its exchanges.
      if (f.follows) return `${f.message}\n(its cause is told under ${f.follows.join(', ')}, with the request and the response)`;
      const replay = f.evidence.at(-1)?.replay;
      const also = f.alsoBroke?.length ? [`also broke: ${f.alsoBroke.join(', ')}`] : [];
      return [f.message, ...also, ...f.evidence.slice(0, 2).map((ex) => formatExchange(ex)), ...(replay ? [`replay: ${replay}`] : [])].join('\n');
    })
    .join('\n\n');
}

/** The failure's message: one that follows from another check's says so first. */
function failureMessage(r: CheckResult): string {
  const first = r.failures[0]?.message ?? 'failed';
  return r.followsFrom ? `follows from ${r.followsFrom.join(', ')}: ${first}` : first;
}

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
    ...(report.stopped ? [`      <property name="stopped" value="${xml(report.stopped)}"/>`] : []),
    ...(report.counts.causes !== undefined ? [`      <property name="distinct-causes" value="${report.counts.causes}"/>`] : []),
    '    </properties>',
  ];
  for (const r of report.results) {
    const name = `${r.id} [${r.level}] ${r.title}`;
    const classname = `conformance.${r.id.split('.')[0]}`;
    lines.push(`    <testcase classname="${xml(classname)}" name="${xml(name)}" time="${((r.durationMs ?? 0) / 1000).toFixed(3)}">`);
    if (r.outcome === 'failed') {
      lines.push(`      <failure message="${xml(failureMessage(r))}" type="${r.level}">${xml(failureText(r))}</failure>`);
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
