// Who kept a step from its rate (blame.js), judged through judgeSteps on recorded runs: the server
// whose request time grew with the rate, or the generator that ran out while it held.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SLOWDOWN } from './blame.js';
import { boundLine, judgeSteps, type StepStats } from './knee.js';
import { refineRates, stepPlan, withBaseline } from './phases.js';

const criteria = { maxErrorRate: 0.01, p95Ms: 250, p99Ms: 500, minAchieved: 0.95, maxDropped: 0.01 };
const good = (rate: number, holdS = 10): StepStats => ({ count: rate * holdS, errorRate: 0, p95: 5, p99: 9, dropped: 0 });

/**
 * Who missed a rate within the latency objective, on recorded runs: [name, steps as [rate, request
 * ms, what the step recorded beyond good(rate)], MAX_VUS, bound, cause, why]. The last step misses.
 */
const blame: Array<[string, Array<[number, number, Partial<StepStats>]>, number, 'server' | 'generator', string, RegExp]> = [
  [
    "the issue's run on a 2-core machine: 1.4 ms at 50/s, 43 ms with every VU busy at 1600/s: the server",
    [
      [50, 1.4, {}],
      [100, 1.5, {}],
      [200, 1.9, {}],
      [400, 3.2, {}],
      [800, 21, { p95: 130, p99: 210 }],
      [1600, 43, { p95: 160, p99: 240, vusMax: 200, dropped: 6000, count: 10_000, iterationAvg: 44 }],
    ],
    200,
    'server',
    'slowdown',
    /^6000 iterations dropped, achieved 1000\.0\/s of 1600\/s, the server slowed down: its requests took 43\.0 ms, x30\.7 the 1\.4 ms at 50\/s, and kept the VUs waiting \(all 200 busy\)$/,
  ],
  [
    'a shared machine: k6 also spent longer around each request than on it, but the server slowed: the server',
    [
      [50, 1.4, {}],
      [100, 9, { vusMax: 60, dropped: 300, count: 700, iterationAvg: 30 }],
    ],
    200,
    'server',
    'slowdown',
    /the server slowed down: its requests took 9\.0 ms, x6\.4 the 1\.4 ms at 50\/s, and kept the VUs waiting$/,
  ],
  [
    "the request time held and every VU was busy: the generator's VUs",
    [
      [50, 1.4, {}],
      [100, 1.5, { vusMax: 4, dropped: 300, count: 700, iterationAvg: 2 }],
    ],
    4,
    'generator',
    'vus',
    /the generator's ceiling: all 4 VUs busy \(raise MAX_VUS or add generators\) while its requests stayed at 1\.5 ms \(x1\.1 since 50\/s\)$/,
  ],
  [
    "the request time held, k6 spent longer around each request than on it: the generator's CPU",
    [
      [50, 1.4, {}],
      [100, 2, { vusMax: 30, dropped: 300, count: 700, iterationAvg: 9 }],
    ],
    200,
    'generator',
    'cpu',
    /k6 spent 7\.0 ms around each 2\.0 ms request, so k6 itself could not keep up \(add generators\) while its requests stayed at 2\.0 ms \(x1\.4 since 50\/s\)$/,
  ],
  [
    'the request time held, VUs to spare: k6 could not start iterations on time',
    [
      [50, 1.4, {}],
      [100, 1.6, { vusMax: 30, dropped: 300, count: 700, iterationAvg: 1.9 }],
    ],
    200,
    'generator',
    'dropped',
    /iterations dropped with VUs to spare while its requests stayed at 1\.6 ms/,
  ],
  [
    `a growth just below ${SLOWDOWN} times with every VU busy: the generator`,
    [
      [50, 2, {}],
      [100, 5.9, { vusMax: 200, dropped: 300, count: 700, iterationAvg: 6 }],
    ],
    200,
    'generator',
    'vus',
    /all 200 VUs busy .* while its requests stayed at 5\.9 ms \(x3\.0 since 50\/s\)/,
  ],
  [
    'a slow first step (warm-up) is not the baseline: the fastest lower step is',
    [
      [50, 5, {}],
      [100, 1.4, {}],
      [200, 4.5, { vusMax: 200, dropped: 300, count: 1700, iterationAvg: 4.6 }],
    ],
    200,
    'server',
    'slowdown',
    /x3\.2 the 1\.4 ms at 100\/s/,
  ],
];
for (const [name, steps, maxVUs, bound, cause, why] of blame) {
  test(`judgeSteps blame: ${name}`, () => {
    const stats = new Map(steps.map(([rate, ms, more]) => [`step-${rate}`, { ...good(rate), requestAvg: ms, iterationAvg: ms + 0.4, vusMax: 3, ...more }]));
    const knee = judgeSteps(
      stepPlan(
        steps.map(([rate]) => rate),
        10,
      ),
      (n) => stats.get(n) ?? null,
      { ...criteria, maxVUs },
    );
    const last = steps[steps.length - 1]![0];
    assert.is(knee.broke?.rate, last, JSON.stringify(knee.rows.map((r) => r.why)));
    assert.is(knee.bound, bound);
    assert.is(knee.broke!.cause, cause);
    assert.match(knee.broke!.why, why);
    assert.match(boundLine(knee, last), bound === 'server' ? /^bound found: the server's knee, between / : /^bound found: the generator's ceiling at /);
  });
}

