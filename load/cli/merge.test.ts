// load-merge's exit codes keep their meaning when the merge itself fails: 3 (KIT_FAILED), never Node's
// 1, which is the merged run's FAIL. And the files it is given are the caller's: `npm run load:merge`
// reads them in the folder it was called from and writes the merged JSON and picture beside them.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import { ensureBuilt } from '../../lib/dist-build.ts';
import { KIT_FAILED } from '../../lib/kit-failure.ts';
import * as assert from 'uvu/assert';
import { petsTarget } from '../testing/fake-targets.ts';
import { captureConsole } from '../testing/k6-shim.ts';
import { runScript } from '../testing/k6-run.ts';
import { callerFolder, picturePath } from './merge.ts';
import { sourceArgs } from '../../lib/testing/run-source.ts';
import { START_BOUND_MS } from '../../lib/testing/eventually.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'load-merge-cli-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

function merge(files: string[], preload?: string) {
  const args = [...sourceArgs('load/cli/merge.ts', preload ? ['--import', `data:text/javascript,${encodeURIComponent(preload)}`] : []), ...files];
  return spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: START_BOUND_MS });
}

const halves = ['0:1/2', '1/2:1'].map((segment, i) => {
  const file = join(dir, `half-${i}.json`);
  const [from, to] = i === 0 ? [0, 0.5] : [0.5, 1];
  writeFileSync(file, JSON.stringify({ script: 'capacity', extra: { segment: { segment, share: 0.5, from, to } }, k6: null }));
  return file;
});

test('a merge that throws on summaries it cannot read exits 3 with one message, not 1 (FAIL)', () => {
  const r = merge(halves);
  assert.is(r.status, KIT_FAILED, r.stderr);
  assert.match(r.stderr, /load-merge: the kit failed \(an internal error, no verdict on what it judges/);
});

test('an unhandled rejection in the merge exits 3, not 1', () => {
  const r = merge(['--help'], `setTimeout(() => { Promise.reject(new Error('planted crash')); }, 1000);`);
  assert.is(r.status, KIT_FAILED, r.stderr);
  assert.match(r.stderr, /planted crash/);
});

const folders: Array<[string, NodeJS.ProcessEnv, string, string]> = [
  ['a plain node run: the working directory', {}, '/work/main', '/work/main'],
  [
    'started by npm run in the package root: the folder npm was called from',
    { INIT_CWD: '/home/me/results', npm_package_json: '/work/main/package.json' },
    '/work/main',
    '/home/me/results',
  ],
  ["a relative INIT_CWD is the package root's", { INIT_CWD: 'results', npm_package_json: '/work/main/package.json' }, '/work/main', '/work/main/results'],
  ['an empty INIT_CWD counts as unset', { INIT_CWD: '', npm_package_json: '/work/main/package.json' }, '/work/main', '/work/main'],
  // npm's variables reach every process an npm script starts: one that runs elsewhere (`cd results && adoption-kit load-merge ...`) is not npm's.
  [
    'an INIT_CWD inherited by a process started elsewhere: the working directory',
    { INIT_CWD: '/work/main', npm_package_json: '/work/main/package.json' },
    '/home/me/results',
    '/home/me/results',
  ],
  ['an INIT_CWD without npm_package_json: the working directory', { INIT_CWD: '/home/me' }, '/work/main', '/work/main'],
];
for (const [name, env, cwd, expected] of folders) {
  test(`callerFolder: ${name}`, () => assert.is(callerFolder(env, cwd), expected));
}

const pictures: Array<[string, string | undefined, string | undefined, string]> = [
  ['beside --json', 'out/merged.json', undefined, '/r/out/merged.svg'],
  ['--svg wins', 'merged.json', '/tmp/chart.svg', '/tmp/chart.svg'],
  ["no --json: a name of its own in the caller's folder", undefined, undefined, '/r/capacity-summary-merged.svg'],
];
for (const [name, json, svg, expected] of pictures) {
  test(`picturePath: ${name}`, () => assert.is(picturePath('/r', json, svg), expected));
}

/** Two halves of one capacity.js run, as each generator wrote its summary (under the shim). */
async function halvesIn(folder: string): Promise<string[]> {
  const names: string[] = [];
  for (const segment of ['0:1/2', '1/2:1']) {
    const out = captureConsole();
    try {
      const r = await runScript(join(ROOT, 'load', 'capacity.js'), {
        env: { START_RATE: '10', MAX_RATE: '40', HOLD: '5s' },
        handler: petsTarget(),
        startMs: Date.UTC(2026, 10, 22, 10, 0, 17, 300),
        executionSegment: segment,
        executionSegmentSequence: '0,1/2,1',
      });
      const [name, text] = Object.entries(r.summary).find(([k]) => k.endsWith('.json'))!;
      writeFileSync(join(folder, name), text);
      names.push(name);
    } finally {
      out.restore();
    }
  }
  return names;
}

test('`npm run load:merge -- a.json b.json` run from the folder holding the summaries reads them there and writes the merged JSON and picture there', async () => {
  await ensureBuilt((line) => process.stdout.write(`  ${line}\n`));
  // Inside the repository (npm finds the package from there), in a folder git ignores.
  const tmp = join(ROOT, '.tmp');
  const made = !existsSync(tmp);
  mkdirSync(tmp, { recursive: true });
  const folder = mkdtempSync(join(tmp, 'load-merge-'));
  try {
    const [a, b] = await halvesIn(folder);
    const r = spawnSync('npm', ['run', 'load:merge', '--', a!, b!, '--json', 'merged.json'], { cwd: folder, encoding: 'utf8', timeout: 60_000 });
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /merged 2 capacity\.js summaries[\s\S]*result: PASS/);
    assert.match(r.stdout, new RegExp(`picture: ${join(folder, 'merged.svg')}\n`));
    assert.is((JSON.parse(readFileSync(join(folder, 'merged.json'), 'utf8')) as { result: string }).result, 'PASS');
    const svg = readFileSync(join(folder, 'merged.svg'), 'utf8');
    assert.match(svg, /<title>bound found: none up to 40\/s/);
    assert.match(svg, /<title>step-40: 40\/s offered, 4\d(\.\d)?\/s achieved/, 'each step at its whole rate, summed over the generators');
    assert.not.ok(existsSync(join(ROOT, 'merged.json')) || existsSync(join(ROOT, 'merged.svg')), 'nothing written in the package root');
  } finally {
    rmSync(folder, { recursive: true, force: true });
    // Only if this test made it, and only while nobody else has put anything in it.
    if (made) {
      try {
        rmdirSync(tmp);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOTEMPTY') throw error;
      }
    }
  }
});

test('an output in a folder that does not exist is a usage error (exit 2), not the kit failing', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'load-merge-out-'));
  try {
    const [a, b] = await halvesIn(folder);
    const r = spawnSync(process.execPath, [...sourceArgs(join(ROOT, 'load/cli/merge.ts')), a!, b!, '--svg', 'no/such/folder/chart.svg'], {
      cwd: folder,
      encoding: 'utf8',
      timeout: START_BOUND_MS,
    });
    assert.is(r.status, 2, r.stderr);
    assert.match(r.stderr, /load-merge: cannot write .*no\/such\/folder\/chart\.svg: ENOENT/);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});

test.run();
