// How long `adoption-kit proxy` takes to stop under the flood of issue 42 (proxy/testing/stop-flood.ts):
// from SIGTERM to its exit with its reports written, over a few runs. A figure, printed; the outcome
// (exit code, reports, exchanges in flight counted) is proxy/stop-flood.test.ts's.
//   npx tsx bench/testing/proxy-stop.ts [--runs 3]
import { ensureBuilt } from '../../lib/dist-build.ts';
import { isEntryPoint } from '../../lib/entry.ts';
import { floodThenStop, ISSUE_FLOOD, type FloodStop } from '../../proxy/testing/stop-flood.ts';

function line(run: number, stop: FloodStop): string {
  const a = stop.atStop;
  return (
    `  run ${run}: stopped in ${(stop.stopMs / 1000).toFixed(2)} s, exit ${stop.code ?? stop.signal}, ` +
    `reports ${stop.json && stop.htmlWritten ? 'written' : 'MISSING'}; under way at the stop: ${a.uploadsOpen} slow bodies, ` +
    `${a.endlessOpen} endless answers, ${a.unreadStarted} unread answers, ${a.watchersAnswered} watchers answered (let in or turned away); ` +
    `${stop.json ? `${stop.json.requests} exchanges reported, ${stop.json.cutShort} cut short` : ''}`
  );
}

export async function main(argv: readonly string[]): Promise<number> {
  const at = argv.indexOf('--runs');
  const runs = at >= 0 ? Number(argv[at + 1]) : 3;
  await ensureBuilt((text) => process.stdout.write(`${text}\n`));
  const f = ISSUE_FLOOD;
  process.stdout.write(
    `proxy stop under a flood: ${f.slowBodies} slow bodies, ${f.endless} endless and ${f.unread} 32 MiB answers nobody reads, ` +
      `${f.watchers} live-view watchers that never read, ${f.loopers} looping clients; SIGTERM to exit\n`,
  );
  const times: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const stop = await floodThenStop(ISSUE_FLOOD);
    times.push(stop.stopMs);
    process.stdout.write(`${line(run, stop)}\n`);
  }
  times.sort((a, b) => a - b);
  process.stdout.write(`  median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s, max ${(times.at(-1)! / 1000).toFixed(2)} s\n`);
  return 0;
}

if (isEntryPoint(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
