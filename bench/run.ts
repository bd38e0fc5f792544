// One benchmark run's loop: the warm-up, the interleaved rounds, the create rounds that prove creates
// durable, and the cases handed to report.ts. fleet.ts starts and stops the processes; bench/cli.ts
// is `npm run bench`.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { CASES, K6_START_CASE, needsPostgres, needsRedis, PROXY_CASE, SERVERS, type CaseId } from './cases.ts';
import { Fleet, log, type CaseState } from './fleet.ts';
import { openGenerator, type LoadGenerator, type LoadMeasure } from './load.ts';
import { measureWithCpu, type CpuMeasure } from './measure.ts';
import type { BenchOptions } from './options.ts';
import { cpuList, exited } from './proc.ts';
import { assembleReport, type BenchReport, type CaseResult, type RunSettings } from './report.ts';
import { RoundTripCounter } from './round-trips.ts';
import { interleave, summarize, voidReason, type RoundMeasure } from './stats.ts';
import { readFileStore } from '../server/store/database-file.ts';
import { checkDurability } from './stores.ts';
import { authHeaders, launch, runsTsx, type RunningServer } from './targets.ts';

/** At most this many creates warm each create round up (for at most --warmup seconds): enough for the JIT, few enough to keep the store near 10,000. */
export const POST_WARMUP_CREATES = 1000;

class Bench {
  readonly #options: BenchOptions;
  readonly #command: string;
  readonly #states: Map<CaseId, CaseState>;
  readonly #fleet: Fleet;
  readonly #notes: string[] = [];
  readonly #roundTrips = new WeakMap<RunningServer, RoundTripCounter>();
  #generator: LoadGenerator | undefined;

  constructor(options: BenchOptions, command: string) {
    this.#options = options;
    this.#command = command;
    const cases = options.cases.filter((id): id is CaseId => id !== PROXY_CASE && id !== K6_START_CASE);
    this.#states = new Map(cases.map((id) => [id, { spec: CASES[id], path: CASES[id].path, rounds: [], durability: [], peakRss: 0 }]));
    this.#fleet = new Fleet(options, this.#states, randomBytes(6).toString('hex'), (line) => this.#note(line));
  }

