import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CaseId } from './cases.ts';
import { CASES } from './cases.ts';
import { checkServerCore, clean, computeHeadroom, computeRatios, projectWorkers } from './figures.ts';
import type { BenchReport, CaseResult, RunSettings, Verdict } from './report.ts';
import { checkTargets } from './verdicts.ts';
import { insertSection, renderResultsSection, renderText } from './render.ts';
import { median, type CaseSummary } from './stats.ts';
import type { Durability } from './stores.ts';

const settings: RunSettings = {
  duration: 10,
  warmup: 3,
  connections: 32,
  rounds: 2,
  pinning: { server: '1', load: '0' },
  generator: { name: 'wrk', version: 'debian/4.1.0-3+b2', description: 'wrk debian/4.1.0-3+b2, 1 thread' },
  build: 'compiled (dist/server/cli.js, up to date with the sources)',
  command: 'npm run bench',
  referenceFlags: [],
  referenceNodeFlags: [],
};

function summary(rps: number, extra: Partial<CaseSummary> = {}): CaseSummary {
  const made = {
    rps,
    p50: 2,
    p99: 10,
    p999: 10,
    max: 10,
    requests: rps * 20,
    cleanRounds: 2,
    voidRounds: [],
    unexpected: {},
    errors: 0,
    timeouts: 0,
    bytesPerResponse: 1500,
    foreignCoresMax: 0,
    coreBystandersMax: 0,
    coreOthersMax: 0.01,
    cpuMicrosPerRequest: 1e6 / rps,
    postgresMicrosPerRequest: null,
    redisMicrosPerRequest: null,
    postgresPerRequest: null,
    redisPerRequest: null,
    generatorBusy: 0.2,
    serverBusy: 1,
    ...extra,
  };
  // Both rounds as the case's own figures, unless a test says otherwise.
  const round = (n: number) => ({ round: n, rps: made.rps, cpuMicros: made.cpuMicrosPerRequest, disturbance: 0.01 });
  return { perRound: made.cleanRounds > 0 ? [round(1), round(2)] : [], ...made };
}

function result(id: CaseId, s: CaseSummary | null, extra: Partial<CaseResult> = {}): CaseResult {
  const spec = CASES[id];
  return {
    id,
    label: spec.label,
    title: spec.title,
    kind: spec.kind,
    server: spec.server,
    method: spec.method,
    path: '/v1/pets',
    summary: s,
    peakRssBytes: 100e6,
    ...extra,
  };
}

const durable = (acknowledged: number): Durability => ({
  before: 10_000,
  acknowledged,
  after: 10_000 + acknowledged + 3,
  missing: 0,
  duplicated: 0,
  unacknowledged: 3,
  idsChecked: true,
  ok: true,
});

/** A run meeting every target, for variations to break one at a time. */
function passing(): CaseResult[] {
  return [
    result('null', summary(60_000, { generatorBusy: 0.5 })),
    result('ref-list', summary(7000)),
    result('hapi-list', summary(10_000)),
    result('node-list', summary(20_000)),
    result('prism-list', summary(500)),
    result('json-list', summary(1000)),
    result('ref-get', summary(8000)),
    result('hapi-get', summary(11_000)),
    result('node-get', summary(21_000)),
    result('prism-get', summary(600)),
    result('json-get', summary(1200)),
    result('ref-post', summary(6000), { durability: [durable(120_000)] }),
    result('pg-post', summary(5700), { durability: [durable(114_000)] }),
    result('pg-list', summary(5000)),
    result('pg-redis-list', summary(4500, { cpuMicrosPerRequest: 200, postgresMicrosPerRequest: 100, redisMicrosPerRequest: 20 })),
    result('workers-list', summary(4200), { cpus: '1' }),
    result('list-100k', summary(6500), { peakRssBytes: 140e6, tsx: false }),
  ];
}

const TARGET_NAMES = [
  'list/hapi',
  'list/Prism',
  'list/json-server',
  'get/hapi',
  'get/Prism',
  'get/json-server',
  'create',
  'RSS',
  'headroom',
  'scale-out CPU',
  'pg-post',
  'workers',
];
const verdicts = (cases: CaseResult[], s: RunSettings = settings) => checkTargets(cases, s, computeHeadroom(cases)).map((t) => t.verdict);
const replace = (id: CaseId, change: (c: CaseResult) => CaseResult) => passing().map((c) => (c.id === id ? change(c) : c));
const all = (v: Verdict): Verdict[] => TARGET_NAMES.map(() => v);
const but = (changes: Record<number, Verdict>): Verdict[] => all('met').map((v, i) => changes[i] ?? v);

