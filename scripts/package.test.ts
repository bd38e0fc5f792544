// The package as a consumer gets it: `npm pack` installed into a fresh project without the optional
// dependencies (Dredd, Prism), under plain node: the guides' blocks marked for it run, `adoption-kit
// serve` stops on SIGTERM, a command needing an optional dependency says how to get it, no install
// script or install analytics (@scarf/scarf) runs, and the install size the README quotes is checked.
// The full install is package-full.test.ts's.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitGone, collectOutput, descendants, running, spawnChild, waitForOutput } from '../lib/processes.ts';
import { petsTarget } from '../load/testing/fake-targets.ts';
import { findK6 } from '../load/testing/k6-bin.ts';
import { captureConsole } from '../load/testing/k6-shim.ts';
import { runScript } from '../load/testing/k6-run.ts';
import { commandLines, guideBlock, shellWords } from './guide-blocks.ts';
import { assertQuoted, consumer, execFileAsync, installEnv, pack, root, telemetryTrap, type Install, type Trap } from './testing/packed.ts';
import { START_BOUND_MS } from '../lib/testing/eventually.ts';

const work = mkdtempSync(join(tmpdir(), 'adoption-package-'));
/** The README's "As a dependency" block: its install lines and the commands it names. */
const dependencyBlock = () => guideBlock('README.md', 'as-a-dependency');

const t = suite('the packed package in a fresh project');
let installed: Install;
let lean: string;
let trap: Trap;

t.before(async () => {
  trap = await telemetryTrap();
  installed = await consumer(work, 'lean', pack(work), true, trap);
  lean = installed.dir;
});
t.after(() => {
  trap.close();
  rmSync(work, { recursive: true, force: true });
});

t("installing it runs none of the package's scripts", () => {
  // npm 11's install-scripts notice lists each installed package that has one; the kit must not be among them.
  const listed = installed.output.split('\n').filter((l) => l.includes('install-scripts') && l.includes('adoption-store-kit'));
  assert.equal(listed, [], installed.output);
});

t("no install analytics: @scarf/scarf (swagger-ui-dist's) is not installed, and the docs page's Swagger UI ships in dist", () => {
  // With current npm a dependency's scarfSettings does not reach @scarf/scarf, so the kit keeps it out.
  assert.not.ok(existsSync(join(lean, 'node_modules', '@scarf')), '@scarf/scarf installed with the kit');
  assert.not.ok(existsSync(join(lean, 'node_modules', 'swagger-ui-dist')), 'swagger-ui-dist installed with the kit');
  const shipped = join(lean, 'node_modules', 'adoption-store-kit', 'dist', 'server', 'docs', 'swagger-ui');
  for (const file of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'LICENSE', 'NOTICE']) assert.ok(existsSync(join(shipped, file)), file);
  assert.equal(trap.seen, [], 'nothing reported to the stand-in for scarf.sh');
});

t('ships compiled JavaScript with type declarations, and no TypeScript source to run', () => {
  const pkg = join(lean, 'node_modules', 'adoption-store-kit');
  for (const file of [
    'dist/server/index.js',
    'dist/server/index.d.ts',
    'dist/conformance/index.js',
    'dist/judge/index.js',
    'dist/spec/rules/index.js',
    'dist/bin/adoption-kit.js',
    'dist/spec/openapi.yaml',
    'spec/openapi.yaml',
  ]) {
    assert.ok(statSync(join(pkg, file)).isFile(), file);
  }
  const ts = execFileSync('find', [pkg, '-name', '*.ts', '-not', '-name', '*.d.ts'], { encoding: 'utf8' }).trim();
  assert.is(ts, '', 'no .ts file but declarations');
  for (const left of ['dredd', '@stoplight/prism-cli', 'tsx']) {
    assert.not.ok(existsSync(join(lean, 'node_modules', left, 'package.json')), `${left} is not installed by a lean install`);
  }
});

t('the pictures ship as the files k6 scripts import by path, each public one with its declaration', () => {
  const rules = join(lean, 'node_modules', 'adoption-store-kit', 'spec', 'rules');
  for (const file of ['timeline-svg.d.ts', 'capacity-svg.d.ts']) assert.ok(statSync(join(rules, file)).isFile(), file);
  writeFileSync(
    join(lean, 'pictures.mjs'),
    [
      "import { timelineSvg } from './node_modules/adoption-store-kit/spec/rules/timeline-svg.js';",
      "import { capacitySvg } from './node_modules/adoption-store-kit/spec/rules/capacity-svg.js';",
      "const timeline = timelineSvg({ key: 'k', points: [{ atMs: 0, status: 200, remaining: 1 }, { atMs: 500, status: 429, retryAfterMs: 1000 }] });",
      'const chart = capacitySvg({ rows: [{ rate: 10, achieved: 10, p95: 1, p99: 2, ok: true }], held: 10 });',
      "console.log(timeline.includes('tl-retry-after'), chart.includes('cap-knee'));",
    ].join('\n'),
  );
  assert.match(execFileSync(process.execPath, ['pictures.mjs'], { cwd: lean, encoding: 'utf8' }), /true true/);
});

