// `npm run bench`: the reference server against the framework's and the platform's ceiling and
// against Prism, under the same conditions, in one invocation. See docs/readme/bench.md.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { CASES, DEEP_STATUS, LIST_PATH, SERVERS, type CaseId, type CaseSpec, type ServerId } from './cases.ts';
import type { CannedResponse } from './child-protocol.ts';
import { LoadGenerator, type LoadMeasure } from './load.ts';
import { HELP, OptionsError, parseOptions, type BenchOptions } from './options.ts';
import { choosePinning, exited, foreignCores, httpRequest, machineTicks, processTicks, TICKS_PER_SECOND } from './proc.ts';
import { checkTargets, computeRatios, renderText, type BenchReport, type CaseResult, type Durability, type RunSettings } from './report.ts';
import { interleave, summarize, type RoundMeasure } from './stats.ts';
import { countStoredPets, writePetStore } from './stores.ts';
import { authHeaders, launch, type LaunchContext, type RunningServer } from './targets.ts';

/** At most this many creates warm each POST round up (for at most --warmup seconds): enough for the JIT, few enough to keep the store near 10,000. */
export const POST_WARMUP_CREATES = 1000;

const log = (line: string) => process.stderr.write(`${line}\n`);

type RoundMeasureOfLoad = LoadMeasure & { foreignCores: number; serverCpuSeconds: number };

interface CaseState {
  spec: CaseSpec;
  path: string;
  rounds: RoundMeasure[];
  skipped?: string | undefined;
  durability: Durability[];
  peakRss: number;
}

class Bench {
  readonly #options: BenchOptions;
  readonly #context: LaunchContext;
  readonly #runId = randomBytes(6).toString('hex');
  readonly #servers = new Map<ServerId, RunningServer>();
  readonly #states: Map<CaseId, CaseState>;
  #load: LoadGenerator | undefined;
  /** Counted as the benchmark's own CPU in the Redis case: the limiter's store is part of what it measures. */
  #redisPid: number | undefined;