test('a run meeting every target: all twelve met; headroom and ratios as computed', () => {
  const cases = passing();
  assert.equal(verdicts(cases), all('met'));
  const h = computeHeadroom(cases);
  assert.is(h.nullRps, 60_000);
  assert.is(h.ceiling, 120_000, 'the null rate over the share of its core the generator used');
  assert.equal(h.fastest, { id: 'node-get', rps: 21_000 });
  assert.is(h.headroom, 120_000 / 21_000);
  assert.equal(h.nearSaturation, []);
  const r = computeRatios(cases);
  assert.equal(r.list, { hapi: 0.7, node: 0.35, prism: 14, jsonServer: 7 });
  assert.is(r.get.hapi, 8000 / 11_000);
  // Fixture CPU cost is 1/rps: the CPU-based ratios equal the rate-based ones here.
  assert.ok(Math.abs(r.listByCpu.hapi! - 0.7) < 1e-9);
  assert.is(r.postgresOverFileList, 5000 / 7000);
  assert.is(r.postgresOverFileCreate, 0.95);
  assert.is(r.redisOverMemory, 0.9);
  assert.is(r.workersOverOne, 4200 / 4500);
  assert.is(r.scaleOutCpuOverFile, 200 / (1e6 / 7000));
  assert.is(r.scaleOutAllCpuOverFile, 320 / (1e6 / 7000));
});

const voidRound = (reason: string) => ({
  cleanRounds: 0,
  voidRounds: [
    { round: 1, reason },
    { round: 2, reason },
  ],
  requests: 0,
  rps: 0,
  perRound: [],
});

const variations: Array<[string, CaseResult[], Verdict[], RunSettings?]> = [
  ['list at 0.59 of bare hapi', replace('ref-list', (c) => ({ ...c, summary: summary(5900) })), but({ 0: 'missed' })],
  ['Prism fast enough that the list ratio is 9.9', replace('prism-list', (c) => ({ ...c, summary: summary(7000 / 9.9) })), but({ 1: 'missed' })],
  ['json-server fast enough that the get ratio is 4.9', replace('json-get', (c) => ({ ...c, summary: summary(8000 / 4.9) })), but({ 5: 'missed' })],
  ['get at 0.59 of bare hapi', replace('hapi-get', (c) => ({ ...c, summary: summary(8000 / 0.59) })), but({ 3: 'missed' })],
  ['create at 4,999/s', replace('ref-post', (c) => ({ ...c, summary: summary(4999) })), but({ 6: 'missed' })],
  ["create measured at 64 connections: not the target's condition", passing(), but({ 6: 'not measured' }), { ...settings, connections: 64 }],
  [
    'every create round lost an acknowledged create: no clean round',
    replace('ref-post', (c) => ({ ...c, summary: summary(9000, voidRound('1 acknowledged or original pets missing after SIGKILL')) })),
    but({ 6: 'not measured', 10: 'not measured' }),
  ],
  ['RSS 150 MB exactly', replace('list-100k', (c) => ({ ...c, peakRssBytes: 150e6 })), but({ 7: 'missed' })],
  ['RSS small but tsx in the process', replace('list-100k', (c) => ({ ...c, tsx: true })), but({ 7: 'missed' })],
  // The generator saturated at 20,000/s: below the fastest server, so everything near it is compressed.
  ["the generator's headroom is 0.95x", replace('null', (c) => ({ ...c, summary: summary(20_000, { generatorBusy: 0.99 }) })), but({ 8: 'missed' })],
  ['no null server: headroom not measured', passing().filter((c) => c.id !== 'null'), but({ 8: 'not measured' })],
  [
    'the reference answered 429s in every round',
    replace('ref-list', (c) => ({ ...c, summary: summary(9000, voidRound('3 x 429')) })),
    but({ 0: 'not measured', 1: 'not measured', 2: 'not measured', 9: 'not measured' }),
  ],
  [
    'one void round of two: the clean one counts',
    replace('ref-list', (c) => ({ ...c, summary: summary(7000, { cleanRounds: 1, voidRounds: [{ round: 2, reason: '4 socket errors' }] }) })),
    all('met'),
  ],
  [
    'bare hapi had socket errors in every round',
    replace('hapi-get', (c) => ({ ...c, summary: summary(9000, voidRound('2 socket errors')) })),
    but({ 3: 'not measured' }),
  ],
  ['Prism not run', passing().filter((c) => !c.id.startsWith('prism')), but({ 1: 'not measured', 4: 'not measured' })],
  [
    "the scale-out list at 1.51x the file store's server CPU",
    replace('pg-redis-list', (c) => ({ ...c, summary: summary(4500, { cpuMicrosPerRequest: 1.51e6 / 7000 }) })),
    but({ 9: 'missed' }),
  ],
  ["PostgreSQL creates at 0.89x the file store's", replace('pg-post', (c) => ({ ...c, summary: summary(5340) })), but({ 10: 'missed' })],
  ['--workers 2 at 0.88x one instance', replace('workers-list', (c) => ({ ...c, summary: summary(3960) })), but({ 11: 'missed' })],
  [
    '--workers 2 had no clean round',
    replace('workers-list', (c) => ({ ...c, summary: summary(4200, voidRound('2 socket errors')) })),
    but({ 11: 'not measured' }),
  ],
  [
    'one instance on PostgreSQL + Redis had no clean round: the workers have nothing to be compared with',
    replace('pg-redis-list', (c) => ({ ...c, summary: summary(4500, voidRound('1 x 429')) })),
    but({ 9: 'not measured', 11: 'not measured' }),
  ],
];
for (const [name, cases, expected, s] of variations) {
  test(`targets: ${name}`, () => assert.equal(verdicts(cases, s), expected));
}

