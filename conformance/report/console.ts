// The report for people at a terminal: progress while the run goes (a countdown during waits on a
// terminal), then the table of checks, the details of each failure with its replay line, and a
// summary with the seed that replays the generated inputs.
import { formatExchange } from '../../judge/exchange.ts';
import type { CheckResult } from '../../judge/ledger.ts';
import { VERDICT, type ProgressEvent, type Report } from '../run.ts';

const MARK: Record<CheckResult['outcome'], string> = { passed: 'PASS', failed: 'FAIL', warned: 'WARN', 'not-run': 'SKIP' };

/** Progress lines while the run goes: one per phase, a request count, and every wait. */
export function consoleProgress(write: (text: string) => void, tty: boolean): (event: ProgressEvent) => void {
  let requests = 0;
  let inline = false;
  let countdown: NodeJS.Timeout | undefined;
  const endInline = () => {
    if (countdown) clearInterval(countdown);
    countdown = undefined;
    if (inline) write('\n');
    inline = false;
  };
  return (event) => {
    if (event.type === 'note') {
      endInline();
      write(`  ${event.text}\n`);
    } else if (event.type === 'phase') {
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
      if (!tty || event.ms < 2000) {
        write(`  waiting ${(event.ms / 1000).toFixed(1)} s: ${event.why}\n`);
        return;
      }
      // A countdown on the same line until the next event.
      const until = Date.now() + event.ms;
      const show = () => write(`\r  waiting ${Math.max(0, Math.ceil((until - Date.now()) / 1000))} s: ${event.why}\x1b[K`);
      show();
      inline = true;
      countdown = setInterval(show, 1000);
      countdown.unref();
    } else if (event.type === 'dredd') {
      endInline();
      const counts = new Map<string, number>();
      for (const t of event.outcome.transactions) counts.set(t.status, (counts.get(t.status) ?? 0) + 1);
      write(
        `  Dredd: ${[...counts].map(([s, n]) => `${n} ${s}`).join(', ') || 'no transactions'} in ${(event.outcome.durationMs / 1000).toFixed(1)} s${event.outcome.error ? ` (error: ${event.outcome.error})` : ''}\n`,
      );
    }
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + ' '.repeat(width - text.length);
}

function indent(text: string, by = '      '): string {
  return text.replace(/^/gm, by);
}

/** Failures shown per check on the console. */
const EXAMPLES_SHOWN = 3;

export function formatConsole(report: Report, options: { verbose?: boolean } = {}): string {
  const out: string[] = [];
  const idWidth = Math.max(...report.results.map((r) => r.id.length));
  out.push('');
  out.push(`Conformance of ${report.target} (profile ${report.profile}${report.strict ? ', strict' : ''})`);
  out.push('');
  out.push(`  ${pad('', 4)}  ${pad('level', 6)}  ${pad('check', idWidth)}  rule`);
  for (const r of report.results) {
    if (r.outcome === 'not-run' && !options.verbose && r.reason?.startsWith('behaviour check')) continue;
    // A should-level check that fell short warned: it did not fail, even on the requests it judged.
    const follows = r.followsFrom ? `; follows from ${r.followsFrom.join(', ')}` : '';
    const judged =
      r.outcome === 'not-run'
        ? ''
        : r.outcome === 'passed'
          ? ` (${r.judged} judged)`
          : ` (${r.failed} of ${r.judged} ${r.outcome === 'warned' ? 'warned' : 'failed'}${follows})`;
    out.push(`  ${MARK[r.outcome]}  ${pad(r.level, 6)}  ${pad(r.id, idWidth)}  ${r.title}${judged}`);
  }
  const problems = report.results.filter((r) => r.outcome === 'failed' || r.outcome === 'warned');
  if (problems.length > 0) {
    out.push('');
    out.push('Details');
    for (const r of problems) {
      out.push('');
      if (r.followsFrom) {
        // Its cause is told, with the request and the answer, under the check it follows from.
        out.push(`  ${MARK[r.outcome]} ${r.id} (${r.level}; ${r.section}): follows from ${r.followsFrom.join(', ')}: ${r.failures[0]?.message ?? ''}`);
        for (const note of r.notes) out.push(`    note: ${note}`);
        continue;
      }
      out.push(`  ${MARK[r.outcome]} ${r.id} (${r.level}; ${r.section})`);
      // A few examples: the first shows what was sent and received, the next only what was wrong;
      // every failure is in --json and --html.
      const shown = r.failures.filter((f) => f.evidence.length > 0 || !f.message.startsWith('(further')).slice(0, EXAMPLES_SHOWN);
      const witness = shown.find((f) => !f.follows);
      shown.forEach((failure) => {
        const same = failure.sameCause?.length ? ` (the same on ${failure.sameCause.length} more request${failure.sameCause.length === 1 ? '' : 's'})` : '';
        const told = failure.follows ? ` (its cause is told under ${failure.follows.join(', ')})` : '';
        out.push(`    - ${failure.message.replace(/\n/g, '\n      ')}${same}${told}`);
        if (failure.alsoBroke?.length) out.push(`      also broke: ${failure.alsoBroke.join(', ')}`);
        if (failure === witness) {
          for (const ex of failure.evidence.slice(0, 2)) out.push(indent(formatExchange(ex)));
          const replay = failure.evidence.at(-1)?.replay;
          if (replay) out.push(`      replay: ${replay}`);
        }
      });
      const told = shown.reduce((n, f) => n + 1 + (f.sameCause?.length ?? 0), 0);
      if (r.failed > told) out.push(`    … ${r.failed - told} more (every failure is in --json and --html)`);
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
  // Notes of checks that neither failed nor warned: theirs are in the details above.
  const noted = report.results.filter((r) => r.outcome !== 'failed' && r.outcome !== 'warned' && r.notes.length > 0);
  if (noted.length > 0) {
    out.push('');
    out.push('Notes');
    for (const r of noted) for (const note of r.notes) out.push(`  ${r.id}: ${note}`);
  }
  const chosen = Object.entries(report.choices);
  if (chosen.length > 0) {
    out.push('');
    out.push('What the target chose where the specification is silent');
    for (const [point, value] of chosen) out.push(`  ${pad(point, 20)} ${value}`);
  }
  if (report.preferUsed.length > 0) {
    out.push('');
    out.push(
      `Prism's Prefer header was sent (--prefer) for: ${report.preferUsed.join(', ')}; those results show what a mock can be told to do, not what it does by itself.`,
    );
  }
  out.push('');
  out.push('Summary');
  out.push(`  ${pad('passed', 8)} ${report.counts.passed}`);
  const causes = report.counts.causes;
  const distinct =
    causes !== undefined && causes < report.counts.failed ? ` (${causes} distinct cause${causes === 1 ? '' : 's'}: the others follow from them)` : '';
  out.push(`  ${pad('failed', 8)} ${report.counts.failed}${distinct}`);
  out.push(`  ${pad('warned', 8)} ${report.counts.warned}`);
  out.push(
    `  ${pad('not run', 8)} ${report.counts.notRun}${report.counts.unjudged > 0 ? ` (${report.counts.unjudged} could not judge what they were given)` : ''}`,
  );
  if (report.phases.length > 0) {
    const left = report.generated.leftOut > 0 ? `; ${report.generated.leftOut} more did not fit --max-requests` : '';
    out.push(`  generated ${report.generated.sent} requests (${report.phases.join(', ')}) with seed ${report.seed}${left}; --seed ${report.seed} replays them`);
  }
  if (report.pacing.waitedMs > 0 || report.pacing.attributed.length > 0) {
    const refusals = report.pacing.attributed.map((a) => `${a.budget}${a.code ? ` (${a.code})` : ''}`);
    out.push(
      `  waited ${(report.pacing.waitedMs / 1000).toFixed(0)} s in ${report.pacing.waits.length} waits${refusals.length ? `; 429s attributed to ${refusals.join(', ')}` : ''}`,
    );
  }
  if (report.stopped) out.push(`  stopped: ${report.stopped}`);
  out.push(`  ${report.requests} requests in ${(report.durationMs / 1000).toFixed(1)} s; ${VERDICT[report.exitCode]} (exit ${report.exitCode})`);
  return `${out.join('\n')}\n`;
}
