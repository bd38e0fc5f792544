import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { CaseId } from './cases.ts';
import { CASES } from './cases.ts';
import { checkTargets, clean, computeRatios, renderText, type BenchReport, type CaseResult, type RunSettings, type Verdict } from './report.ts';
import type { CaseSummary } from './stats.ts';

const settings: RunSettings = { duration: 10, warmup: 3, connections: 64, rounds: 3, pinning: { server: '1', load: '0' }, referenceOverrides: {}, referenceNodeFlags: [] };

function summary(rps: number, p99 = 10, extra: Partial<CaseSummary> = {}): CaseSummary {
  return { rps, rpsPerRound: [rps, rps], p50: p99 / 2, p99, p999: p99, max: p99, requests: rps * 20, unexpected: {}, errors: 0, timeouts: 0, bytesPerResponse: 1500, foreignCoresMax: 0, cpuMicrosPerRequest: 1e6 / rps, ...extra };
}

function result(id: CaseId, s: CaseSummary | null, extra: Partial<CaseResult> = {}): CaseResult {
  const spec = CASES[id];
  return { id, label: spec.label, title: spec.title, server: spec.server, method: spec.method, path: '/v1/pets', summary: s, peakRssBytes: 100e6, ...extra };
}

/** A run meeting every target, for variations to break one at a time. */
function passing(): CaseResult[] {
  return [
    result('ref-get', summary(7000)),
    result('hapi', summary(10000)),
    result('node', summary(12000)),
    result('prism', summary(500)),
    result('ref-post', summary(2500), { durability: [{ before: 10000, acknowledged: 50000, after: 50000 + 10000, ok: true }] }),
    result('ref-redis', summary(5000)),
    result('list-1k', summary(7000, 10)),
    result('list-100k', summary(7000, 11), { peakRssBytes: 140e6 }),
    result('deep-1k', summary(7000, 10)),
    result('deep-100k', summary(7000, 12)),
  ];
}

const verdicts = (cases: CaseResult[], s: RunSettings = settings) => checkTargets(cases, s, computeRatios(cases)).map((t) => t.verdict);
const replace = (id: CaseId, change: (c: CaseResult) => CaseResult) => passing().map((c) => (c.id === id ? change(c) : c));

test('a run meeting every target: all six met, ratios as computed', () => {
  const cases = passing();
  assert.equal(verdicts(cases), ['met', 'met', 'met', 'met', 'met', 'met']);
  const r = computeRatios(cases);
  assert.is(r.referenceOverHapi, 0.7);
  assert.is(r.referenceOverNode, 7000 / 12000);
  assert.is(r.referenceOverPrism, 14);
  assert.is(r.redisOverMemory, 5000 / 7000);
  assert.is(r.listP99Growth, 1.1);
  assert.is(r.listCpuGrowth, 1);
  // Fixture CPU cost is 1/rps: the CPU-based ratios equal the rate-based ones here.
  assert.ok(Math.abs(r.cpuReferenceOverHapi! - 0.7) < 1e-9);
  assert.ok(Math.abs(r.cpuReferenceOverPrism! - 14) < 1e-9);
});