test('a missed target says why from what was measured; a target not measured says which case and why', () => {
  const slow = replace('ref-list', (c) => ({ ...c, summary: summary(5000, { cpuMicrosPerRequest: 190 }) }));
  const [list] = checkTargets(slow, settings, computeHeadroom(slow));
  assert.match(list!.why!, /ref-list 5,000\/s at 190 us server CPU per request, hapi-list 10,000\/s at 100 us/);
  const compressed = slow.map((c) => (c.id === 'null' ? { ...c, summary: summary(20_000, { generatorBusy: 1 }) } : c));
  assert.match(checkTargets(compressed, settings, computeHeadroom(compressed))[0]!.why!, /generator headroom only 0\.9x: ratios compressed/);
  const waiting = replace('ref-post', (c) => ({ ...c, summary: summary(3000, { serverBusy: 0.6, cpuMicrosPerRequest: 200 }) }));
  assert.match(checkTargets(waiting, settings, computeHeadroom(waiting))[6]!.why!, /60% busy \(200 us of CPU per create\): the rest is waiting/);
  const saturated = replace('ref-post', (c) => ({ ...c, summary: summary(3000, { serverBusy: 0.98, cpuMicrosPerRequest: 330 }) }));
  assert.match(checkTargets(saturated, settings, computeHeadroom(saturated))[6]!.why!, /saturated at 330 us of CPU per create/);
  const limited = replace('ref-list', (c) => ({ ...c, summary: summary(9000, voidRound('3 x 429')) }));
  assert.match(checkTargets(limited, settings, computeHeadroom(limited))[0]!.why!, /ref-list had no clean round \(round 1: 3 x 429; round 2: 3 x 429\)/);
});

/** A case's rounds at these rates, each at 1e6/rate us per request and with something else taking `disturbance` of its core. */
const roundsAt = (rates: number[], disturbance: number[] = []) =>
  rates.map((rps, i) => ({ round: i + 1, rps, cpuMicros: 1e6 / rps, disturbance: disturbance[i] ?? 0.01 }));
const withRounds = (id: CaseId, rates: number[], disturbance?: number[]) =>
  replace(id, (c) => {
    const perRound = roundsAt(rates, disturbance);
    return { ...c, summary: summary(median(rates), { perRound, coreOthersMax: Math.max(...perRound.map((r) => r.disturbance)) }) };
  });

test("issue 31: rounds 0.55x, 0.61x and 0.62x of bare hapi read 'met' (median 0.61x); they are not settled", () => {
  const cases = withRounds('ref-list', [5500, 6100, 6200]).map((c) =>
    c.id === 'hapi-list' ? { ...c, summary: summary(10_000, { perRound: roundsAt([10_000, 10_000, 10_000]) }) } : c,
  );
  const [list] = checkTargets(cases, settings, computeHeadroom(cases));
  assert.is(list!.verdict, 'not settled');
  assert.is(list!.measured, '0.55x-0.62x', 'the rounds, never their median alone');
  assert.match(
    list!.why!,
    /^rounds 0\.55x-0\.62x on both sides of the target; ref-list 6,100\/s at 164 us server CPU per request, hapi-list 10,000\/s at 100 us$/,
  );
  assert.ok(computeRatios(cases).unsettled.includes('list.hapi'));
});

