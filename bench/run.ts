// One benchmark run: the reference server against the framework's and the platform's ceiling, Prism
// and json-server, with the load generator's own ceiling measured beside them, under the same
// conditions. Prepares stores and services, starts the servers, measures the rounds interleaved,
// proves creates durable, and hands the figures to report.ts. bench/cli.ts is `npm run bench`.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from './build.ts';
import { CASES, needsPostgres, needsRedis, SERVERS, type CaseId, type CaseSpec, type ServerId, type ServerSpec } from './cases.ts';
import { openGenerator, type LoadGenerator, type LoadMeasure } from './load.ts';
import { measureWithCpu, type CpuMeasure } from './measure.ts';
import type { BenchOptions } from './options.ts';
import { BenchDatabase, postgresProblem } from './postgres.ts';
import { dropRedisKeys, redisNotUsed, redisProblem } from './redis.ts';
import { RoundTripCounter } from './round-trips.ts';
import { allowedCpus, choosePinning, descendants, exited, httpRequest } from './proc.ts';
import { assembleReport, type BenchReport, type CaseResult, type RunSettings } from './report.ts';
import { interleave, summarize, voidReason, type RoundMeasure } from './stats.ts';
import { readFileStore } from '../server/store/pet-store.ts';
import { checkDurability, writePetArray, writePetStore, writeStores, type Durability } from './stores.ts';
import { authHeaders, captureCanned, launch, midStorePage, runsTsx, type LaunchContext, type RunningServer } from './targets.ts';

/** The servers that answer with the reference server's own bytes, captured first. */
const CANNED_SERVERS = ['hapi', 'hapi-floor', 'node'] as const;

/** At most this many creates warm each create round up (for at most --warmup seconds): enough for the JIT, few enough to keep the store near 10,000. */
export const POST_WARMUP_CREATES = 1000;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface CaseState {
  spec: CaseSpec;
  path: string;
  rounds: RoundMeasure[];
  skipped?: string | undefined;
  durability: Durability[];
  peakRss: number;
  tsx?: boolean | undefined;
  cpus?: string | undefined;
}

class Bench {
  readonly #options: BenchOptions;
  readonly #command: string;
  readonly #context: LaunchContext;
  readonly #runId = randomBytes(6).toString('hex');
  readonly #servers = new Map<ServerId, RunningServer>();
  readonly #states: Map<CaseId, CaseState>;
  readonly #notes: string[] = [];
  readonly #roundTrips = new WeakMap<RunningServer, RoundTripCounter>();
  #generator: LoadGenerator | undefined;
  #database: BenchDatabase | undefined;
  #build = 'not run (no reference server selected)';
  /** Priced beside the server in the Redis cases: the limiter's store is part of what they measure. */
  #redisPid: number | undefined;

