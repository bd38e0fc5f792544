// The package as a consumer gets it: `npm pack` installed into a fresh project, lean (no Dredd, Prism)
// and full, under plain node: the guides' blocks marked for it run, `adoption-kit serve` stops on
// SIGTERM, a command needing an optional dependency says how to get it, no install script or install
// analytics (@scarf/scarf) runs, and the install sizes the README quotes are printed.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitGone, collectOutput, descendants, running, spawnChild, waitForOutput } from '../lib/processes.ts';
import { petsTarget } from '../load/testing/fake-targets.ts';
import { findK6 } from '../load/testing/k6-bin.ts';
import { captureConsole } from '../load/testing/k6-shim.ts';
import { runScript } from '../load/testing/k6-run.ts';
import { commandLines, guideBlock, shellWords } from './guide-blocks.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'adoption-package-'));
const execFileAsync = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += folderBytes(path);
    else if (entry.isFile()) total += statSync(path).size;
  }
  return total;
}

const packages = (dir: string) =>
  Object.keys(JSON.parse(readFileSync(join(dir, 'node_modules', '.package-lock.json'), 'utf8')).packages).filter((p) => p.startsWith('node_modules/')).length;

/**
 * A stand-in for scarf.sh: @scarf/scarf (Swagger UI's install analytics) reports to localhost at
 * SCARF_LOCAL_PORT when that is set. Both loopback addresses, as "localhost" may name either.
 */
async function telemetryTrap(): Promise<{ port: number; seen: string[]; close: () => void }> {
  const seen: string[] = [];
  const listen = (host: string, port: number) =>
    new Promise<Server | null>((resolve) => {
      const server = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        res.end();
      });
      server.once('error', () => resolve(null));
      server.listen(port, host, () => resolve(server));
    });
  const v4 = (await listen('127.0.0.1', 0))!;
  const port = (v4.address() as AddressInfo).port;
  const v6 = await listen('::1', port);
  return { port, seen, close: () => [v4, v6].forEach((s) => s?.close()) };
}

/** What npm says installing into a project, warnings included (npm's install-scripts notice is one). */
const installEnv = (trapPort: number) => {
  // Whatever the machine says about analytics, the package's own setting is what is tested.
  const { SCARF_ANALYTICS: _a, SCARF_NO_ANALYTICS: _b, DO_NOT_TRACK: _c, ...env } = process.env;
  return { ...env, npm_config_update_notifier: 'false', SCARF_LOCAL_PORT: String(trapPort) };
};

async function consumer(name: string, tarball: string, omitOptional: boolean): Promise<string> {
  const dir = join(work, name);
  execFileSync('mkdir', ['-p', dir]);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${name}`, private: true, type: 'module' }));
  const args = ['install', tarball, ...(omitOptional ? ['--omit=optional'] : []), '--no-audit', '--no-fund', '--loglevel=warn'];
  const said = await execFileAsync('npm', args, { cwd: dir, encoding: 'utf8', env: installEnv(trap.port), maxBuffer: 16 * 1024 * 1024 });
  installOutput[name] = `${said.stdout}${said.stderr}`;
  const mb = folderBytes(join(dir, 'node_modules')) / 1e6;
  installs[name] = { packages: packages(dir), mb };
  process.stdout.write(`  [install] ${name}: ${packages(dir)} packages, ${mb.toFixed(1)} MB in node_modules\n`);
  return dir;
}

/** What each install measured, for the README's figures. */
const installs: Record<string, { packages: number; mb: number }> = {};
/** What npm printed for each install. */
const installOutput: Record<string, string> = {};

/** The README's "As a dependency" block: its install lines and the commands it names. */
const dependencyLines = () => commandLines(guideBlock('README.md', 'as-a-dependency'));

/**
 * The README quotes the install sizes on its install lines; a quote may drift with the registry's
 * versions, but not far: packages within 5 %, megabytes within 15 % of what this run measured.
 */
function assertQuoted(name: string, args: string[]) {
  const text = guideBlock('README.md', 'as-a-dependency');
  const line = text.split('\n').find((l) => l.split('#')[0]!.trim() === ['npm', 'install', 'adoption-store-kit', ...args].join(' '));
  assert.ok(line, `README.md has the line npm install adoption-store-kit ${args.join(' ')}`);
  const quoted = /# (\d+) packages, (\d+) MB/.exec(line);
  assert.ok(quoted, `README.md quotes the ${name} install's size`);
  const [packagesQuoted, mbQuoted] = [Number(quoted[1]), Number(quoted[2])];
  const measured = installs[name]!;
  const near = (a: number, b: number, share: number) => Math.abs(a - b) <= share * b;
  assert.ok(near(packagesQuoted, measured.packages, 0.05), `README says ${packagesQuoted} packages for the ${name} install; it has ${measured.packages}`);
  assert.ok(near(mbQuoted, measured.mb, 0.15), `README says ${mbQuoted} MB for the ${name} install; it has ${measured.mb.toFixed(1)} MB`);
}

const t = suite('the packed package in a fresh project');
let tarball: string;
let lean: string;
let trap: Awaited<ReturnType<typeof telemetryTrap>>;

t.before(async () => {
  trap = await telemetryTrap();
  const packed = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], root)) as Array<{
    filename: string;
    size: number;
    unpackedSize: number;
    entryCount: number;
  }>;
  tarball = join(work, packed[0]!.filename);
  process.stdout.write(
    `  [pack] ${packed[0]!.filename}: ${packed[0]!.entryCount} files, ${(packed[0]!.size / 1e6).toFixed(2)} MB packed, ${(packed[0]!.unpackedSize / 1e6).toFixed(2)} MB unpacked\n`,
  );
  lean = await consumer('lean', tarball, true);
});
t.after(() => {
  trap.close();
  rmSync(work, { recursive: true, force: true });
});