test('a ratio target whose rounds disagree is not settled, with why; a settled miss gives its rounds, lowest to highest', () => {
  // hapi-list at 10,000/s in both rounds; the reference at 5,000 and 6,500: rounds 0.50x and 0.65x.
  const noisy = withRounds('ref-list', [5000, 6500]);
  const [list] = checkTargets(noisy, settings, computeHeadroom(noisy));
  assert.equal([list!.measured, list!.verdict], ['0.50x-0.65x', 'not settled']);
  assert.match(list!.why!, /^rounds 0\.50x-0\.65x, 30% apart \(at most 15%\); rounds 0\.50x-0\.65x on both sides of the target; ref-list/);
  const slow = withRounds('ref-list', [5000, 5400]);
  const [missed] = checkTargets(slow, settings, computeHeadroom(slow));
  assert.equal([missed!.measured, missed!.verdict], ['0.52x', 'missed']);
  assert.match(missed!.why!, /; round by round 0\.50x-0\.54x$/);
  // Against ref-post's 6,000/s in both rounds: 0.50x and 0.83x (cut, not rounded).
  const slowPost = withRounds('pg-post', [3000, 5000]);
  const post = checkTargets(slowPost, settings, computeHeadroom(slowPost)).find((t) => t.target.startsWith('pg-post'))!;
  assert.equal([post.measured, post.verdict], ['0.50x-0.83x', 'not settled']);
  assert.match(post.why!, /^rounds 0\.50x-0\.83x, 67% apart \(at most 15%\); pg-post 4,000\/s vs ref-post 6,000\/s durable creates$/);
});

test("a ratio is not settled when something else took more than 10% of a server's core in one of its rounds", () => {
  const shared = withRounds('hapi-list', [10_000, 10_000], [0.02, 0.45]);
  const [list] = checkTargets(shared, settings, computeHeadroom(shared));
  assert.equal([list!.measured, list!.verdict], ['0.70x', 'not settled']);
  assert.match(list!.why!, /^something else ran beside the benchmark in round 2 \(up to 0\.45 of a core; at most 0\.10\); ref-list 7,000\/s/);
  const core = checkServerCore(shared)!;
  assert.equal(core.shared, ['hapi-list']);
  assert.equal(core.others, { share: 0.45, id: 'hapi-list' });
  // floor-list was not measured in this run: no floor ratio to mark.
  assert.equal(computeRatios(shared).unsettled, ['list.hapi', 'listByCpu.hapi']);
});

test("the workers projection: from measured CPU per request, capped by Redis's one thread", () => {
  const p = projectWorkers(passing())!;
  // workers-list has no PostgreSQL or Redis figure in the fixture: one instance's is used.
  assert.is(p.from, 'pg-redis-list');
  assert.is(p.redisCeiling, 50_000);
  assert.equal(p.rows[0], { workers: 1, rps: 5000, cores: 1.6, limitedBy: 'workers' });
  assert.equal(p.rows.at(-1), { workers: 16, rps: 50_000, cores: 16, limitedBy: 'redis' });
  assert.is(projectWorkers(passing().filter((c) => !c.id.includes('redis') && c.id !== 'workers-list')), null);
});

test('headroom: an unknown generator CPU gives the null rate as the ceiling; busy cases are named', () => {
  const unknown = replace('null', (c) => ({ ...c, summary: summary(50_000, { generatorBusy: Number.NaN }) }));
  const h = computeHeadroom(unknown);
  assert.is(h.ceiling, 50_000);
  assert.is(h.generatorBusy, null);
  const busy = replace('node-get', (c) => ({ ...c, summary: summary(21_000, { generatorBusy: 0.8 }) }));
  assert.equal(computeHeadroom(busy).nearSaturation, ['node-get']);
});

