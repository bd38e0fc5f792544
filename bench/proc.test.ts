import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  allowedCpus,
  choosePinning,
  coreShares,
  coreTicks,
  cpuList,
  foreignCores,
  machineTicks,
  processTicks,
  processTicksExact,
  threadTicks,
  rssBytes,
  peakRssBytes,
  sessionOf,
  spawnChild,
  stopChild,
  treePeakRssBytes,
  treeTicks,
  workerCores,
  type CpuTicks,
} from './proc.ts';

test('machineTicks reads the summed cpu line and counts the CPUs; idle, I/O wait and softirq are not busy', () => {
  // user 100, nice 5, system 50, idle 800, iowait 20, irq 0, softirq 5, steal 3
  const stat = 'cpu  100 5 50 800 20 0 5 3 0 0\ncpu0 50 0 25 400 10 0 5 3 0 0\ncpu1 50 5 25 400 10 0 0 0 0 0\nintr 1 2 3\n';
  assert.equal(machineTicks(stat), { busy: 158, total: 983, cpus: 2 });
});

const pinnings: Array<[number[], boolean, ReturnType<typeof choosePinning>]> = [
  [[0, 1], true, { load: '0', server: '1' }],
  [[2, 3, 4, 5], true, { load: '2', server: '3' }],
  [[0], true, null],
  [[0, 1], false, null],
];
for (const [cpus, taskset, expected] of pinnings) {
  test(`choosePinning on cpus ${cpus} ${taskset ? 'with' : 'without'} taskset`, () => assert.equal(choosePinning(cpus, taskset), expected));
}

const workers: Array<[number, number[], ReturnType<typeof workerCores>]> = [
  // Two cores: the load generator keeps its own, the two workers share the other.
  [2, [0, 1], { cpus: '1', shared: true }],
  [2, [0, 1, 2, 3], { cpus: '1,2', shared: false }],
  [4, [0, 1, 2], { cpus: '1,2', shared: true }],
  [1, [0, 1, 2], { cpus: '1', shared: false }],
];
for (const [n, cpus, expected] of workers) {
  test(`workerCores: ${n} workers on cpus ${cpus}`, () => assert.equal(workerCores(n, cpus), expected));
}

const machine = (busy: number, total: number): CpuTicks => ({ busy, total, cpus: 2 });
const foreign: Array<[string, number, number]> = [
  // 2 CPUs, 100 ticks each elapsed (200 in all); our processes used `own` of the `busy` ticks.
  ['a quiet machine: everything busy was ours', 150, 150],
  ['another process took half a core', 200, 150],
  ['another process took a whole core', 250, 150],
  ['our own reading ran ahead of the machine counter: never negative', 140, 150],
];
for (const [name, busy, own] of foreign) {
  test(`foreignCores: ${name}`, () => {
    const cores = foreignCores({ machine: machine(0, 0), own: 0 }, { machine: machine(busy, 200), own });
    assert.is(cores, Math.max(0, (busy - own) / 100));
  });
}

test('processTicks, rss and peak rss of this very process; 0 ticks for a process that is gone', () => {
  let x = 0;
  for (let i = 0; i < 3e7; i++) x += i; // burn a little CPU so the tick count moves off zero
  assert.ok(x > 0);
  assert.ok(processTicks(process.pid) > 0);
  // To the nanosecond, every thread: it moves with work of less than a tick.
  const exact = processTicksExact(process.pid);
  for (let i = 0; i < 1e5; i++) x += i;
  assert.ok(exact > 0 && processTicksExact(process.pid) > exact, `${exact}`);
  assert.is(processTicksExact(2 ** 22 + 7), 0);
  const rss = rssBytes(process.pid);
  assert.ok(rss > 10e6, `${rss}`);
  // Peaks are compared on quiet processes below: this one's VmHWM is not monotonic (the kernel
  // raises the high-water mark on unmapping, not when V8 hands pages back with madvise).
  assert.ok(peakRssBytes(process.pid) > 0);
  const ticks = processTicks(process.pid);
  assert.ok(treeTicks(process.pid) >= ticks);
  assert.is(processTicks(2 ** 22 + 7), 0);
  // The main thread's share of its process, never more than the whole; 0 for a thread that is not there.
  const main = threadTicks(process.pid);
  assert.ok(main > 0 && main <= processTicks(process.pid), `${main}`);
  assert.is(threadTicks(process.pid, 2 ** 22 + 7), 0);
});

