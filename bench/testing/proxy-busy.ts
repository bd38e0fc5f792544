// The judging proxy on a busy scheduler (issue 42), as figures: the reference server behind an
// in-process proxy whose thread stalls 40 ms in every 100, 64 clients in a worker thread, rounds
// each ended with requests in flight (proxy/testing/busy.ts). Prints the server's must findings the
// judge told (none expected: proxy/busy-scheduler.test.ts asserts it) and the process's RSS over the
// run. The RSS is this process's (the proxy, its judge, the clients' worker and tsx), a figure, not a bound.
//   npx tsx bench/testing/proxy-busy.ts [--rounds 10] [--round-seconds 3]
import { isEntryPoint } from '../../lib/entry.ts';
import { runBusy } from '../../proxy/testing/busy.ts';

function option(argv: readonly string[], name: string, fallback: number): number {
  const at = argv.indexOf(name);
  return at >= 0 ? Number(argv[at + 1]) : fallback;
}

export async function main(argv: readonly string[]): Promise<number> {
  const rounds = option(argv, '--rounds', 10);
  const roundMs = option(argv, '--round-seconds', 3) * 1000;
  const settings = { connections: 64, roundMs, rounds, stallMs: 40, everyMs: 100 };
  process.stdout.write(
    `proxy on a busy scheduler: stalled ${settings.stallMs} ms every ${settings.everyMs} ms, ${settings.connections} clients, ${rounds} rounds of ${roundMs / 1000} s, each cut mid-flight\n`,
  );
  const run = await runBusy(settings);
  const rss = run.rssMb;
  const afterFirstRound = rss[Math.min(rss.length - 1, Math.ceil(roundMs / 1000))]!;
  process.stdout.write(
    `  ${run.answered} answered, ${run.cut} cut by the rounds' ends, ${run.judged} exchanges judged; ${run.findings.length} must finding(s) on the server${run.findings.length ? `: ${run.findings.join('; ')}` : ''}\n` +
      `  RSS (MB): ${rss[0]!.toFixed(0)} before, ${afterFirstRound.toFixed(0)} after the first round, ${Math.max(...rss).toFixed(0)} at most, ${rss.at(-1)!.toFixed(0)} at the end: ` +
      `${(rss.at(-1)! - afterFirstRound).toFixed(0)} MB from the first round's end to the last's\n` +
      `  by second: ${rss.map((mb) => mb.toFixed(0)).join(' ')}\n`,
  );
  return run.findings.length === 0 ? 0 : 1;
}

if (isEntryPoint(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