t("the server guide's library snippet runs under plain node", () => {
  writeFileSync(
    join(lean, 'snippet.mjs'),
    `${guideBlock('server/README.md', 'server-library')}\nif (res.statusCode !== 200) throw new Error('status ' + res.statusCode);\nconsole.log('snippet ok', res.statusCode);\n`,
  );
  const out = execFileSync(process.execPath, ['snippet.mjs'], { cwd: lean, encoding: 'utf8', timeout: START_BOUND_MS });
  assert.match(out, /snippet ok 200/);
  writeFileSync(
    join(lean, 'rules.mjs'),
    "import { PET_STATUSES, parseRetryAfter } from 'adoption-store-kit/rules';\nimport { runConformance } from 'adoption-store-kit/conformance';\nimport { LIVE_CHECKS } from 'adoption-store-kit/judge';\nconsole.log(PET_STATUSES.join(','), parseRetryAfter('42', Date.now()).form, typeof runConformance, LIVE_CHECKS.length);\n",
  );
  assert.match(execFileSync(process.execPath, ['rules.mjs'], { cwd: lean, encoding: 'utf8' }), /available,pending,sold delay-seconds function 5/);
});

t("every command the README's npx line names answers --help from the lean install, and so does the server guide's npx line", () => {
  const npx = commandLines(dependencyBlock()).find((l) => l.startsWith('npx adoption-kit '));
  assert.ok(npx, 'README.md has an npx adoption-kit line');
  // `serve | conform | ... --help` names the commands, each taking --help.
  const words = shellWords(npx);
  assert.is(words.at(-1), '--help');
  const commands = words.slice(2, -1).filter((w) => w !== '|');
  assert.equal(commands, ['serve', 'conform', 'mock', 'proxy', 'client-report', 'load-merge']);
  for (const command of commands) {
    const out = execFileSync(join(lean, 'node_modules', '.bin', 'adoption-kit'), [command, '--help'], { cwd: lean, encoding: 'utf8', timeout: START_BOUND_MS });
    assert.match(out, /^Usage: /, command);
  }
  // The server guide's start lines end with the one for a project the kit is installed in.
  const serveHelp = commandLines(guideBlock('server/README.md', 'serve-lines')).at(-1)!;
  const [npxCommand, ...args] = shellWords(serveHelp);
  assert.match(execFileSync(npxCommand!, args, { cwd: lean, encoding: 'utf8', timeout: 60_000 }), /^Usage: adoption-kit serve \[options\]/);
});

t('adoption-kit serve serves, and SIGTERM stops it: nothing is left holding the port', async () => {
  const bin = join(lean, 'node_modules', '.bin', 'adoption-kit');
  const server = spawnChild(bin, ['serve', '--memory', '--port', '0', '--quiet'], { cwd: lean, stdio: ['ignore', 'pipe', 'pipe'] });
  const match = await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, START_BOUND_MS, 'adoption-kit serve');
  const res = await fetch(`${match[1]}/pets?limit=1`, { headers: { authorization: 'Bearer test-free-key' } });
  assert.is(res.status, 200);
  // The docs page's Swagger UI, from the files the build copied into dist.
  const origin = new URL(match[1]!).origin;
  for (const asset of ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png']) {
    const got = await fetch(`${origin}/docs/assets/${asset}`);
    assert.is(got.status, 200, asset);
    assert.ok((await got.arrayBuffer()).byteLength > 0, asset);
  }
  server.kill('SIGTERM');
  assert.is(await new Promise((resolve) => server.once('exit', resolve)), 0);
  assert.not.ok(running(server.pid!));
  assert.not.ok(
    await fetch(`${match[1]}/pets`).then(
      () => true,
      () => false,
    ),
    'nothing answers on the port any more',
  );
});

t('without the optional dependencies, mock and the Dredd run of conform say how to get them', async () => {
  const bin = join(lean, 'node_modules', '.bin', 'adoption-kit');
  const run = (args: string[]) => {
    try {
      execFileSync(bin, args, { cwd: lean, encoding: 'utf8', stdio: 'pipe', timeout: 60_000 });
      return { status: 0, stderr: '' };
    } catch (error) {
      const e = error as { status: number; stderr: string; stdout: string };
      return { status: e.status, stderr: `${e.stderr}${e.stdout}` };
    }
  };
  const mock = run(['mock', '--port', '0']);
  assert.is(mock.status, 1);
  assert.match(mock.stderr, /needs @stoplight\/prism-cli, an optional dependency that is not installed: run "npm install @stoplight\/prism-cli"/);
  const server = spawnChild(join(lean, 'node_modules', '.bin', 'adoption-kit'), ['serve', '--memory', '--port', '0', '--quiet'], {
    cwd: lean,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const base = (await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, START_BOUND_MS, 'serve'))[1]!;
    const conform = run(['conform', '--base-url', base, '--api-key', 'test-enterprise-key']);
    assert.match(conform.stderr, /needs dredd, an optional dependency that is not installed: run "npm install dredd", or run conform with --no-dredd/);
  } finally {
    server.kill('SIGKILL');
  }
});

