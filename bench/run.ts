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
import { runLoad, type LoadMeasure } from './load.ts';
import { HELP, OptionsError, parseOptions, type BenchOptions } from './options.ts';
import { choosePinning, httpRequest, type Pinning } from './proc.ts';
import { checkTargets, computeRatios, renderText, type BenchReport, type CaseResult, type Durability, type RunSettings } from './report.ts';
import { interleave, summarize, type RoundMeasure } from './stats.ts';
import { countStoredPets, writePetStore } from './stores.ts';
import { authHeaders, launch, type LaunchContext, type RunningServer } from './targets.ts';

/** Creates sent before each POST round is measured: enough to warm the JIT, few enough to keep the store near 10,000. */
export const POST_WARMUP_CREATES = 1000;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface CaseState {
  spec: CaseSpec;
  path: string;
  rounds: RoundMeasure[];
  skipped?: string;
  durability: Durability[];
  peakRss: number;
}

export async function runBench(options: BenchOptions): Promise<BenchReport> {
  const startedAt = new Date();
  const dir = mkdtempSync(join(tmpdir(), 'adoption-bench-'));
  const pinning: Pinning | null = options.pin ? choosePinning() : null;
  if (options.pin && !pinning) log('note: taskset or a second core is missing; servers and load generator are not pinned');
  if (options.cpuProf) mkdirSync(options.cpuProf, { recursive: true });
  const context: LaunchContext = {
    dir,
    pinning,
    // Unique per run, so that Redis counters of earlier runs never apply.
    apiKey: `bench-enterprise-${randomBytes(6).toString('hex')}`,
    redisUrl: options.redisUrl,
    cpuProfDir: options.cpuProf ? resolve(options.cpuProf) : undefined,
    stores: new Map(),
    referenceOptions: options.referenceOptions,
    referenceNodeFlags: options.referenceNodeFlags,
    canned: undefined,
  };
  const servers = new Map<ServerId, RunningServer>();
  const stopAll = async (signal?: NodeJS.Signals) => {
    await Promise.all([...servers.values()].map((s) => s.stop(signal)));
  };
  const interrupted = () => {
    log('interrupted; stopping servers');
    void stopAll('SIGKILL').finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);

  const states = new Map<CaseId, CaseState>(
    options.cases.map((id) => [id, { spec: CASES[id], path: CASES[id].path, rounds: [], durability: [], peakRss: 0 }]),
  );
  try {
    await prepareStores(options, context);
    await startServers(options, context, servers, states);
    await resolveDeepPaths(context, servers, states);
    await probe(context, servers, states);
    const runnable = [...states.values()].filter((s) => !s.skipped);

    if (options.warmup > 0) {
      for (const state of runnable) {
        if (state.spec.server === 'ref-post') continue; // warmed per round, on its fresh store
        log(`warm-up ${state.spec.id} (${options.warmup} s)`);
        await measure(options, context, servers.get(state.spec.server)!, state, options.warmup);
      }
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const state of interleave(runnable, round)) {
        if (state.skipped) continue;
        const measured = state.spec.server === 'ref-post' ? await postRound(options, context, state, round) : await getRound(options, context, servers, state);
        if (!measured) continue;
        state.rounds.push({ round: round + 1, ...measured });
        const rps = measured.seconds > 0 ? measured.ok / measured.seconds : 0;
        const bad = Object.values(measured.unexpected).reduce((a, b) => a + b, 0) + measured.errors;
        log(`round ${round + 1}/${options.rounds} ${state.spec.id.padEnd(10)} ${Math.round(rps).toLocaleString('en-US').padStart(7)} req/s${bad ? `, ${bad} unexpected` : ''}`);
      }
    }
    for (const state of states.values()) {
      const server = servers.get(state.spec.server);
      if (server) state.peakRss = Math.max(state.peakRss, server.peakRss());
    }
  } finally {
    process.off('SIGINT', interrupted);
    await stopAll();
    if (options.keep) log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }

  const cases: CaseResult[] = [...states.values()].map((s) => ({
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
  const settings: RunSettings = {
    duration: options.duration,
    warmup: options.warmup,
    connections: options.connections,
    rounds: options.rounds,
    pinning,
    referenceOverrides: options.referenceOptions,
    referenceNodeFlags: options.referenceNodeFlags,
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

function serversNeeded(states: Map<CaseId, CaseState>): Set<ServerId> {
  return new Set([...states.values()].map((s) => s.spec.server));
}

async function prepareStores(options: BenchOptions, context: LaunchContext): Promise<void> {
  const sizes = new Set<number>();
  for (const id of options.cases) {
    const spec = SERVERS[CASES[id].server];
    if (spec.kind === 'reference') sizes.add(spec.pets);
    // The bare servers answer with bytes read from a reference server on the 10,000-pet store.
    if (spec.kind === 'hapi' || spec.kind === 'node') sizes.add(10_000);
  }
  for (const size of sizes) {
    const path = join(context.dir, `store-${size}.json`);
    await writePetStore(path, size);
    (context.stores as Map<number, string>).set(size, path);
  }
}

async function startServers(
  options: BenchOptions,
  context: LaunchContext,
  servers: Map<ServerId, RunningServer>,
  states: Map<CaseId, CaseState>,
): Promise<void> {
  const needed = serversNeeded(states);
  const skip = (server: ServerId, reason: string) => {
    for (const s of states.values()) if (s.spec.server === server) s.skipped = reason;
    log(`skipping ${server}: ${reason}`);
  };
  if (needed.has('ref-redis')) {
    const reason = await redisProblem(options.redisUrl);
    if (reason) {
      skip('ref-redis', reason);
      needed.delete('ref-redis');
    }
  }
  for (const id of needed) {
    const spec = SERVERS[id];
    if (spec.kind !== 'reference' || spec.freshPerRound) continue;
    try {
      servers.set(id, await launch(id, spec, context));
    } catch (error) {
      skip(id, (error as Error).message);
    }
  }
  if (needed.has('hapi') || needed.has('node')) {
    try {
      context.canned = await captureCanned(context, servers.get('ref-10k'));
    } catch (error) {
      for (const id of ['hapi', 'node'] as const) if (needed.has(id)) skip(id, `no reference bytes to answer with: ${(error as Error).message}`);
    }
  }
  for (const id of ['hapi', 'node', 'prism'] as const) {
    if (!needed.has(id) || [...states.values()].some((s) => s.spec.server === id && s.skipped)) continue;
    try {
      servers.set(id, await launch(id, SERVERS[id], context));
    } catch (error) {
      skip(id, (error as Error).message);
    }
  }
}

async function redisProblem(url: string): Promise<string | undefined> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  client.on('error', () => {}); // reported through the rejected connect below
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `Redis at ${url} is not reachable (${(error as Error).message})`;
  } finally {
    client.disconnect();
  }
}

/** The exact bytes of GET /v1/pets?limit=20 on the 10,000-pet store, for the bare servers to answer with. */
async function captureCanned(context: LaunchContext, running: RunningServer | undefined): Promise<CannedResponse> {
  const server = running ?? (await launch('ref-10k', SERVERS['ref-10k'], context, 99));
  try {
    const reply = await httpRequest(`${server.origin}${LIST_PATH}`, { headers: authHeaders(context.apiKey) });
    if (reply.status !== 200) throw new Error(`reference server answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`);
    const contentType = String(reply.headers['content-type'] ?? 'application/json');
    const bodyFile = join(context.dir, 'canned-body.json');
    writeFileSync(bodyFile, reply.body);
    return { bodyFile, contentType };
  } finally {
    if (!running) await server.stop();
  }
}

/**
 * A page from the middle of the store, reached the way a client would: following
 * `Link: <...>; rel="next"` with the status filter until half the pets are behind us.
 */
async function resolveDeepPaths(context: LaunchContext, servers: Map<ServerId, RunningServer>, states: Map<CaseId, CaseState>): Promise<void> {
  for (const state of states.values()) {
    if (state.spec.path !== 'deep' || state.skipped) continue;
    const server = servers.get(state.spec.server);
    const spec = SERVERS[state.spec.server];
    if (!server || spec.kind !== 'reference') continue;
    try {
      state.path = await midStorePage(server.origin, context.apiKey, spec.pets);
    } catch (error) {
      state.skipped = `could not reach a mid-store page: ${(error as Error).message}`;
    }
  }
}

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
  for (const match of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const params = match[2] ?? '';
    if (/;\s*rel\s*=\s*"?(?:[^";,]*\s)?next(?:\s[^";,]*)?"?/i.test(params)) return match[1];
  }
  return undefined;
}

/** One request per case before any load: a case that answers wrongly is reported, not measured. */
async function probe(context: LaunchContext, servers: Map<ServerId, RunningServer>, states: Map<CaseId, CaseState>): Promise<void> {
  for (const state of states.values()) {
    if (state.skipped || state.spec.method !== 'GET') continue;
    const server = servers.get(state.spec.server);
    if (!server) {
      state.skipped ??= 'server not started';
      continue;
    }
    const reply = await httpRequest(`${server.origin}${state.path}`, { headers: authHeaders(context.apiKey) }).catch((e: Error) => e);
    if (reply instanceof Error) state.skipped = `probe failed: ${reply.message}`;
    else if (reply.status !== state.spec.expectStatus) state.skipped = `probe answered ${reply.status}: ${reply.body.toString().slice(0, 200)}`;
  }
}

function loadRequest(options: BenchOptions, context: LaunchContext, server: RunningServer, state: CaseState, seconds: number) {
  return {
    url: `${server.origin}${state.path}`,
    method: state.spec.method,
    headers: {
      ...authHeaders(context.apiKey),
      ...(state.spec.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: state.spec.body,
    connections: options.connections,
    duration: seconds,
    expectStatus: state.spec.expectStatus,
    samplesFile: join(context.dir, `samples-${state.spec.id}-${randomBytes(4).toString('hex')}.f64`),
  };
}

async function measure(options: BenchOptions, context: LaunchContext, server: RunningServer, state: CaseState, seconds: number, amount?: number): Promise<LoadMeasure> {
  return runLoad({ ...loadRequest(options, context, server, state, seconds), amount }, context.pinning);
}

async function getRound(options: BenchOptions, context: LaunchContext, servers: Map<ServerId, RunningServer>, state: CaseState): Promise<LoadMeasure | undefined> {
  const server = servers.get(state.spec.server)!;
  if (server.child.exitCode !== null || server.child.signalCode !== null) {
    state.skipped = `server exited (code ${server.child.exitCode}, signal ${server.child.signalCode}); log ${server.logFile}`;
    return undefined;
  }
  return measure(options, context, server, state, options.duration);
}

/** A fresh process on a fresh copy of the 10,000-pet store; after the load it is SIGKILLed and the file is read back. */
async function postRound(options: BenchOptions, context: LaunchContext, state: CaseState, round: number): Promise<LoadMeasure | undefined> {
  const spec = SERVERS['ref-post'];
  if (spec.kind !== 'reference') throw new Error('ref-post must be a reference server');
  let server: RunningServer;
  try {
    server = await launch('ref-post', spec, context, round + 1);
  } catch (error) {
    state.skipped = (error as Error).message;
    return undefined;
  }
  try {
    let acknowledged = 0;
    if (options.warmup > 0) acknowledged += (await measure(options, context, server, state, options.warmup, POST_WARMUP_CREATES)).ok;
    const measured = await measure(options, context, server, state, options.duration);
    acknowledged += measured.ok;
    state.peakRss = Math.max(state.peakRss, server.peakRss());
    // Profiles are written only on a clean exit; otherwise a crash is what durability must survive.
    await server.stop(context.cpuProfDir ? 'SIGTERM' : 'SIGKILL');
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
  // Missed targets are findings, not failures; a case that could not be measured is a failure.
  const broken = report.cases.filter((c) => c.skipped || !c.summary || Object.keys(c.summary.unexpected).length || c.summary.errors || (c.durability ?? []).some((d) => !d.ok));
  process.exitCode = broken.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