test('treePeakRssBytes adds up the peaks of a process and its descendants (a shell and its two sleeps, whose memory stays put)', async () => {
  const shell = spawn('sh', ['-c', 'sleep 30 & sleep 30 & wait'], { stdio: 'ignore' });
  try {
    const pid = shell.pid!;
    const children = () => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    const comm = (p: number) => readFileSync(`/proc/${p}/comm`, 'utf8').trim();
    // Until both children have become sleeps (a child is the shell's image until its exec) and the
    // readings agree twice in a row: the processes are still settling before.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 25));
    let parts = -1;
    let tree = -2;
    for (let i = 0; i < 200; i++, await settle()) {
      const [a, b] = children();
      if (!a || !b || comm(a) !== 'sleep' || comm(b) !== 'sleep') continue;
      const sum = peakRssBytes(pid) + peakRssBytes(a) + peakRssBytes(b);
      tree = treePeakRssBytes(pid);
      if (sum === parts && tree === sum) break;
      parts = sum;
    }
    assert.is(tree, parts, 'the tree is the shell and its two sleeps, added up');
    const sleeper = children()[0]!;
    assert.ok(peakRssBytes(sleeper) >= rssBytes(sleeper) && rssBytes(sleeper) > 0);
  } finally {
    // The sleeps first: once the shell is gone they belong to init.
    spawnSync('pkill', ['-KILL', '-P', String(shell.pid)]);
    shell.kill('SIGKILL');
  }
});

const lists: Array<[string, number[]]> = [
  ['Cpus_allowed_list:\t0-1\n', [0, 1]],
  ['Cpus_allowed_list:\t0,2-4,7\n', [0, 2, 3, 4, 7]],
  ['Cpus_allowed_list:\t3\n', [3]],
  ['Name:\tnode\n', []],
];
for (const [status, cpus] of lists) {
  test(`allowedCpus of ${JSON.stringify(status)}`, () => assert.equal(allowedCpus(status), cpus));
}

for (const bad of ['', '1-', 'a', '3-1', '1;2']) {
  test(`cpuList refuses ${JSON.stringify(bad)}`, () => assert.throws(() => cpuList(bad), /not a CPU list/));
}

test("coreTicks adds up the named CPUs' own lines, softirq not busy; a CPU the machine lacks is an error", () => {
  // user nice system idle iowait irq softirq steal
  const stat = 'cpu  100 5 50 800 20 0 5 3 0 0\ncpu0 50 0 25 400 10 0 5 3 0 0\ncpu1 50 5 25 400 10 0 0 0 0 0\ncpu10 1 1 1 1 1 1 1 1 0 0\n';
  assert.equal(coreTicks([1], stat), { busy: 80, total: 490, cpus: 1 });
  assert.equal(coreTicks([0, 1], stat), { busy: 158, total: 983, cpus: 2 });
  assert.equal(coreTicks([10], stat), { busy: 5, total: 8, cpus: 1 });
  assert.throws(() => coreTicks([2], stat), /no line for cpu 2/);
});

const core = (busy: number, total: number): CpuTicks => ({ busy, total, cpus: 1 });
const shares: Array<[string, number, { server: number; stores: number; bystanders: number }, { bystanders: number; others: number }]> = [
  // One core, 100 ticks elapsed; `busy` of them were not idle.
  ['the server alone on its core', 95, { server: 95, stores: 0, bystanders: 0 }, { bystanders: 0, others: 0 }],
  ["another process took a third of the server's core", 100, { server: 66, stores: 0, bystanders: 1 }, { bystanders: 0.01, others: 0.33 }],
  ['PostgreSQL and Redis, not pinned, are not counted against it', 100, { server: 80, stores: 20, bystanders: 0 }, { bystanders: 0, others: 0 }],
  ['readings a tick apart: never negative', 90, { server: 91, stores: 0, bystanders: 0 }, { bystanders: 0, others: 0 }],
];
for (const [name, busy, used, expected] of shares) {
  test(`coreShares: ${name}`, () => {
    const got = coreShares(core(0, 0), core(busy, 100), used);
    assert.ok(Math.abs(got.bystanders - expected.bystanders) < 1e-9 && Math.abs(got.others - expected.others) < 1e-9, JSON.stringify(got));
  });
}

test("sessionOf: the benchmark's children share its session; a detached one (setsid) has one of its own", async () => {
  const ours = spawnChild({ command: 'sleep', args: ['5'], output: 'ignore' });
  const own = spawn('sleep', ['5'], { stdio: 'ignore', detached: true });
  try {
    assert.is(sessionOf(ours.pid!), sessionOf(process.pid));
    assert.is(sessionOf(own.pid!), own.pid, 'a session leader: its session is its own pid');
  } finally {
    own.kill('SIGKILL');
    await stopChild(ours, 'SIGKILL');
  }
});

test.run();