const variations: Array<[string, CaseResult[], Verdict[], RunSettings?]> = [
  ['GET at 59% of hapi', replace('ref-get', (c) => ({ ...c, summary: summary(5900) })), ['missed', 'met', 'met', 'met', 'met', 'met']],
  ['Prism fast enough that the ratio is 9.9', replace('prism', (c) => ({ ...c, summary: summary(7000 / 9.9) })), ['met', 'missed', 'met', 'met', 'met', 'met']],
  ['POST at 1,999/s', replace('ref-post', (c) => ({ ...c, summary: summary(1999) })), ['met', 'met', 'missed', 'met', 'met', 'met']],
  ['POST at 32 connections: not the target\'s condition', passing(), ['met', 'met', 'not measured', 'met', 'met', 'met'], { ...settings, connections: 32 }],
  [
    'POST fast but an acknowledged create was lost',
    replace('ref-post', (c) => ({ ...c, durability: [{ before: 10000, acknowledged: 100, after: 10099, ok: false }] })),
    ['met', 'met', 'not measured', 'met', 'met', 'met'],
  ],
  ['RSS 150 MB exactly', replace('list-100k', (c) => ({ ...c, peakRssBytes: 150e6 })), ['met', 'met', 'met', 'missed', 'met', 'met']],
  ['first-page p99 grows 30%', replace('list-100k', (c) => ({ ...c, summary: summary(7000, 13) })), ['met', 'met', 'met', 'met', 'missed', 'met']],
  ['mid-store p99 grows 10x', replace('deep-100k', (c) => ({ ...c, summary: summary(700, 100) })), ['met', 'met', 'met', 'met', 'met', 'missed']],
  ['reference answered 429s', replace('ref-get', (c) => ({ ...c, summary: summary(9000, 5, { unexpected: { '429': 10 } }) })), ['not measured', 'not measured', 'met', 'met', 'met', 'met']],
  ['hapi had connection errors', replace('hapi', (c) => ({ ...c, summary: summary(9000, 5, { errors: 2 }) })), ['not measured', 'met', 'met', 'met', 'met', 'met']],
  ['Prism not run', passing().filter((c) => c.id !== 'prism'), ['met', 'not measured', 'met', 'met', 'met', 'met']],
  ['store-size cases skipped', replace('list-1k', (c) => ({ ...c, summary: null, skipped: 'server exited' })), ['met', 'met', 'met', 'met', 'not measured', 'met']],
];
for (const [name, cases, expected, s] of variations) {
  test(`targets: ${name}`, () => assert.equal(verdicts(cases, s), expected));
}

test('a case with unexpected statuses, errors or lost creates is not clean', () => {
  assert.ok(clean(result('ref-get', summary(1))));
  assert.not.ok(clean(result('ref-get', summary(1, 1, { unexpected: { '401': 1 } }))));
  assert.not.ok(clean(result('ref-get', summary(1, 1, { errors: 1 }))));
  assert.not.ok(clean(result('ref-get', summary(0, 1, { requests: 0 }))));
  assert.not.ok(clean(result('ref-get', null)));
  assert.not.ok(clean(undefined));
});

test('the text report holds a row per case, the ratios, the durability line and every target', () => {
  const cases = passing();
  cases.push(result('list-1k', null, { skipped: 'server exited (code 1)' }));
  const report: BenchReport = {
    tool: 'adoption-store-kit bench',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:05:00.000Z',
    environment: { node: 'v20', platform: 'linux x64', cpus: 2, cpuModel: 'EPYC' },
    settings,
    cases,
    ratios: computeRatios(cases),
    targets: checkTargets(cases, settings, computeRatios(cases)),
  };
  const text = renderText(report);
  for (const c of cases) assert.ok(text.includes(c.title), c.title);
  assert.match(text, /ref-get\s+reference GET, file store 10,000 pets\s+7,000/);
  assert.match(text, /reference\/hapi\s+0\.70.*\(by req\/s\)/);
  assert.match(text, /reference\/hapi\s+0\.70.*\(by server CPU per request\)/);
  assert.match(text, /ref-get .* 143 /); // CPU us/req of a 7,000 req/s case
  assert.match(text, /reference\/Prism\s+14\.0/);
  assert.match(text, /skipped: server exited \(code 1\)/);
  assert.match(text, /1,000 -> 100,000 pets: p99 x1\.10 first page, x1\.20 mid-store page; server CPU per request x1\.00 first page/);
  assert.match(text, /50,000 acknowledged creates, store 10,000 -> 60,000 pets after SIGKILL/);
  assert.match(text, /server on cpu 1, load generator on cpu 0/);
  assert.not.match(text, /NOTE: reference servers ran with/);
  for (const t of report.targets) assert.ok(text.includes(t.target), t.target);
  assert.not.match(text, /WARNING: other processes/);
  const disturbedCases = cases.map((c) => (c.id === 'hapi' ? { ...c, summary: { ...c.summary!, foreignCoresMax: 0.75 } } : c));
  assert.match(renderText({ ...report, cases: disturbedCases }), /WARNING: other processes kept up to 0\.75 of 2 cores busy during hapi/);
  const overridden = renderText({ ...report, settings: { ...settings, referenceOverrides: { logger: false } } });
  assert.match(overridden, /NOTE: reference servers ran with createServer overrides \{"logger":false\}/);
});

test.run();