t('npx adoption-kit serve stops on SIGTERM to npx, with every process it started', async () => {
  const npx = spawnChild('npx', ['adoption-kit', 'serve', '--memory', '--port', '0', '--quiet'], { cwd: lean, stdio: ['ignore', 'pipe', 'pipe'] });
  const origin = (await waitForOutput(npx, collectOutput(npx), /listening on (http:\/\/\S+)\/v1/, START_BOUND_MS, 'npx adoption-kit serve'))[1]!;
  const tree = [npx.pid!, ...descendants(npx.pid!)];
  npx.kill('SIGTERM');
  assert.equal(await awaitGone(tree, 20_000), [], 'no process of the tree survives');
  assert.not.ok(
    await fetch(`${origin}/v1/pets`).then(
      () => true,
      () => false,
    ),
  );
});

t('the k6 scripts run from the package: the summary lands where k6 runs, and load-merge reads it', async () => {
  const script = join(lean, 'node_modules', 'adoption-store-kit', 'load', 'smoke.js');
  const out = captureConsole();
  let outputs: Record<string, string>;
  try {
    outputs = (await runScript(script, { env: { DURATION: '4s' }, handler: petsTarget(), startMs: Date.UTC(2026, 10, 23, 12) })).summary;
  } finally {
    out.restore();
  }
  // k6 writes each key of handleSummary's result relative to its working directory, and creates no folder.
  assert.equal(Object.keys(outputs).sort(), ['smoke-summary.json', 'stdout']);
  writeFileSync(join(lean, 'smoke-summary.json'), outputs['smoke-summary.json']!);
  const merged = execFileSync(join(lean, 'node_modules', '.bin', 'adoption-kit'), ['load-merge', 'smoke-summary.json'], { cwd: lean, encoding: 'utf8' });
  assert.match(merged, /merged 1 smoke\.js summaries[\s\S]*result: PASS/);
});

const k6 = findK6();
if (k6 === null) process.stdout.write('SKIP: k6 not found, so the packaged smoke.js is not run by a real k6 (it ran under the k6 shim)\n');
(k6 === null ? t.skip : t)("k6 runs the packaged smoke.js from the consumer's folder and writes its summary there", async () => {
  rmSync(join(lean, 'smoke-summary.json'), { force: true });
  const server = spawnChild(join(lean, 'node_modules', '.bin', 'adoption-kit'), ['serve', '--memory', '--port', '0', '--quiet'], {
    cwd: lean,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const base = (await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, START_BOUND_MS, 'serve'))[1]!;
    execFileSync(
      k6!,
      [
        'run',
        '--no-usage-report',
        '--quiet',
        '-e',
        `BASE_URL=${base}`,
        '-e',
        'DURATION=4s',
        '-e',
        'P95_MS=60000',
        'node_modules/adoption-store-kit/load/smoke.js',
      ],
      {
        cwd: lean,
        encoding: 'utf8',
        timeout: 60_000,
      },
    );
    assert.ok(existsSync(join(lean, 'smoke-summary.json')), 'k6 wrote the summary in the folder it ran in');
  } finally {
    server.kill('SIGKILL');
  }
});

t("the README's lean install size is what the install measures", () => {
  assertQuoted(dependencyBlock(), 'lean', ['--omit=optional'], installed);
});

t.run();

const repository = suite("this repository's own install");
repository("Swagger UI's and Spectral's install analytics are off: the kit's package.json turns them off for `npm install` here", async () => {
  const report = join(root, 'node_modules', '@scarf', 'scarf', 'report.js');
  // The reporter reads the dependency chain from `npm ls` under a 3 s deadline of its own, which a
  // busy machine misses (it then reports nothing, but not for the setting under test): it gets npm's
  // answer, asked here without a deadline, from a stand-in npm first on its PATH.
  const tree = spawnSync('npm', ['ls', '@scarf/scarf', '--json', '--long'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  assert.match(tree.stdout, /"@scarf\/scarf"/, tree.stderr);
  const bin = mkdtempSync(join(tmpdir(), 'scarf-npm-'));
  writeFileSync(join(bin, 'tree.json'), tree.stdout);
  writeFileSync(join(bin, 'npm'), `#!/bin/sh\ncat '${join(bin, 'tree.json')}'\n`, { mode: 0o755 });
  const own = await telemetryTrap();
  try {
    const env = { ...installEnv(own.port), INIT_CWD: root, SCARF_VERBOSE: 'true', PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
    const said = await execFileAsync(process.execPath, [report], { cwd: root, encoding: 'utf8', env });
    assert.match(`${said.stdout}${said.stderr}`, /disabled via a package\.json in the dependency chain/);
    assert.equal(own.seen, []);
  } finally {
    own.close();
    rmSync(bin, { recursive: true, force: true });
  }
});
repository.run();
