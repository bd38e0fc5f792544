// The processes a benchmark run starts and stops, and what they need: Redis and PostgreSQL (checked,
// a database of the run's own), the reference build, the pet stores, every server (started one at a
// time, probed once), and at the end their peak RSS and cores, the Redis keys, the database and the
// temporary directory. The measuring itself is run.ts's.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureBuilt } from '../lib/dist-build.ts';
import { needsPostgres, needsRedis, SERVERS, type CaseSpec, type ServerId, type ServerSpec } from './cases.ts';
import type { BenchOptions } from './options.ts';
import { BenchDatabase, postgresProblem } from './postgres.ts';
import { allowedCpus, choosePinning, descendants, exited, httpRequest } from './proc.ts';
import { dropRedisKeys, redisNotUsed, redisProblem } from './redis.ts';
import type { RoundMeasure } from './stats.ts';
import { writePetArray, writePetStore, writeStores, type Durability } from './stores.ts';
import { authHeaders, captureCanned, launch, midStorePage, runsTsx, type LaunchContext, type RunningServer } from './targets.ts';

/** The servers that answer with the reference server's own bytes, captured first. */
const CANNED_SERVERS = ['hapi', 'hapi-floor', 'node'] as const;

export const log = (line: string) => process.stderr.write(`${line}\n`);

/** One case as the run goes: its rounds so far, and why it was skipped. */
export interface CaseState {
  spec: CaseSpec;
  path: string;
  rounds: RoundMeasure[];
  skipped?: string | undefined;
  durability: Durability[];
  peakRss: number;
  tsx?: boolean | undefined;
  cpus?: string | undefined;
}

export class Fleet {
  readonly context: LaunchContext;
  readonly servers = new Map<ServerId, RunningServer>();
  database: BenchDatabase | undefined;
  /** Priced beside the server in the Redis cases: the limiter's store is part of what they measure. */
  redisPid: number | undefined;
  build = 'not run (no reference server selected)';
  readonly #options: BenchOptions;
  readonly #states: ReadonlyMap<string, CaseState>;
  readonly #runId: string;

  constructor(options: BenchOptions, states: ReadonlyMap<string, CaseState>, runId: string, note: (line: string) => void) {
    this.#options = options;
    this.#states = states;
    this.#runId = runId;
    const pinning = options.pin ? choosePinning() : null;
    if (options.pin && !pinning) note('taskset or a second core is missing: servers and load generator are not pinned');
    const dir = mkdtempSync(join(tmpdir(), 'adoption-bench-'));
    this.context = {
      dir,
      pinning,
      cpus: allowedCpus(),
      // Unique per run, so that Redis counters of earlier runs never apply.
      apiKey: `bench-enterprise-${runId}`,
      apiKeysFile: join(dir, 'api-keys.json'),
      redisUrl: options.redisUrl,
      redisPrefix: `adoption-bench:${runId}:`,
      databaseUrl: undefined,
      cpuProfDir: options.cpuProf ? resolve(options.cpuProf) : undefined,
      stores: new Map(),
      seeds: new Map(),
      referenceFlags: options.referenceFlags,
      referenceNodeFlags: options.referenceNodeFlags,
      canned: undefined,
    };
  }