  constructor(options: BenchOptions, command: string) {
    this.#options = options;
    this.#command = command;
    const pinning = options.pin ? choosePinning() : null;
    if (options.pin && !pinning) this.#note('taskset or a second core is missing: servers and load generator are not pinned');
    const dir = mkdtempSync(join(tmpdir(), 'adoption-bench-'));
    this.#context = {
      dir,
      pinning,
      cpus: allowedCpus(),
      // Unique per run, so that Redis counters of earlier runs never apply.
      apiKey: `bench-enterprise-${this.#runId}`,
      apiKeysFile: join(dir, 'api-keys.json'),
      redisUrl: options.redisUrl,
      redisPrefix: `adoption-bench:${this.#runId}:`,
      databaseUrl: undefined,
      cpuProfDir: options.cpuProf ? resolve(options.cpuProf) : undefined,
      stores: new Map(),
      seeds: new Map(),
      referenceFlags: options.referenceFlags,
      referenceNodeFlags: options.referenceNodeFlags,
      canned: undefined,
    };
    this.#states = new Map(options.cases.map((id) => [id, { spec: CASES[id], path: CASES[id].path, rounds: [], durability: [], peakRss: 0 }]));
  }

  #note(line: string) {
    this.#notes.push(line);
    log(`note: ${line}`);
  }

  async run(): Promise<BenchReport> {
    const startedAt = new Date();
    const interrupted = () => {
      log('interrupted; stopping servers');
      void this.#stopAll('SIGKILL').finally(() => process.exit(130));
    };
    process.once('SIGINT', interrupted);
    try {
      if (this.#options.cpuProf) mkdirSync(this.#options.cpuProf, { recursive: true });
      // The key has limits no run can reach: the limiter runs on every request but never refuses one.
      writeFileSync(this.#context.apiKeysFile, JSON.stringify([{ key: this.#context.apiKey, plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e12 } }]));
      const opened = await openGenerator(this.#options.generator, this.#context.pinning, this.#context.dir);
      this.#generator = opened.generator;
      if (opened.note) this.#note(opened.note);
      log(`load generator: ${this.#generator.description}`);
      await this.#prepareServices();
      if ([...this.#needed(true)].some((id) => SERVERS[id].kind === 'reference')) this.#build = await ensureBuilt(log);
      await this.#prepareStores();
      await this.#startServers();
      await this.#resolveDeepPaths();
      await this.#probe();
      await this.#measureAll();
      await this.#checkRedisWasUsed();
    } finally {
      process.off('SIGINT', interrupted);
      await this.#stopAll();
      await this.#generator?.close();
      await this.#dropRedisKeys();
      await this.#database?.drop().catch((error: Error) => log(`could not drop database ${this.#database!.name}: ${error.message}`));
      if (this.#options.keep) log(`kept ${this.#context.dir}`);
      else rmSync(this.#context.dir, { recursive: true, force: true });
    }
    return this.#report(startedAt);
  }

  #skip(server: ServerId, reason: string) {
    for (const s of this.#states.values()) if (s.spec.server === server) s.skipped ??= reason;
    log(`skipping the cases on ${server}: ${reason}`);
  }

  /** The servers the selected cases need; with `forCanned`, the reference server the bare servers copy too. */
  #needed(forCanned = false): Set<ServerId> {
    const ids = new Set([...this.#states.values()].filter((s) => !s.skipped).map((s) => s.spec.server));
    if (forCanned && CANNED_SERVERS.some((id) => ids.has(id))) ids.add('ref-10k');
    return ids;
  }

  /** Redis and PostgreSQL: checked before anything starts; a case that needs a missing one is skipped with the reason. */
  async #prepareServices(): Promise<void> {
    const needing = (uses: (spec: ServerSpec) => boolean) => [...this.#needed()].filter((id) => uses(SERVERS[id]));
    if (needing(needsRedis).length) {
      const problem = await redisProblem(this.#options.redisUrl);
      if (typeof problem === 'string') for (const id of needing(needsRedis)) this.#skip(id, problem);
      else this.#redisPid = problem.pid;
    }
    if (!needing(needsPostgres).length) return;
    const problem = await postgresProblem(this.#options.databaseUrl);
    if (problem) {
      for (const id of needing(needsPostgres)) this.#skip(id, problem);
      return;
    }
    this.#database = await BenchDatabase.create(this.#options.databaseUrl, this.#runId);
    this.#context.databaseUrl = this.#database.url;
    log(`PostgreSQL: database ${this.#database.name} (dropped at the end)`);
  }

  /** The pet stores and seed files the needed servers start from, generated once per size. */
  async #prepareStores(): Promise<void> {
    const files = new Set<number>();
    const seeds = new Set<number>();
    for (const id of this.#needed(true)) {
      const spec = SERVERS[id];
      if (spec.kind === 'reference') (spec.store === 'file' ? files : seeds).add(spec.pets);
      if (spec.kind === 'json-server') seeds.add(spec.pets);
    }
    this.#context.stores = await writeStores(this.#context.dir, files, 'store', writePetStore);
    this.#context.seeds = await writeStores(this.#context.dir, seeds, 'pets', writePetArray);
  }

  async #launchAll(ids: ServerId[]): Promise<void> {
    // One at a time: servers starting together on one core would slow each other's start-up past its timeout.
    for (const id of ids) {
      try {
        const server = await launch(id, SERVERS[id], this.#context);
        this.#servers.set(id, server);
        log(`started ${id} (pid ${server.pid}${server.cpus ? `, cpu ${server.cpus}` : ''})`);
      } catch (error) {
        this.#skip(id, (error as Error).message);
      }
    }
  }

  async #startServers(): Promise<void> {
    const needed = this.#needed();
    const reference = (spec: ServerSpec) => spec.kind === 'reference' && !spec.freshPerRound;
    await this.#launchAll([...needed].filter((id) => reference(SERVERS[id])));
    if (CANNED_SERVERS.some((id) => needed.has(id))) {
      try {
        this.#context.canned = await this.#captureCanned();
      } catch (error) {
        for (const id of CANNED_SERVERS) if (needed.has(id)) this.#skip(id, `no reference bytes to answer with: ${(error as Error).message}`);
      }
    }
    await this.#launchAll((['null', 'hapi', 'hapi-floor', 'node', 'prism', 'json-server'] as const).filter((id) => this.#needed().has(id)));
    const workers = this.#servers.get('pg-workers');
    if (workers) {
      const count = descendants(workers.pid).length;
      if (count < 2) this.#skip('pg-workers', `--workers 2 started ${count} worker processes`);
    }
  }

  /** The exact bytes of the list and the get on the 10,000-pet store, for the bare servers to answer with. */
  async #captureCanned(): Promise<NonNullable<LaunchContext['canned']>> {
    const running = this.#servers.get('ref-10k');
    const server = running ?? (await launch('ref-10k', SERVERS['ref-10k'], this.#context, 99));
    try {
      return await captureCanned(server.origin, this.#context);
    } finally {
      if (!running) await server.stop();
    }
  }

  async #resolveDeepPaths(): Promise<void> {
    for (const state of this.#states.values()) {
      if (state.spec.path !== 'deep' || state.skipped) continue;
      const server = this.#servers.get(state.spec.server);
      const spec = SERVERS[state.spec.server];
      if (!server || spec.kind !== 'reference') continue;
      try {
        state.path = await midStorePage(server.origin, this.#context.apiKey, spec.pets);
      } catch (error) {
        state.skipped = `could not reach a mid-store page: ${(error as Error).message}`;
      }
    }
  }

  /**
   * One request per GET case before any load, checked for its exact status: wrk itself only tells
   * statuses outside 200-399 apart. A case that answers wrongly is reported, not measured.
   */
  async #probe(): Promise<void> {
    for (const state of this.#states.values()) {
      if (state.skipped || state.spec.method !== 'GET') continue;
      const server = this.#servers.get(state.spec.server);
      if (!server) {
        state.skipped ??= 'server not started';
        continue;
      }
      const reply = await httpRequest(`${server.origin}${state.path}`, { headers: authHeaders(this.#context.apiKey) }).catch((e: Error) => e);
      if (reply instanceof Error) state.skipped = `probe failed: ${reply.message}`;
      else if (reply.status !== state.spec.expectStatus) state.skipped = `probe answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`;
    }
  }

  async #measureAll(): Promise<void> {
    const runnable = [...this.#states.values()].filter((s) => !s.skipped);
    const { warmup, rounds } = this.#options;
    if (warmup > 0) {
      for (const state of runnable) {
        const spec = SERVERS[state.spec.server];
        if (spec.kind === 'reference' && spec.freshPerRound) continue; // warmed per round, on its fresh store
        log(`warm-up ${state.spec.id} (${warmup} s)`);
        await this.#measure(this.#servers.get(state.spec.server)!, state, warmup);
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
      database: needsPostgres(spec) ? this.#database : undefined,
      redisPid: needsRedis(spec) ? this.#redisPid : undefined,
      roundTrips,
      request: {
        url: `${server.origin}${state.path}`,
        method: state.spec.method,
        headers: { ...authHeaders(this.#context.apiKey), ...(state.spec.body !== undefined ? { 'content-type': 'application/json' } : {}) },
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
    const server = this.#servers.get(state.spec.server)!;
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
      server = await launch(state.spec.server, spec, this.#context, round + 1);
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
      await server.stop(this.#context.cpuProfDir ? 'SIGTERM' : 'SIGKILL');
      const read = async () => (spec.store === 'file' ? readFileStore(server.dbFile!).map((p) => p.id) : await this.#database!.petIds(server.schema!));
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

  /** The limiter fails open to memory when Redis is slow; a Redis case measured that way would be mislabelled. */
  async #checkRedisWasUsed(): Promise<void> {
    for (const state of this.#states.values()) {
      const server = this.#servers.get(state.spec.server);
      if (state.skipped || !server || !needsRedis(SERVERS[state.spec.server])) continue;
      const problem = await redisNotUsed(this.#options.redisUrl, `${this.#context.redisPrefix}${server.id}:`, readFileSync(server.logFile, 'utf8'));
      if (problem) {
        state.skipped = `the limiter did not use Redis throughout (${problem})`;
        state.rounds = [];
      }
    }
  }

  async #dropRedisKeys(): Promise<void> {
    if (![...this.#states.values()].some((s) => needsRedis(SERVERS[s.spec.server]))) return;
    await dropRedisKeys(this.#options.redisUrl, this.#context.redisPrefix);
  }

  async #stopAll(signal?: NodeJS.Signals): Promise<void> {
    // What only a running server can tell: its peak RSS, its cores, and whether tsx runs in it.
    for (const state of this.#states.values()) {
      const server = this.#servers.get(state.spec.server);
      if (!server) continue;
      state.peakRss = Math.max(state.peakRss, server.peakRss());
      state.cpus = server.cpus;
      if (SERVERS[state.spec.server].kind === 'reference' && !exited(server.child)) state.tsx = runsTsx(server.pid);
    }
    await Promise.all([...this.#servers.values()].map((s) => s.stop(signal)));
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
      pinning: this.#context.pinning,
      generator: { name: g.name, version: g.version, description: g.description },
      build: this.#build,
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