test('the store-size targets appear only when their cases ran', () => {
  assert.is(checkTargets(passing(), settings, computeHeadroom(passing())).length, 12);
  const withSizes = [...passing(), result('list-1k', summary(7000)), result('deep-1k', summary(7000)), result('deep-100k', summary(7000, { p99: 20 }))];
  const checks = checkTargets(withSizes, settings, computeHeadroom(withSizes));
  assert.equal(
    checks.slice(12).map((t) => t.verdict),
    ['met', 'missed'],
  );
});

test('a case with no clean round is not clean; one clean round is enough', () => {
  assert.ok(clean(result('ref-list', summary(1))));
  assert.ok(clean(result('ref-list', summary(1, { cleanRounds: 1, voidRounds: [{ round: 1, reason: 'x' }] }))));
  assert.not.ok(clean(result('ref-list', summary(1, voidRound('x')))));
  assert.not.ok(clean(result('ref-list', null)));
  assert.not.ok(clean(undefined));
});

function report(cases = passing(), extra: Partial<BenchReport> = {}): BenchReport {
  const headroom = computeHeadroom(cases);
  return {
    tool: 'adoption-store-kit bench',
    startedAt: '2026-11-23T09:30:12.000Z',
    finishedAt: '2026-11-23T09:40:00.000Z',
    environment: { node: 'v20.20.2', platform: 'linux x64', cpus: 2, cpuModel: 'Intel(R) Xeon(R) Processor' },
    settings,
    cases,
    headroom,
    serverCore: checkServerCore(cases),
    ratios: computeRatios(cases),
    projection: projectWorkers(cases),
    targets: checkTargets(cases, settings, headroom),
    notes: ['--workers 2 ran both workers on cpu 1'],
    ...extra,
  };
}