t("installing it runs none of the package's scripts", () => {
  // npm 11's install-scripts notice lists each installed package that has one; the kit must not be among them.
  const listed = installOutput.lean!.split('\n').filter((l) => l.includes('install-scripts') && l.includes('adoption-store-kit'));
  assert.equal(listed, [], installOutput.lean);
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
  const out = execFileSync(process.execPath, ['snippet.mjs'], { cwd: lean, encoding: 'utf8', timeout: 30_000 });
  assert.match(out, /snippet ok 200/);
  writeFileSync(
    join(lean, 'rules.mjs'),
    "import { PET_STATUSES, parseRetryAfter } from 'adoption-store-kit/rules';\nimport { runConformance } from 'adoption-store-kit/conformance';\nimport { LIVE_CHECKS } from 'adoption-store-kit/judge';\nconsole.log(PET_STATUSES.join(','), parseRetryAfter('42', Date.now()).form, typeof runConformance, LIVE_CHECKS.length);\n",
  );
  assert.match(execFileSync(process.execPath, ['rules.mjs'], { cwd: lean, encoding: 'utf8' }), /available,pending,sold delay-seconds function 5/);
});

t("every command the README's npx line names answers --help from the lean install, and so does the server guide's npx line", () => {
  const npx = dependencyLines().find((l) => l.startsWith('npx adoption-kit '));
  assert.ok(npx, 'README.md has an npx adoption-kit line');
  // `serve | conform | ... --help` names the commands, each taking --help.
  const words = shellWords(npx);
  assert.is(words.at(-1), '--help');
  const commands = words.slice(2, -1).filter((w) => w !== '|');
  assert.equal(commands, ['serve', 'conform', 'mock', 'proxy', 'client-report', 'load-merge']);
  for (const command of commands) {
    const out = execFileSync(join(lean, 'node_modules', '.bin', 'adoption-kit'), [command, '--help'], { cwd: lean, encoding: 'utf8', timeout: 30_000 });
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
  const match = await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, 20_000, 'adoption-kit serve');
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
    const base = (await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, 20_000, 'serve'))[1]!;
    const conform = run(['conform', '--base-url', base, '--api-key', 'test-enterprise-key']);
    assert.match(conform.stderr, /needs dredd, an optional dependency that is not installed: run "npm install dredd", or run conform with --no-dredd/);
  } finally {
    server.kill('SIGKILL');
  }
});

t('npx adoption-kit serve stops on SIGTERM to npx, with every process it started', async () => {
  const npx = spawnChild('npx', ['adoption-kit', 'serve', '--memory', '--port', '0', '--quiet'], { cwd: lean, stdio: ['ignore', 'pipe', 'pipe'] });
  const origin = (await waitForOutput(npx, collectOutput(npx), /listening on (http:\/\/\S+)\/v1/, 60_000, 'npx adoption-kit serve'))[1]!;
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
    const base = (await waitForOutput(server, collectOutput(server), /listening on (http:\/\/\S+\/v1)/, 20_000, 'serve'))[1]!;
    execFileSync(k6!, ['run', '--no-usage-report', '--quiet', '-e', `BASE_URL=${base}`, '-e', 'DURATION=4s', 'node_modules/adoption-store-kit/load/smoke.js'], {
      cwd: lean,
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.ok(existsSync(join(lean, 'smoke-summary.json')), 'k6 wrote the summary in the folder it ran in');
  } finally {
    server.kill('SIGKILL');
  }
});

let full: string;

t('a full install brings Dredd and Prism', async () => {
  full = await consumer('full', tarball, false);
  for (const dependency of ['dredd', '@stoplight/prism-cli']) assert.ok(statSync(join(full, 'node_modules', dependency, 'package.json')).isFile(), dependency);
});

t("the conformance guide's library snippet runs the kit, Dredd included, against a server on a manual clock", () => {
  // The snippet's baseUrl and clock are the reader's: here a reference server from the package, on a ManualClock.
  const prelude = [
    "import { createServer, ManualClock } from 'adoption-store-kit';",
    'const clock = new ManualClock(Date.now());',
    "const server = await createServer({ host: '127.0.0.1', port: 0, logger: false, storage: { type: 'memory' }, clock });",
    'await server.start();',
    'const baseUrl = `${server.info.uri}/v1`;',
  ].join('\n');
  const check = "\nawait server.stop();\nconsole.log('conformance', report.exitCode, report.results.length);\n";
  writeFileSync(join(full, 'conformance.mjs'), `${prelude}\n${guideBlock('conformance/README.md', 'conformance-library')}${check}`);
  const out = execFileSync(process.execPath, ['conformance.mjs'], { cwd: full, encoding: 'utf8', timeout: 120_000 });
  assert.match(out, /conformance 0 \d+/);
});

t("the README's install sizes are what the installs measure", () => {
  assertQuoted('lean', ['--omit=optional']);
  assertQuoted('full', []);
});

t.run();

const repository = suite("this repository's own install");
repository("Swagger UI's and Spectral's install analytics are off: the kit's package.json turns them off for `npm install` here", async () => {
  const own = await telemetryTrap();
  try {
    const report = join(root, 'node_modules', '@scarf', 'scarf', 'report.js');
    const env = { ...installEnv(own.port), INIT_CWD: root, SCARF_VERBOSE: 'true' };
    const said = await execFileAsync(process.execPath, [report], { cwd: root, encoding: 'utf8', env });
    assert.match(`${said.stdout}${said.stderr}`, /disabled via a package\.json in the dependency chain/);
    assert.equal(own.seen, []);
  } finally {
    own.close();
  }
});
repository.run();
