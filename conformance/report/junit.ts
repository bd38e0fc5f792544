// JUnit XML for CI systems: one testcase per check; should-level failures are warnings (system-out)
// unless --strict made them failures.
import { formatExchange } from '../http.ts';
import type { CheckResult } from '../ledger.ts';
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
      const replay = f.evidence.at(-1)?.replay;
      return [f.message, ...f.evidence.slice(0, 2).map((ex) => formatExchange(ex)), ...(replay ? [`replay: ${replay}`] : [])].join('\n');
    })
    .join('\n\n');
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