test('a BETWEEN run measures the server unloaded first: without that step, a slowed server would be blamed on the generator', () => {
  // The issue's server, narrowed between 800/s (already 21 ms) and 1600/s: at 1200/s the VUs run out on 60 ms requests.
  const recorded = new Map<number, StepStats>([
    [50, { ...good(50), requestAvg: 1.4, iterationAvg: 1.8, vusMax: 3 }],
    [800, { ...good(800), requestAvg: 21, iterationAvg: 21.5, vusMax: 40 }],
    [1000, { ...good(1000), requestAvg: 30, iterationAvg: 30.5, vusMax: 60 }],
    [1200, { ...good(1200), requestAvg: 60, iterationAvg: 61, vusMax: 200, dropped: 3000, count: 9000 }],
    [1400, { ...good(1400), requestAvg: 90, iterationAvg: 91, vusMax: 200, dropped: 6000, count: 8000 }],
    [1600, { ...good(1600), requestAvg: 120, iterationAvg: 121, vusMax: 200, dropped: 9000, count: 7000 }],
  ]);
  const judge = (rates: number[]) => judgeSteps(stepPlan(rates, 10), (n) => recorded.get(Number(n.slice(5))) ?? null, { ...criteria, maxVUs: 200 });
  const rates = withBaseline(refineRates(800, 1600, 4), 50);
  assert.equal(rates, [50, 800, 1000, 1200, 1400, 1600]);
  const knee = judge(rates);
  assert.equal([knee.held!.rate, knee.broke!.rate, knee.bound], [1000, 1200, 'server']);
  assert.match(knee.broke!.why, /x42\.9 the 1\.4 ms at 50\/s/);
  assert.is(judge(refineRates(800, 1600, 4)).bound, 'generator', 'measured from 800/s alone, 60 ms is not 3 times 21 ms');
  assert.equal(withBaseline([50, 100], 50), [50, 100], 'a bracket that starts at START_RATE already has its baseline');
});

// blame.js and knee.js once imported each other (types one way, calls the other): their shared
// shapes now live in step-types.js. A cycle in load/, JSDoc type imports included, fails here.
const LOAD = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Every relative import of a load/ file that lands in load/, `import('./x.js')` in JSDoc included. */
function loadImports(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, e.name);
      if (e.isDirectory()) walk(path);
      else if (/\.(js|ts)$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const specs = [...readFileSync(path, 'utf8').matchAll(/(?:from\s+|import\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g)].map((m) => m[1]!);
        const targets = specs.map((s) => relative(LOAD, join(dirname(path), s))).filter((t) => !t.startsWith('..'));
        graph.set(relative(LOAD, path), targets);
      }
    }
  };
  walk(LOAD);
  return graph;
}

/** The first import cycle found, as the files in order, or null. */
function firstCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): string[] | null => {
    if (state.get(file) === 'done') return null;
    if (state.get(file) === 'open') return [...path.slice(path.indexOf(file)), file];
    state.set(file, 'open');
    path.push(file);
    for (const next of graph.get(file) ?? []) {
      const found = visit(next);
      if (found) return found;
    }
    path.pop();
    state.set(file, 'done');
    return null;
  };
  for (const file of graph.keys()) {
    const found = visit(file);
    if (found) return found;
  }
  return null;
}

test('the cycle finder finds a cycle of type imports, and none in a chain', () => {
  assert.equal(
    firstCycle(
      new Map([
        ['lib/knee.js', ['lib/blame.js']],
        ['lib/blame.js', ['lib/knee.js']],
      ]),
    ),
    ['lib/knee.js', 'lib/blame.js', 'lib/knee.js'],
  );
  assert.is(
    firstCycle(
      new Map([
        ['lib/knee.js', ['lib/blame.js', 'lib/step-types.js']],
        ['lib/blame.js', ['lib/step-types.js']],
      ]),
    ),
    null,
  );
});

test('no file in load/ imports one that imports it back, type imports included', () => {
  const graph = loadImports();
  assert.ok((graph.get('lib/blame.js') ?? []).includes('lib/step-types.js'), 'the scan reads JSDoc type imports');
  assert.is(firstCycle(graph), null);
});

test.run();
