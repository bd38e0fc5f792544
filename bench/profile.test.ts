import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ownerOf, renderProfile, renderProfileMarkdown, summarizeProfile, type CpuProfile } from './profile.ts';

const owners: Array<[string, string, string]> = [
  ['file:///work/main/node_modules/@hapi/hapi/lib/request.js', 'execute', '@hapi/hapi'],
  ['file:///work/main/node_modules/hapi-pino/index.js', 'onResponse', 'hapi-pino'],
  ['file:///x/node_modules/a/node_modules/pino/pino.js', 'write', 'pino'],
  ['file:///work/main/server/plugins/auth.ts', 'authenticate', 'server/plugins/auth.ts'],
  // The compiled server: named by its place in the project.
  ['file:///work/main/dist/server/plugins/auth.js', 'authenticate', 'server/plugins/auth.js'],
  ['file:///work/main/dist/lib/processes.js', 'spawnChild', 'lib/processes.js'],
  ['file:///work/main/dist/spec/rules/rules.js', 'judge', 'spec/rules/rules.js'],
  ['node:internal/streams/writable', 'write', 'node:internal'],
  ['', '(garbage collector)', '(garbage collector)'],
  ['', 'writev', '(native)'],
];
for (const [url, functionName, owner] of owners) {
  test(`ownerOf ${url || functionName} is ${owner}`, () => assert.is(ownerOf({ url, functionName, lineNumber: 0 }), owner));
}

// root -> hapi.execute -> auth.authenticate -> crypto.hash ; root -> (idle)
const profile: CpuProfile = {
  startTime: 0,
  endTime: 10_000,
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 5] },
    { id: 2, callFrame: { functionName: 'execute', url: 'file:///r/node_modules/@hapi/hapi/lib/request.js', lineNumber: 9 }, children: [3] },
    { id: 3, callFrame: { functionName: 'authenticate', url: 'file:///r/server/plugins/auth.ts', lineNumber: 0 }, children: [4] },
    { id: 4, callFrame: { functionName: 'hash', url: 'node:internal/crypto/hash', lineNumber: 0 } },
    { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  // 1 ms per sample: 2 in execute, 1 in authenticate, 3 in hash, 4 idle
  samples: [2, 2, 3, 4, 4, 4, 5, 5, 5, 5],
  timeDeltas: Array(10).fill(1000),
};

test('summarizeProfile: self and inclusive time, percentages of busy time', () => {
  const s = summarizeProfile(profile);
  assert.is(s.totalMs, 10);
  assert.is(s.busyMs, 6);
  const self = Object.fromEntries(s.byOwner.map((x) => [x.name, x.ms]));
  // Idle time is no one's cost: it is left out of every breakdown.
  assert.equal(self, { '@hapi/hapi': 2, 'server/plugins/auth.ts': 1, 'node:internal': 3 });
  const inclusive = Object.fromEntries(s.inclusiveByOwner.map((x) => [x.name, x.ms]));
  assert.is(inclusive['@hapi/hapi'], 6);
  assert.is(inclusive['server/plugins/auth.ts'], 4);
  assert.is(inclusive['node:internal'], 3);
  assert.is(s.inclusiveByOwner.find((x) => x.name === 'server/plugins/auth.ts')!.percent, (100 * 4) / 6);
  assert.equal(
    s.projectInclusive.map((x) => [x.name, x.ms]),
    [['authenticate server/plugins/auth.ts:1', 4]],
  );
  assert.match(renderProfile(s), /66\.7%\s+4 ms\s+server\/plugins\/auth\.ts/);
});

test('the Markdown table: one row per owner, self and inclusive side by side, busiest first', () => {
  const table = renderProfileMarkdown(summarizeProfile(profile));
  const rows = table.split('\n').filter((l) => l.startsWith('| `'));
  assert.equal(rows, ['| `@hapi/hapi` | 33.3% | 100.0% |', '| `server/plugins/auth.ts` | 16.7% | 66.7% |', '| `node:internal` | 50.0% | 50.0% |']);
  assert.match(table, /^6 ms busy of 10 ms sampled/);
});

test('summarizeProfile falls back to hit counts when a profile has no samples', () => {
  const s = summarizeProfile({
    startTime: 0,
    endTime: 4000,
    nodes: [
      { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2], hitCount: 0 },
      { id: 2, callFrame: { functionName: 'f', url: 'file:///r/server/x.ts', lineNumber: 0 }, hitCount: 4 },
    ],
  });
  assert.is(s.busyMs, 4);
  assert.equal(
    s.byOwner.map((x) => x.name),
    ['server/x.ts'],
  );
});

test.run();
