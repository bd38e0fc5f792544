// What the proxy says: a console line per finding as it happens, and at the end a report per key in
// every format asked for (the HTML page in report-html.ts). Keys appear only as their labels (spec/rules/redact.js); what is named like a
// secret is redacted again here, for a report built elsewhere.
import { curlLine, formatExchange, type CheckResult, type Exchange } from '../judge/index.ts';
import { OBLIGATIONS, readiness, type ClientReport } from '../judge/client-obligations.ts';
import { redactExchange, redactUrl } from '../spec/rules/redact.js';
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
  /** Exchanges forwarded and not judged: the judge's worker fell behind past its queue's bound. */
  unjudged: number;
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
  unjudged?: number;
  failOn: FailOn;
}): ProxyReport {
  const counts = input.counts ?? {
    must: input.findings.filter((f) => f.level === 'must').length,
    should: input.findings.filter((f) => f.level === 'should').length,
  };
  const failing = input.failOn === 'should' ? counts.must + counts.should > 0 : input.failOn === 'must' && counts.must > 0;
  const unjudged = input.unjudged ?? 0;
  return {
    target: redactUrl(input.target),
    startedAt: new Date(input.startedAt).toISOString(),
    durationMs: input.endedAt - input.startedAt,
    requests: input.requests,
    cutShort: input.cutShort ?? 0,
    unjudged,
    keys: input.keys,
    ...(input.summarised ? { summarised: input.summarised } : {}),
    findings: input.findings,
    counts,
    failOn: input.failOn,
    // Traffic that was not judged is never passed: no finding among it is no verdict on it (exit 2, could not judge).
    exitCode: failing ? 1 : unjudged > 0 && input.failOn !== 'none' ? 2 : 0,
  };
}

/** The keys to show first: those with findings, then the busiest. */
export function byInterest(keys: readonly KeyReport[]): KeyReport[] {
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

export const MARK: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

/** NOT READY only on a must; should-level breaches are warnings, as conform counts them. */
export function clientVerdict(c: ClientReport | undefined): string {
  return c ? `client ${readiness(c)}` : 'client: not judged (no key)';
}

export function serverCounts(server: CheckResult[]): string {
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
  if (report.unjudged > 0) lines.push(notJudged(report.unjudged));
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
        : report.exitCode === 2
          ? `  (no ${report.failOn}-level finding in what was judged, but ${report.unjudged} exchanges were not judged: exit 2)`
          : `  (a ${report.failOn}-level finding was seen: exit 1)`;
  lines.push('', `${report.counts.must} must, ${report.counts.should} should findings${verdict}`);
  return `${lines.join('\n')}\n`;
}

/** What the report says of exchanges the judge could not take. */
export function notJudged(count: number): string {
  return `NOT JUDGED: ${count} exchanges passed while the judge was too far behind (--judge-queue); nothing is said of them, their keys' windows count them as lost answers`;
}

export function summaryLine(s: SummarisedKeys): string {
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
  if (report.unjudged > 0)
    lines.push(
      '  <testsuite name="proxy" tests="1" failures="0" errors="1">',
      `    <testcase classname="proxy" name="every exchange judged" time="0"><error message="${xml(notJudged(report.unjudged))}"/></testcase>`,
      '  </testsuite>',
    );
  lines.push('</testsuites>', '');
  return lines.join('\n');
}