  /** Everything the measuring needs, in order; a case whose server or service is missing is skipped with the reason. */
  async setUp(): Promise<void> {
    if (this.#options.cpuProf) mkdirSync(this.#options.cpuProf, { recursive: true });
    // The key has limits no run can reach: the limiter runs on every request but never refuses one.
    writeFileSync(this.context.apiKeysFile, JSON.stringify([{ key: this.context.apiKey, plan: 'enterprise', limits: { perMinute: 1e9, perDay: 1e12 } }]));
    await this.#prepareServices();
    if ([...this.#needed(true)].some((id) => SERVERS[id].kind === 'reference')) this.build = await ensureBuilt(log);
    await this.#prepareStores();
    await this.#startServers();
    await this.#resolveDeepPaths();
    await this.#probe();
  }

  /** After stopAll: the run's Redis keys, its database and (unless --keep) its directory. */
  async tearDown(): Promise<void> {
    await this.#dropRedisKeys();
    await this.database?.drop().catch((error: Error) => log(`could not drop database ${this.database!.name}: ${error.message}`));
    if (this.#options.keep) log(`kept ${this.context.dir}`);
    else rmSync(this.context.dir, { recursive: true, force: true });
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
      else this.redisPid = problem.pid;
    }
    if (!needing(needsPostgres).length) return;
    const problem = await postgresProblem(this.#options.databaseUrl);
    if (problem) {
      for (const id of needing(needsPostgres)) this.#skip(id, problem);
      return;
    }
    this.database = await BenchDatabase.create(this.#options.databaseUrl, this.#runId);
    this.context.databaseUrl = this.database.url;
    log(`PostgreSQL: database ${this.database.name} (dropped at the end)`);
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
    this.context.stores = await writeStores(this.context.dir, files, 'store', writePetStore);
    this.context.seeds = await writeStores(this.context.dir, seeds, 'pets', writePetArray);
  }

  async #launchAll(ids: ServerId[]): Promise<void> {
    // One at a time: servers starting together on one core would slow each other's start-up past its timeout.
    for (const id of ids) {
      try {
        const server = await launch(id, SERVERS[id], this.context);
        this.servers.set(id, server);
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
        this.context.canned = await this.#captureCanned();
      } catch (error) {
        for (const id of CANNED_SERVERS) if (needed.has(id)) this.#skip(id, `no reference bytes to answer with: ${(error as Error).message}`);
      }
    }
    await this.#launchAll((['null', 'hapi', 'hapi-floor', 'node', 'prism', 'json-server'] as const).filter((id) => this.#needed().has(id)));
    const workers = this.servers.get('pg-workers');
    if (workers) {
      const count = descendants(workers.pid).length;
      if (count < 2) this.#skip('pg-workers', `--workers 2 started ${count} worker processes`);
    }
  }

  /** The exact bytes of the list and the get on the 10,000-pet store, for the bare servers to answer with. */
  async #captureCanned(): Promise<NonNullable<LaunchContext['canned']>> {
    const running = this.servers.get('ref-10k');
    const server = running ?? (await launch('ref-10k', SERVERS['ref-10k'], this.context, 99));
    try {
      return await captureCanned(server.origin, this.context);
    } finally {
      if (!running) await server.stop();
    }
  }

  async #resolveDeepPaths(): Promise<void> {
    for (const state of this.#states.values()) {
      if (state.spec.path !== 'deep' || state.skipped) continue;
      const server = this.servers.get(state.spec.server);
      const spec = SERVERS[state.spec.server];
      if (!server || spec.kind !== 'reference') continue;
      try {
        state.path = await midStorePage(server.origin, this.context.apiKey, spec.pets);
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
      const server = this.servers.get(state.spec.server);
      if (!server) {
        state.skipped ??= 'server not started';
        continue;
      }
      const reply = await httpRequest(`${server.origin}${state.path}`, { headers: authHeaders(this.context.apiKey) }).catch((e: Error) => e);
      if (reply instanceof Error) state.skipped = `probe failed: ${reply.message}`;
      else if (reply.status !== state.spec.expectStatus) state.skipped = `probe answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`;
    }
  }

  /** The limiter fails open to memory when Redis is slow; a Redis case measured that way would be mislabelled. */
  async checkRedisWasUsed(): Promise<void> {
    for (const state of this.#states.values()) {
      const server = this.servers.get(state.spec.server);
      if (state.skipped || !server || !needsRedis(SERVERS[state.spec.server])) continue;
      const problem = await redisNotUsed(this.#options.redisUrl, `${this.context.redisPrefix}${server.id}:`, readFileSync(server.logFile, 'utf8'));
      if (problem) {
        state.skipped = `the limiter did not use Redis throughout (${problem})`;
        state.rounds = [];
      }
    }
  }

  async #dropRedisKeys(): Promise<void> {
    if (![...this.#states.values()].some((s) => needsRedis(SERVERS[s.spec.server]))) return;
    await dropRedisKeys(this.#options.redisUrl, this.context.redisPrefix);
  }

  async stopAll(signal?: NodeJS.Signals): Promise<void> {
    // What only a running server can tell: its peak RSS, its cores, and whether tsx runs in it.
    for (const state of this.#states.values()) {
      const server = this.servers.get(state.spec.server);
      if (!server) continue;
      state.peakRss = Math.max(state.peakRss, server.peakRss());
      state.cpus = server.cpus;
      if (SERVERS[state.spec.server].kind === 'reference' && !exited(server.child)) state.tsx = runsTsx(server.pid);
    }
    await Promise.all([...this.servers.values()].map((s) => s.stop(signal)));
  }
}
