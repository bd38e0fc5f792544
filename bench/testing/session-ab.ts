// Issue 31's experiment, kept so that it can be run again: the bare hapi peer in the benchmark's
// session and in one of its own, loaded in turns (bench/README.md, Does the harness slow what it
// measures?).   npx tsx bench/testing/session-ab.ts [--rounds 6] [--duration 5]
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { spawnChild as spawnTracked } from '../../lib/processes.ts';
import { LIST_PATH, SERVERS } from '../cases.ts';
import { measureWithCpu } from '../measure.ts';
import { isReady } from '../peers/protocol.mjs';
import { allowedCpus, awaitMessage, choosePinning, cpuList, sessionOf, stopChild } from '../proc.ts';
import { interleave, median } from '../stats.ts';
import { petArrayJson } from '../stores.ts';
import { launch, plainContext, SCRIPTS } from '../targets.ts';
import { findWrk, WrkGenerator } from '../wrk.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '6' }, duration: { type: 'string', default: '5' } } });
const rounds = Number(values.rounds);
const duration = Number(values.duration);
if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds needs a whole number of at least 1, not ${values.rounds}`);
if (!Number.isInteger(duration) || duration < 1) throw new Error(`--duration needs whole seconds (at least 1), not ${values.duration}`);
const pinning = choosePinning();
if (!pinning) throw new Error('this experiment needs taskset and two cores: one for wrk, one for the servers');
const wrk = await findWrk();
if (!wrk) throw new Error('this experiment needs wrk on PATH');

const dir = mkdtempSync(join(tmpdir(), 'session-ab-'));
// Twenty pets, the size of the reference's first page; both peers answer the same bytes.
const bodyFile = join(dir, 'list.json');
writeFileSync(bodyFile, JSON.stringify(JSON.parse(petArrayJson(20))));
const canned = { list: { bodyFile, contentType: 'application/json; charset=utf-8' }, get: { bodyFile, contentType: 'application/json; charset=utf-8' } };
const context = plainContext({ dir, pinning, cpus: allowedCpus(), apiKey: 'session-ab', apiKeysFile: '', canned });

/** The same peer in a session of its own: a process group of its own is one (setsid). */
async function startDetached(): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawnTracked('taskset', ['-c', pinning!.server, process.execPath, SCRIPTS.hapi], {
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    env: { ...process.env, BENCH_CANNED: JSON.stringify(canned) },
    group: true,
  });
  const ready = await awaitMessage(child, isReady, 30_000, 'the detached peer');
  return { child, origin: ready.origin };
}

const ours = await launch('hapi', SERVERS.hapi, context);
const own = await startDetached();
const variants = [
  { name: "benchmark's session", pid: ours.pid, origin: ours.origin },
  { name: 'session of its own', pid: own.child.pid!, origin: own.origin },
];
const generator = new WrkGenerator(wrk.path, wrk.version, pinning, dir);
const load = (v: (typeof variants)[number], seconds: number) =>
  measureWithCpu({
    generator,
    serverPid: v.pid,
    serverCores: cpuList(pinning.server),
    bystanders: variants.filter((o) => o !== v).map((o) => o.pid),
    request: { url: `${v.origin}${LIST_PATH}`, method: 'GET', headers: {}, connections: 32, duration: seconds, expectStatus: 200 },
  });
try {
  for (const v of variants) process.stderr.write(`${v.name}: pid ${v.pid}, session ${sessionOf(v.pid)}\n`);
  for (const v of variants) await load(v, 2);
  const figures = new Map(variants.map((v) => [v.name, [] as Array<{ rps: number; cpu: number; others: number }>]));
  for (let round = 0; round < rounds; round++) {
    for (const v of interleave(variants, round)) {
      const m = await load(v, duration);
      const f = { rps: m.ok / m.seconds, cpu: (1e6 * m.serverCpuSeconds) / m.ok, others: m.serverCore!.others };
      figures.get(v.name)!.push(f);
      process.stderr.write(
        `round ${round + 1} ${v.name.padEnd(20)} ${Math.round(f.rps)} req/s, ${f.cpu.toFixed(1)} us CPU/request, others took ${Math.round(f.others * 100)}% of cpu ${pinning.server}\n`,
      );
    }
  }
  for (const [name, fs] of figures) {
    const list = (pick: (f: (typeof fs)[number]) => number, digits: number) => fs.map((f) => pick(f).toFixed(digits)).join(' ');
    process.stdout.write(
      `${name.padEnd(20)} req/s median ${Math.round(median(fs.map((f) => f.rps)))} [${list((f) => f.rps, 0)}]; ` +
        `us CPU/request median ${median(fs.map((f) => f.cpu)).toFixed(1)} [${list((f) => f.cpu, 1)}]; ` +
        `others on the core [${list((f) => f.others * 100, 0)}]%\n`,
    );
  }
} finally {
  await ours.stop();
  await stopChild(own.child);
  rmSync(dir, { recursive: true, force: true });
}