test('the text report: a row per case, void rounds, the headroom, the ratios, durability, notes and every target', () => {
  const cases = passing().map((c) =>
    c.id === 'json-get' ? { ...c, summary: summary(1200, { cleanRounds: 1, voidRounds: [{ round: 2, reason: '3 socket errors' }], errors: 3 }) } : c,
  );
  cases.push(result('deep-100k', null, { skipped: 'server exited (code 1)' }));
  const r = report(cases);
  const text = renderText(r);
  for (const c of cases) assert.ok(text.includes(c.title), c.title);
  assert.match(text, /ref-list\s+reference list, file store 10,000 pets\s+7,000/);
  assert.match(text, /json-get .* 1\/2\s+3 socket errors/);
  assert.match(text, /VOID: json-get round 2: 3 socket errors/);
  assert.match(text, /skipped: server exited \(code 1\)/);
  assert.match(text, /load generator: wrk debian\/4\.1\.0-3\+b2, 1 thread; reference server: compiled/);
  assert.match(
    text,
    /load generator headroom: null server 60,000 req\/s with wrk at 50% of its core, ceiling about 120,000 req\/s; fastest server node-get 21,000 req\/s: headroom 5\.7x/,
  );
  assert.not.match(text, /WARNING: the load generator's headroom/);
  assert.match(text, /list\s+0\.70\s+0\.35\s+14\.0\s+7\.0\s+by req\/s/);
  assert.match(
    text,
    /PostgreSQL\/file store: list 0\.71, create 0\.95; Redis limiter\/memory limiter \(PostgreSQL\) 0\.90; --workers 2\/one instance 0\.93 \(workers on cpu 1\)/,
  );
  assert.match(
    text,
    /ref-post: 120,000 acknowledged creates, store 10,000 -> 130,003 pets after SIGKILL \(all durable, every acknowledged id found once; 3 in flight\)/,
  );
  assert.match(text, /note: --workers 2 ran both workers on cpu 1/);
  for (const t of r.targets) assert.ok(text.includes(t.target), t.target);
  assert.match(text, /servers on cpu 1, load generator on cpu 0/);
  const squeezed = renderText(report(replace('null', (c) => ({ ...c, summary: summary(20_000, { generatorBusy: 1 }) }))));
  assert.match(squeezed, /ceiling 20,000 req\/s \(saturated\)/);
  assert.match(squeezed, /WARNING: the load generator's headroom is below 1\.5x/);
  const flagged = renderText({ ...r, settings: { ...settings, referenceFlags: ['--quiet'] } });
  assert.match(flagged, /NOTE: reference servers ran with serve flags \[--quiet\]/);
  const disturbed = renderText(report(replace('hapi-list', (c) => ({ ...c, summary: summary(10_000, { foreignCoresMax: 0.75 }) }))));
  assert.match(disturbed, /WARNING: other processes kept up to 0\.75 of 2 cores busy during hapi-list/);
});

test("the text report: the core each case's server shared, what else ran on the servers' core, and unsettled ratios marked", () => {
  const text = renderText(report());
  assert.match(text, /rounds min-max\s+core shared\s+p50 ms/);
  assert.match(text, /hapi-list\s+bare hapi, the reference list's bytes\s+10,000\s+10,000-10,000\s+1%/);
  assert.match(
    text,
    /servers' core \(cpu 1\), over every clean round: the benchmark's idle servers took at most 0\.0% of it \(null\), other processes at most 1% \(null\)/,
  );
  assert.not.match(text, /WARNING: something else/);
  assert.not.match(text, /^\?: /m);
  const shared = renderText(report(withRounds('hapi-list', [10_000, 10_000], [0.02, 0.45])));
  assert.match(shared, /hapi-list\s+bare hapi, the reference list's bytes\s+10,000\s+10,000-10,000\s+45%/);
  assert.match(
    shared,
    /WARNING: something else used more than 0\.10 of a core \(of the server's, or anywhere on the machine\) in a round of hapi-list: ratios involving them are not settled/,
  );
  assert.match(shared, /list\s+0\.70\?\s+0\.35\s+14\.0\s+7\.0\s+by req\/s/);
  assert.match(
    shared,
    /^\?: not settled: fewer than 2 rounds in common, rounds more than 15% apart, or something else using more than 0\.10 of a core in a round/m,
  );
  assert.match(shared, /list >= 0\.6x bare hapi\s+0\.70x\s+not settled: something else ran beside the benchmark in round 2/);
  const unpinned = renderText({ ...report(), serverCore: null, settings: { ...settings, pinning: null } });
  assert.match(unpinned, /servers not pinned: what ran beside them is known only machine-wide/);
});

test('a ratio shown as meeting its target does meet it: ratios are cut, not rounded', () => {
  const cases = replace('ref-list', (c) => ({ ...c, summary: summary(5996) }));
  const list = checkTargets(cases, settings, computeHeadroom(cases))[0]!;
  assert.equal([list.measured, list.verdict], ['0.59x', 'missed']);
  // Binary fractions do not cut a whole hundredth away: 0.29 stays 0.29.
  const exact = replace('ref-list', (c) => ({ ...c, summary: summary(2900) }));
  assert.is(checkTargets(exact, settings, computeHeadroom(exact))[0]!.measured, '0.29x');
});

test('the results section: date, machine, generator with its headroom, command, the whole table, the profile', () => {
  const r = { ...report(), settings: { ...settings, command: "npm run bench -- --results bench/RESULTS.md --cases 'ref-list,hapi-list'" } };
  const section = renderResultsSection(r, '| owner | self | inclusive |\n');
  assert.match(section, /^## 2026-11-23 09:30 UTC: wrk, 17 cases\n/);
  assert.match(section, /- machine: 2 x Intel\(R\) Xeon\(R\) Processor, node v20\.20\.2, linux x64/);
  assert.match(section, /- load generator: wrk debian\/4\.1\.0-3\+b2, 1 thread; headroom 5\.7x/);
  assert.match(section, /- command: `npm run bench -- --results bench\/RESULTS\.md --cases 'ref-list,hapi-list'`/);
  assert.ok(section.includes(renderText(r).trimEnd()), 'the whole printed report, targets included');
  assert.match(section, /```\n\n\| owner \| self \| inclusive \|\n$/);
});

const OLD = '# Benchmark results\n\nDated runs of `npm run bench`, newest first.\n\n## 2026-11: autocannon, before\n\nold figures\n';
const insertions: Array<[string, string | undefined, string]> = [
  [
    'newest first: before the older sections, which are kept',
    OLD,
    '# Benchmark results\n\nDated runs of `npm run bench`, newest first.\n\n## new\n\n## 2026-11: autocannon, before\n\nold figures\n',
  ],
  [
    'a missing file gets the title and intro first',
    undefined,
    '# Benchmark results\n\nDated runs of `npm run bench`, newest first. Each names the machine, the load generator and the command.\n\n## new\n',
  ],
  ['a file with no run yet', '# Results\n\nintro\n', '# Results\n\nintro\n\n## new\n'],
];
for (const [name, existing, expected] of insertions) {
  test(`insertSection: ${name}`, () => assert.is(insertSection(existing, '## new\n'), expected));
}

test.run();