  constructor(options: BenchOptions) {
    this.#options = options;
    const pinning = options.pin ? choosePinning() : null;
    if (options.pin && !pinning) log('note: taskset or a second core is missing; servers and load generator are not pinned');
    this.#context = {
      dir: mkdtempSync(join(tmpdir(), 'adoption-bench-')),
      pinning,
      // Unique per run, so that Redis counters of earlier runs never apply.
      apiKey: `bench-enterprise-${this.#runId}`,
      redisUrl: options.redisUrl,
      redisPrefix: `adoption-bench:${this.#runId}:`,
      cpuProfDir: options.cpuProf ? resolve(options.cpuProf) : undefined,
      stores: new Map(),
      referenceOptions: options.referenceOptions,
      referenceNodeFlags: options.referenceNodeFlags,
      canned: undefined,
    };
    this.#states = new Map(options.cases.map((id) => [id, { spec: CASES[id], path: CASES[id].path, rounds: [], durability: [], peakRss: 0 }]));
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
      this.#load = new LoadGenerator(this.#context.pinning);
      await this.#prepareStores();
      await this.#startServers();
      await this.#resolveDeepPaths();
      await this.#probe();
      await this.#measureAll();
      await this.#checkRedisWasUsed();
      for (const state of this.#states.values()) {
        const server = this.#servers.get(state.spec.server);
        if (server) state.peakRss = Math.max(state.peakRss, server.peakRss());
      }
    } finally {
      process.off('SIGINT', interrupted);
      await this.#stopAll();
      await this.#load?.close();
      await this.#dropRedisKeys();
      if (this.#options.keep) log(`kept ${this.#context.dir}`);
      else rmSync(this.#context.dir, { recursive: true, force: true });
    }
    return this.#report(startedAt);
  }

  #skip(server: ServerId, reason: string) {
    for (const s of this.#states.values()) if (s.spec.server === server) s.skipped ??= reason;
    log(`skipping the cases on ${server}: ${reason}`);
  }

  #needed(): Set<ServerId> {
    return new Set([...this.#states.values()].filter((s) => !s.skipped).map((s) => s.spec.server));
  }

  async #prepareStores(): Promise<void> {
    const sizes = new Set<number>();
    for (const id of this.#needed()) {
      const spec = SERVERS[id];
      if (spec.kind === 'reference') sizes.add(spec.pets);
      // The bare servers answer with the bytes a reference server on the 10,000-pet store sends.
      if (spec.kind === 'hapi' || spec.kind === 'node') sizes.add(10_000);
    }
    for (const size of sizes) {
      const path = join(this.#context.dir, `store-${size}.json`);
      await writePetStore(path, size);
      (this.#context.stores as Map<number, string>).set(size, path);
    }
  }

  async #launchAll(ids: ServerId[]): Promise<void> {
    await Promise.all(
      ids.map(async (id) => {
        try {
          this.#servers.set(id, await launch(id, SERVERS[id], this.#context));
        } catch (error) {
          this.#skip(id, (error as Error).message);
        }
      }),
    );
  }

  async #startServers(): Promise<void> {
    if (this.#needed().has('ref-redis')) {
      const problem = await redisProblem(this.#options.redisUrl);
      if (typeof problem === 'string') this.#skip('ref-redis', problem);
      else this.#redisPid = problem.pid;
    }
    const needed = this.#needed();
    await this.#launchAll(
      [...needed].filter((id) => {
        const spec = SERVERS[id];
        return spec.kind === 'reference' && !spec.freshPerRound;
      }),
    );
    if (needed.has('hapi') || needed.has('node')) {
      try {
        this.#context.canned = await this.#captureCanned();
      } catch (error) {
        for (const id of ['hapi', 'node'] as const) if (needed.has(id)) this.#skip(id, `no reference bytes to answer with: ${(error as Error).message}`);
      }
    }
    await this.#launchAll((['hapi', 'node', 'prism'] as const).filter((id) => this.#needed().has(id)));
  }

  /** The exact bytes of GET /v1/pets?limit=20 on the 10,000-pet store, for the bare servers to answer with. */
  async #captureCanned(): Promise<CannedResponse> {
    const running = this.#servers.get('ref-10k');
    const server = running ?? (await launch('ref-10k', SERVERS['ref-10k'], this.#context, 99));
    try {
      const reply = await httpRequest(`${server.origin}${LIST_PATH}`, { headers: authHeaders(this.#context.apiKey) });
      if (reply.status !== 200) throw new Error(`reference server answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
      const bodyFile = join(this.#context.dir, 'canned-body.json');
      writeFileSync(bodyFile, reply.body);
      return { bodyFile, contentType: String(reply.headers['content-type'] ?? 'application/json') };
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

  /** One request per GET case before any load: a case that answers wrongly is reported, not measured. */
  async #probe(): Promise<void> {
    for (const state of this.#states.values()) {
      if (state.skipped || state.spec.method !== 'GET') continue;
      const server = this.#servers.get(state.spec.server);
      if (!server) {
        state.skipped = 'server not started';
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
        if (state.spec.server === 'ref-post') continue; // warmed per round, on its fresh store
        log(`warm-up ${state.spec.id} (${warmup} s)`);
        await this.#measure(this.#servers.get(state.spec.server)!, state, warmup);
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const state of interleave(runnable, round)) {
        if (state.skipped) continue;
        const measured = state.spec.server === 'ref-post' ? await this.#postRound(state, round) : await this.#getRound(state);
        if (!measured) continue;
        state.rounds.push({ round: round + 1, ...measured });
        const rps = measured.seconds > 0 ? measured.ok / measured.seconds : 0;
        const bad = Object.values(measured.unexpected).reduce((a, b) => a + b, 0) + measured.errors;
        log(`round ${round + 1}/${rounds} ${state.spec.id.padEnd(10)} ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s${bad ? `, ${bad} unexpected` : ''}`);
      }
    }
  }

  async #measure(server: RunningServer, state: CaseState, seconds: number, stopAfterOk?: number): Promise<RoundMeasureOfLoad> {
    const serverBefore = processTicks(server.pid);
    const pids = [process.pid, server.pid, this.#load!.pid, state.spec.server === 'ref-redis' ? this.#redisPid : undefined];
    const reading = () => ({ machine: machineTicks(), own: pids.reduce<number>((n, pid) => n + (pid ? processTicks(pid) : 0), 0) });
    const before = reading();
    const measured = await this.#load!.run({
      url: `${server.origin}${state.path}`,
      method: state.spec.method,
      headers: {
        ...authHeaders(this.#context.apiKey),
        ...(state.spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: state.spec.body,
      connections: this.#options.connections,
      duration: seconds,
      stopAfterOk,
      expectStatus: state.spec.expectStatus,
      samplesFile: join(this.#context.dir, `samples-${state.spec.id}-${randomBytes(4).toString('hex')}.f64`),
    });
    const after = reading();
    const serverCpuSeconds = (processTicks(server.pid) - serverBefore) / TICKS_PER_SECOND;
    return { ...measured, foreignCores: foreignCores(before, after), serverCpuSeconds };
  }

  async #getRound(state: CaseState): Promise<RoundMeasureOfLoad | undefined> {
    const server = this.#servers.get(state.spec.server)!;
    if (exited(server.child)) {
      state.skipped = `server exited (code ${server.child.exitCode}, signal ${server.child.signalCode}); log ${server.logFile}`;
      return undefined;
    }
    return this.#measure(server, state, this.#options.duration);
  }

  /** A fresh process on a fresh copy of the 10,000-pet store; after the load it is SIGKILLed and the file is read back. */
  async #postRound(state: CaseState, round: number): Promise<RoundMeasureOfLoad | undefined> {
    const spec = SERVERS['ref-post'];
    if (spec.kind !== 'reference') throw new Error('ref-post must be a reference server');
    let server: RunningServer;
    try {
      server = await launch('ref-post', spec, this.#context, round + 1);
    } catch (error) {
      state.skipped = (error as Error).message;
      return undefined;
    }
    try {
      let acknowledged = 0;
      if (this.#options.warmup > 0) acknowledged += (await this.#measure(server, state, this.#options.warmup, POST_WARMUP_CREATES)).ok;
      const measured = await this.#measure(server, state, this.#options.duration);
      acknowledged += measured.ok;
      state.peakRss = Math.max(state.peakRss, server.peakRss());
      // A crash is what durability must survive; only a profiling run exits cleanly (profiles are written at exit).
      await server.stop(this.#context.cpuProfDir ? 'SIGTERM' : 'SIGKILL');
      let after = -1;
      try {
        after = countStoredPets(readFileSync(server.dbFile!, 'utf8'));
      } catch (error) {
        log(`ref-post round ${round + 1}: store file unreadable after SIGKILL: ${(error as Error).message}`);
      }
      state.durability.push({ before: spec.pets, acknowledged, after, ok: after >= spec.pets + acknowledged });
      return measured;
    } finally {
      await server.stop('SIGKILL');
      rmSync(server.dbFile!, { force: true });
    }
  }

  /** The limiter fails open to memory when Redis is slow; a Redis case measured that way would be mislabelled. */
  async #checkRedisWasUsed(): Promise<void> {
    const state = this.#states.get('ref-redis');
    const server = this.#servers.get('ref-redis');
    if (!state || state.skipped || !server) return;
    const keys = await this.#redisKeys().catch((e: Error) => e);
    const fellBack = /Redis unavailable/.test(readFileSync(server.logFile, 'utf8'));
    if (keys instanceof Error || keys.length === 0 || fellBack) {
      state.skipped = `the limiter did not use Redis throughout (${keys instanceof Error ? keys.message : `${keys.length} keys under ${this.#context.redisPrefix}`}${fellBack ? ', fell back to memory' : ''})`;
      state.rounds = [];
    }
  }

  async #redisKeys(): Promise<string[]> {
    const client = new Redis(this.#options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
    client.on('error', () => {});
    try {
      await client.connect();
      return await client.keys(`${this.#context.redisPrefix}*`);
    } finally {
      client.disconnect();
    }
  }

  async #dropRedisKeys(): Promise<void> {
    if (!this.#states.has('ref-redis')) return;
    const client = new Redis(this.#options.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: () => null });
    client.on('error', () => {});
    try {
      await client.connect();
      const keys = await client.keys(`${this.#context.redisPrefix}*`);
      if (keys.length) await client.del(...keys);
    } catch {
      // Redis gone: nothing of ours to drop
    } finally {
      client.disconnect();
    }
  }

  async #stopAll(signal?: NodeJS.Signals): Promise<void> {
    await Promise.all([...this.#servers.values()].map((s) => s.stop(signal)));
  }

  #report(startedAt: Date): BenchReport {
    const cases: CaseResult[] = [...this.#states.values()].map((s) => ({
      id: s.spec.id,
      label: s.spec.label,
      title: s.spec.title,
      server: s.spec.server,
      method: s.spec.method,
      path: s.path,
      summary: s.rounds.length ? summarize(s.rounds) : null,
      peakRssBytes: s.peakRss > 0 ? s.peakRss : null,
      skipped: s.skipped ?? (s.rounds.length ? undefined : 'no round completed'),
      durability: s.durability.length ? s.durability : undefined,
    }));
    const o = this.#options;
    const settings: RunSettings = {
      duration: o.duration,
      warmup: o.warmup,
      connections: o.connections,
      rounds: o.rounds,
      pinning: this.#context.pinning,
      referenceOverrides: o.referenceOptions,
      referenceNodeFlags: o.referenceNodeFlags,
    };
    const ratios = computeRatios(cases);
    return {
      tool: 'adoption-store-kit bench',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      environment: { node: process.version, platform: `${process.platform} ${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' },
      settings,
      cases,
      ratios,
      targets: checkTargets(cases, settings, ratios),
    };
  }
}

export function runBench(options: BenchOptions): Promise<BenchReport> {
  return new Bench(options).run();
}

/** Why Redis cannot serve the Redis case, or its server's pid (when it runs on this machine). */
async function redisProblem(url: string): Promise<string | { pid: number | undefined }> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => {}); // reported through the rejected connect below
  try {
    await client.connect();
    const pid = Number(/^process_id:(\d+)/m.exec(await client.info('server'))?.[1]);
    const host = new URL(url).hostname;
    const local = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host);
    return { pid: local && pid > 0 ? pid : undefined };
  } catch (error) {
    return `Redis at ${url} is not reachable (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}

/**
 * A page from the middle of the store, reached the way a client would: following
 * `Link: <...>; rel="next"` with the status filter until half the pets are behind us.
 */
export async function midStorePage(origin: string, apiKey: string, pets: number): Promise<string> {
  let path = `/v1/pets?limit=100&status=${DEEP_STATUS}`;
  for (let page = 0; page < pets; page++) {
    const reply = await httpRequest(`${origin}${path}`, { headers: authHeaders(apiKey) });
    if (reply.status !== 200) throw new Error(`${path} answered ${reply.status}`);
    const items = JSON.parse(reply.body.toString()) as Array<{ id: number }>;
    const next = nextLink(reply.headers.link);
    if (!next) throw new Error(`no rel="next" link after id ${items.at(-1)?.id}`);
    const nextUrl = new URL(next, `${origin}${path}`);
    if ((items.at(-1)?.id ?? 0) >= pets / 2) {
      nextUrl.searchParams.set('limit', '20');
      return `${nextUrl.pathname}${nextUrl.search}`;
    }
    path = `${nextUrl.pathname}${nextUrl.search}`;
  }
  throw new Error('the pages never reached the middle of the store');
}

/** The target of the `rel="next"` entry of a Link header (RFC 8288), if any. */
export function nextLink(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!value) return undefined;
  for (const match of value.matchAll(/<([^>]*)>([^,<]*)/g)) {
    for (const param of (match[2] ?? '').split(';')) {
      const [name, raw] = param.split('=').map((x) => x.trim());
      if (name?.toLowerCase() !== 'rel' || raw === undefined) continue;
      const rels = raw.replace(/^"|"$/g, '').toLowerCase().split(/\s+/);
      if (rels.includes('next')) return match[1];
    }
  }
  return undefined;
}

async function main(): Promise<void> {
  let options: BenchOptions;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    if (error instanceof OptionsError) {
      log(`bench: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  if (options.help) {
    process.stdout.write(HELP);
    return;
  }
  const report = await runBench(options);
  process.stdout.write(renderText(report));
  if (options.json) {
    mkdirSync(dirname(resolve(options.json)), { recursive: true });
    writeFileSync(options.json, JSON.stringify(report, null, 2) + '\n');
    log(`wrote ${options.json}`);
  }
  // Missed targets are findings, not failures; a case that could not be measured cleanly is a failure.
  const broken = report.cases.filter(
    (c) => c.skipped || !c.summary || Object.keys(c.summary.unexpected).length || c.summary.errors || (c.durability ?? []).some((d) => !d.ok),
  );
  process.exitCode = broken.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