  #note(line: string) {
    this.#notes.push(line);
    log(`note: ${line}`);
  }

  async run(): Promise<BenchReport> {
    const startedAt = new Date();
    const fleet = this.#fleet;
    const interrupted = () => {
      log('interrupted; stopping servers');
      void fleet.stopAll('SIGKILL').finally(() => process.exit(130));
    };
    process.once('SIGINT', interrupted);
    try {
      const opened = await openGenerator(this.#options.generator, fleet.context.pinning, fleet.context.dir);
      this.#generator = opened.generator;
      if (opened.note) this.#note(opened.note);
      log(`load generator: ${this.#generator.description}`);
      await fleet.setUp();
      await this.#measureAll();
      await fleet.checkRedisWasUsed();
    } finally {
      process.off('SIGINT', interrupted);
      await fleet.stopAll();
      await this.#generator?.close();
      await fleet.tearDown();
    }
    return this.#report(startedAt);
  }

  async #measureAll(): Promise<void> {
    const runnable = [...this.#states.values()].filter((s) => !s.skipped);
    const { warmup, rounds } = this.#options;
    if (warmup > 0) {
      for (const state of runnable) {
        const spec = SERVERS[state.spec.server];
        if (spec.kind === 'reference' && spec.freshPerRound) continue; // warmed per round, on its fresh store
        log(`warm-up ${state.spec.id} (${warmup} s)`);
        await this.#measure(this.#fleet.servers.get(state.spec.server)!, state, warmup);
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const state of interleave(runnable, round)) {
        if (state.skipped) continue;
        const spec = SERVERS[state.spec.server];
        const measured = spec.kind === 'reference' && spec.freshPerRound ? await this.#createRound(state, round) : await this.#getRound(state, round);
        if (!measured) continue;
        state.rounds.push(measured);
        const rps = measured.seconds > 0 ? measured.ok / measured.seconds : 0;
        log(
          `round ${round + 1}/${rounds} ${state.spec.id.padEnd(13)} ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s${measured.void ? `  VOID: ${measured.void}` : ''}`,
        );
      }
    }
  }

  /** One load run of a case against a server, with the CPU every process involved used meanwhile. */
  #measure(server: RunningServer, state: CaseState, seconds: number, extra: { stopAfterOk?: number; collectIds?: boolean } = {}): Promise<CpuMeasure> {
    const spec = SERVERS[state.spec.server];
    let roundTrips = this.#roundTrips.get(server);
    if (!roundTrips && (needsPostgres(spec) || needsRedis(spec))) {
      roundTrips = new RoundTripCounter(server.pid, server.logFile);
      this.#roundTrips.set(server, roundTrips);
    }
    return measureWithCpu({
      generator: this.#generator!,
      serverPid: server.pid,
      database: needsPostgres(spec) ? this.#fleet.database : undefined,
      redisPid: needsRedis(spec) ? this.#fleet.redisPid : undefined,
      roundTrips,
      serverCores: server.cpus === undefined ? undefined : cpuList(server.cpus),
      // Every other server of the run stays up, idle, on the same core: that it stays idle is checked, not assumed.
      bystanders: [...this.#fleet.servers.values()].filter((s) => s !== server && !exited(s.child)).map((s) => s.pid),
      request: {
        url: `${server.origin}${state.path}`,
        method: state.spec.method,
        headers: { ...authHeaders(this.#fleet.context.apiKey), ...(state.spec.body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: state.spec.body,
        connections: this.#options.connections,
        duration: seconds,
        expectStatus: state.spec.expectStatus,
        stopAfterOk: extra.stopAfterOk,
        collectIds: extra.collectIds,
      },
    });
  }

  async #getRound(state: CaseState, round: number): Promise<RoundMeasure | undefined> {
    const server = this.#fleet.servers.get(state.spec.server)!;
    if (exited(server.child)) {
      state.skipped = `server exited (code ${server.child.exitCode}, signal ${server.child.signalCode}); log ${server.logFile}`;
      return undefined;
    }
    const measured = await this.#measure(server, state, this.#options.duration);
    return { round: round + 1, ...measured, void: voidReason(measured) };
  }

  /** A fresh process on a fresh store of 10,000 pets; after the load it is SIGKILLed and the store is read back. */
  async #createRound(state: CaseState, round: number): Promise<RoundMeasure | undefined> {
    const spec = SERVERS[state.spec.server];
    if (spec.kind !== 'reference') throw new Error(`${state.spec.server} must be a reference server`);
    let server: RunningServer;
    try {
      server = await launch(state.spec.server, spec, this.#fleet.context, round + 1);
    } catch (error) {
      state.skipped = (error as Error).message;
      return undefined;
    }
    try {
      const runs: LoadMeasure[] = [];
      if (this.#options.warmup > 0) runs.push(await this.#measure(server, state, this.#options.warmup, { stopAfterOk: POST_WARMUP_CREATES, collectIds: true }));
      const measured = await this.#measure(server, state, this.#options.duration, { collectIds: true });
      runs.push(measured);
      const acknowledged = runs.reduce((sum, m) => sum + m.ok, 0);
      const ids = runs.every((m) => m.ids) ? runs.flatMap((m) => m.ids!) : undefined;
      state.peakRss = Math.max(state.peakRss, server.peakRss());
      state.tsx = runsTsx(server.pid);
      // A crash is what durability must survive; only a profiling run exits cleanly (profiles are written at exit).
      await server.stop(this.#fleet.context.cpuProfDir ? 'SIGTERM' : 'SIGKILL');
      const read = async () => (spec.store === 'file' ? readFileStore(server.dbFile!).map((p) => p.id) : await this.#fleet.database!.petIds(server.schema!));
      const stored = await read().catch((error: Error) => error);
      const durability = checkDurability({
        before: spec.pets,
        acknowledged,
        acknowledgedIds: ids,
        storedIds: stored,
        inFlightBound: this.#options.connections * runs.length,
      });
      state.durability.push(durability);
      const { ids: _ids, ...rest } = measured;
      return { round: round + 1, ...rest, void: voidReason(measured, durability.problem) };
    } finally {
      await server.stop('SIGKILL');
      if (server.dbFile) rmSync(server.dbFile, { force: true });
    }
  }

  #report(startedAt: Date): BenchReport {
    const cases: CaseResult[] = [...this.#states.values()].map((s) => ({
      id: s.spec.id,
      label: s.spec.label,
      title: s.spec.title,
      kind: s.spec.kind,
      server: s.spec.server,
      method: s.spec.method,
      path: s.path,
      summary: s.rounds.length ? summarize(s.rounds) : null,
      peakRssBytes: s.peakRss > 0 ? s.peakRss : null,
      skipped: s.skipped ?? (s.rounds.length ? undefined : 'no round completed'),
      durability: s.durability.length ? s.durability : undefined,
      tsx: s.tsx,
      cpus: s.cpus,
    }));
    const o = this.#options;
    const g = this.#generator!;
    const settings: RunSettings = {
      duration: o.duration,
      warmup: o.warmup,
      connections: o.connections,
      rounds: o.rounds,
      pinning: this.#fleet.context.pinning,
      generator: { name: g.name, version: g.version, description: g.description },
      build: this.#fleet.build,
      command: this.#command,
      referenceFlags: o.referenceFlags,
      referenceNodeFlags: o.referenceNodeFlags,
    };
    return assembleReport({ startedAt, cases, settings, notes: this.#notes });
  }
}

/** Runs the selected cases; `command` is how the run was asked for, as the report quotes it. */
export function runBench(options: BenchOptions, command: string): Promise<BenchReport> {
  return new Bench(options, command).run();
}
