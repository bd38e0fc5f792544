// The parts as a fan: spec/rules, spec, lib and the judge (judge/) at the bottom; the drivers
// (conformance, load, proxy) and the server on them and never on each other; nothing at the bottom
// names a check id that only a driver defines.
// bench measures the server's parts; bin and scripts are the handle and may use any part. Tests and
// their support may start any part; only scripts (which draw pictures from them) import them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOGUE } from '../conformance/catalogue.ts';
import { JUDGE_CHECKS } from '../judge/checks/index.ts';
import { codeFiles, cycles, importGraph, importsOf, isTestCode, partOf, ROOT, type ImportEdge } from './import-graph.ts';

const BOTTOM = ['spec/rules', 'spec', 'lib'];
/** The judging core: at the bottom beside spec/rules, and every driver's one way to a verdict. */
const JUDGE = 'judge';
/** What each part's shipped code may import besides itself: a part, or one file of a part. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  'spec/rules': [],
  spec: ['spec/rules', 'lib'],
  lib: ['spec/rules', 'spec'],
  [JUDGE]: BOTTOM,
  server: [...BOTTOM, JUDGE],
  conformance: [...BOTTOM, JUDGE],
  load: [...BOTTOM, JUDGE],
  proxy: [...BOTTOM, JUDGE],
  bench: [...BOTTOM, 'server'],
};

/** The imports of shipped code that break the fan, as `from -> to`. */
export function sideways(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const { from, to } of edges) {
    if (isTestCode(from)) continue;
    if (isTestCode(to) && partOf(from) !== 'scripts') {
      found.push(`${from} -> ${to} (test code)`);
      continue;
    }
    const allowed = MAY_IMPORT[partOf(from)];
    if (!allowed || partOf(from) === partOf(to)) continue;
    if (!allowed.includes(partOf(to)) && !allowed.includes(to)) found.push(`${from} -> ${to}`);
  }
  return found;
}

const graph = importGraph();

test('every part of shipped code is held to the fan, or is the handle (bin, scripts)', () => {
  const unknown = new Set(graph.filter((e) => !isTestCode(e.from)).map((e) => partOf(e.from)));
  for (const part of [...Object.keys(MAY_IMPORT), 'bin', 'scripts']) unknown.delete(part);
  assert.equal([...unknown], []);
});

test('no part imports sideways or into test code', () => {
  assert.equal(sideways(graph), []);
});

const shipped = graph.filter((e) => !isTestCode(e.from) && !isTestCode(e.to));

test('no import cycle in shipped code, type imports included', () => {
  assert.equal(cycles(shipped), []);
});

const CASES: Array<[string, string, string, boolean]> = [
  ['the proxy on a server plugin', 'proxy/server.ts', "import { parsePrefer } from '../server/plugins/faults.ts';", true],
  ['the proxy on a conformance module behind the API', 'proxy/judge.ts', "import type { HttpClient } from '../conformance/http.ts';", true],
  ["the proxy on conform's public API", 'proxy/judge.ts', "import { runConformance } from '../conformance/index.ts';", true],
  ['the proxy on the judge', 'proxy/judge.ts', "import { LIVE_CHECKS } from '../judge/index.ts';", false],
  ['the judge on a driver', 'judge/ledger.ts', "import { send } from '../conformance/checks/support.ts';", true],
  ['load on conformance', 'load/readme-tables.ts', "import { runConformance } from '../conformance/run.ts';", true],
  ['the server on lib', 'server/plugins/faults.ts', "import { parsePrefer } from '../../lib/prefer.ts';", false],
  ['spec/rules on lib', 'spec/rules/snapshot.js', "import { x } from '../../lib/x.ts';", true],
  ['shipped code on a testing module', 'server/server.ts', "export * from './testing/helpers.ts';", true],
  ['a test on another part', 'proxy/proxy.test.ts', "import { createServer } from '../server/index.ts';", false],
  ['a script drawing a picture from test support', 'scripts/generate.ts', "import { PICTURES } from '../spec/rules/testing/pictures.ts';", false],
  ['a dynamic import across', 'conformance/run.ts', "const m = await import('../load/lib/knee.js');", true],
];
for (const [what, file, line, breaks] of CASES) {
  test(`the fan check ${breaks ? 'finds' : 'allows'} ${what}`, () => {
    assert.is(sideways(importsOf(file, line)).length, breaks ? 1 : 0);
  });
}

test('a JSDoc import() type is a type import', () => {
  assert.equal(
    importsOf('load/lib/a.js', "/** @typedef {import('./b.js').B} B */\nconst c = await import('./c.js');").map((e) => e.typeOnly),
    [true, false],
  );
});

test('the cycle check finds a cycle made of type imports', () => {
  const edges = [...importsOf('conformance/a.ts', "import type { B } from './b.ts';"), ...importsOf('conformance/b.ts', "import type { A } from './a.ts';")];
  assert.equal(cycles(edges), [['conformance/a.ts', 'conformance/b.ts']]);
});

test('the test command searches every part of the fan for tests (a part it misses runs none)', () => {
  const text = readFileSync(join(ROOT, 'scripts', 'test.ts'), 'utf8');
  const searched =
    /const SEARCHED = \[([^\]]*)\]/
      .exec(text)?.[1]
      ?.match(/'[^']+'/g)
      ?.map((q) => q.slice(1, -1)) ?? [];
  const parts = Object.keys(MAY_IMPORT).map((part) => part.split('/')[0]!);
  assert.equal(
    [...new Set(parts)].filter((part) => !searched.includes(part)),
    [],
  );
});

test("ARCHITECTURE.md's map of where things live names files that exist", () => {
  const readme = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const table = readme.slice(readme.indexOf('<!-- where-things-live -->')).split('\n\n', 1)[0]!;
  const files = [...table.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
  assert.ok(files.length >= 10, `${files.length} files in the map`);
  assert.equal(
    files.filter((f) => !existsSync(join(ROOT, f))),
    [],
  );
});

/** Where a shipped file at the bottom (spec/rules, spec, lib, judge) names a check id that only a driver defines. */
export function driverIdsNamed(files: ReadonlyArray<{ file: string; text: string }>, driverIds: readonly string[]): string[] {
  const found: string[] = [];
  for (const { file, text } of files)
    for (const id of driverIds) if ([`'${id}'`, `"${id}"`, `\`${id}\``].some((quoted) => text.includes(quoted))) found.push(`${file} names ${id}`);
  return found;
}

test("nothing at the bottom names a check id that a driver defines (the judge's ids are its own)", () => {
  const judged = new Set(JUDGE_CHECKS.map((c) => c.id));
  const driverIds = CATALOGUE.map((c) => c.id).filter((id) => !judged.has(id));
  assert.ok(driverIds.length > 0 && judged.size > 0);
  const bottom = codeFiles(ROOT)
    .filter((file) => !isTestCode(file) && [...BOTTOM, JUDGE].includes(partOf(file)))
    .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
  assert.equal(driverIdsNamed(bottom, driverIds), []);
});

test('the id check finds a driver id named at the bottom, and only as a whole quoted id', () => {
  const files = [
    { file: 'spec/rules/x.js', text: "check: 'list.200'" },
    { file: 'judge/y.ts', text: "'list.200-extra' and list.200 unquoted" },
  ];
  assert.equal(driverIdsNamed(files, ['list.200']), ['spec/rules/x.js names list.200']);
});

test.run();
