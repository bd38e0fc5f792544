// The guides' `<!-- run: <id> -->` blocks, run as written against one server started with the README's
// own `npm start` (PORT and DB_FILE the test's): curl lines, start lines, the kit's preflight messages
// and configs, library snippets after a prelude. What a block names that the test lacks (port 3000,
// reports/) is replaced, nothing else. k6 blocks: guides-load.test.ts; the package's: package.test.ts.
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { awaitGone, collectOutput, descendants, freePort, spawnChild, waitForOutput } from '../lib/processes.ts';
import { OPTIONS as CONFORM_OPTIONS } from '../conformance/options.ts';
import { readConfig } from '../conformance/config.ts';
import { parseCli } from '../conformance/cli.ts';
import { runConformance, type RunOptions } from '../conformance/run.ts';
import { createServer, ManualClock } from '../server/index.ts';
import { commandLines, guideBlock, hereDocument, root, shellWords } from './guide-blocks.ts';

const work = mkdtempSync(join(tmpdir(), 'adoption-guides-'));
/** The environment of a command as a reader's shell has it: none of the server's variables set. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['PORT', 'DB_FILE', 'MEMORY', 'HOST'].includes(k)));
let server: ChildProcess;
let origin: string;

/**
 * Only a start that hangs reaches it: `npm start` first builds dist/ when it is stale, which a busy
 * machine may take more than a minute over.
 */
const START_BOUND_MS = 180_000;

/** Starts a command line with sh, in a process group of its own, and waits for the server's URL; a start that fails is stopped. */
async function startServer(line: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; origin: string }> {
  const [command, ...args] = shellWords(line);
  const child = spawnChild(command!, args, { cwd: root, env, group: true, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const match = await waitForOutput(child, collectOutput(child), /listening on (http:\/\/\S+)\/v1/, START_BOUND_MS, line);
    return { child, origin: match[1]! };
  } catch (error) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
    throw error;
  }
}

/**
 * SIGTERM to the group (npm and the server it runs), as a terminal's Ctrl-C signals the foreground group;
 * true when it stopped cleanly: npm, which re-raises the signal it was sent once its child is done,
 * ends by SIGTERM or exit 0, never with an error code.
 */
async function stop(child: ChildProcess): Promise<boolean> {
  const exited = new Promise<boolean>((resolve) => child.once('exit', (code, signal) => resolve(code === 0 || (code === null && signal === 'SIGTERM'))));
  const tree = [child.pid!, ...descendants(child.pid!)];
  process.kill(-child.pid!, 'SIGTERM');
  const clean = await exited;
  // npm may be gone before the server it ran has finished stopping (and writing its reports).
  assert.equal(await awaitGone(tree, 20_000), [], 'every process of the command stopped');
  return clean;
}

/** Runs one shell command line (its words, no shell), with the guide's origin replaced by the test's. */
function runLine(line: string, env: NodeJS.ProcessEnv = cleanEnv): Promise<{ status: number; stdout: string; output: string }> {
  const [command, ...args] = shellWords(line.replaceAll('http://127.0.0.1:3000', origin));
  return new Promise((resolve) =>
    execFile(command!, args, { cwd: root, env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, output: `${stdout}${stderr}` }),
    ),
  );
}

/** Writes a snippet after a prelude as a temporary module, its relative imports resolved from `from`, and runs it with tsx. */
function runSnippet(name: string, code: string, from: string): string {
  const resolved = code.replace(/from '(\.{1,2}\/[^']+)'/g, (_, path: string) => `from '${pathToFileURL(join(from, path)).href}'`);
  const file = join(work, `${name}.mts`);
  writeFileSync(file, resolved);
  return execFileSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
}

/** A snippet's import lines, which a module needs first. */
const imports = (code: string) =>
  code
    .split('\n')
    .filter((l) => l.startsWith('import '))
    .join('\n');
const body = (code: string) =>
  code
    .split('\n')
    .filter((l) => !l.startsWith('import '))
    .join('\n');

const t = suite("the guides' blocks, against one started server");

t.before(async () => {
  // README.md, Quick start: `npm install` is the install that made this checkout, `npm test` the suite
  // this test is part of; `npm start` runs here, on the test's port and database file.
  const lines = commandLines(guideBlock('README.md', 'quick-start'));
  assert.equal(lines, ['npm install && npm start', 'npm test']);
  const port = await freePort();
  ({ child: server, origin } = await startServer(lines[0]!.split(' && ')[1]!, { ...cleanEnv, PORT: String(port), DB_FILE: join(work, 'db.json') }));
  assert.is(origin, `http://127.0.0.1:${port}`);
});

t.after(async () => {
  if (server) assert.ok(await stop(server), 'npm start stops cleanly on SIGTERM');
  rmSync(work, { recursive: true, force: true });
});

t('README.md: the curl lines list available pets and create one', async () => {
  const [list, create] = commandLines(guideBlock('README.md', 'readme-curl'));
  const listed = await runLine(list!);
  assert.is(listed.status, 0, listed.output);
  const pets = JSON.parse(listed.stdout) as Array<{ status: string }>;
  assert.ok(pets.length > 0 && pets.length <= 5, listed.output);
  assert.ok(pets.every((p) => p.status === 'available'));
  const created = await runLine(create!);
  assert.is(created.status, 0, created.output);
  assert.equal({ ...JSON.parse(created.stdout), id: 0 }, { id: 0, name: 'Mochi', categoryId: 2, status: 'available' });
});

t("server/README.md: each start line starts a server that answers (the first is the README's, running above)", async () => {
  const lines = commandLines(guideBlock('server/README.md', 'serve-lines'));
  assert.equal(lines.length, 4);
  assert.is(lines[0], 'npm start');
  const key = { authorization: 'Bearer test-free-key' };
  const ephemeral = async () => {
    const { child, origin: at } = await startServer(lines[1]!, cleanEnv);
    assert.is((await fetch(`${at}/v1/pets?limit=1`, { headers: key })).status, 200);
    assert.ok(await stop(child));
  };
  const faults = async () => {
    const env = { ...cleanEnv, PORT: String(await freePort()), DB_FILE: join(work, 'faults.json') };
    const { child, origin: at } = await startServer(lines[2]!, env);
    try {
      const injected = await fetch(`${at}/v1/pets`, { headers: { ...key, prefer: 'code=503' } });
      assert.is(injected.status, 503);
      assert.ok(injected.headers.get('x-fault-injected'));
      assert.is((await fetch(`${at}/__admin/reset`, { method: 'POST', headers: { authorization: 'Bearer harness-token' } })).status, 200);
    } finally {
      assert.ok(await stop(child));
    }
  };
  // The fourth, `npx adoption-kit serve --help`, is for a project the kit is installed in: package.test.ts runs it there.
  assert.is(lines[3], 'npx adoption-kit serve --help');
  await Promise.all([ephemeral(), faults()]);
});

t("server/README.md: getPet's deprecation headers are exactly the guide's", async () => {
  const res = await fetch(`${origin}/v1/pets/1`, { headers: { authorization: 'Bearer test-free-key' } });
  assert.is(res.status, 200);
  const lines = guideBlock('server/README.md', 'deprecation-headers').trim().split('\n');
  assert.equal(
    lines.map((l) => l.slice(0, l.indexOf(':'))),
    ['Deprecation', 'Sunset', 'Link'],
  );
  for (const line of lines) {
    const name = line.slice(0, line.indexOf(':'));
    assert.is(`${name}: ${res.headers.get(name)}`, line);
  }
});

t("conformance/README.md: the preflight's messages are the guide's, word for word, with exit 2", async () => {
  const text = guideBlock('conformance/README.md', 'preflight-messages');
  const runs = [...text.matchAll(/^\$ (.+)\n([\s\S]*?)(?=\n\n|\n?$)/gm)];
  assert.is(runs.length, 2);
  for (const [, command, expected] of runs) {
    const r = await runLine(command!);
    assert.is(r.status, 2, r.output);
    assert.ok(r.output.includes(expected!.replaceAll('http://127.0.0.1:3000', origin)), `${command}\nprinted:\n${r.output}`);
  }
});

t("conformance/README.md: the config files are read by conform's own loader, and their options accepted", async () => {
  const here = hereDocument(guideBlock('conformance/README.md', 'conform-config'), 'conform.yaml');
  writeFileSync(join(work, 'conform.yaml'), here);
  const fromFile = await readConfig(join(work, 'conform.yaml'), CONFORM_OPTIONS, { STAGING_KEY: 'staging-secret' });
  // --ca is read when the options are parsed: the guide's certs/staging-ca.pem is the reader's file.
  const at = fromFile.indexOf('--ca');
  assert.ok(at >= 0);
  const ca = join(work, 'staging-ca.pem');
  writeFileSync(ca, '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');
  fromFile[at + 1] = ca;
  const parsed = parseCli([...fromFile, '--seed', '1234'], {});
  if (typeof parsed === 'string') throw new Error(`the config file asked for ${parsed}`);
  assert.is(parsed.baseUrl, 'https://staging.example.test/v1');
  assert.is(parsed.apiKey, 'staging-secret');
  assert.equal(parsed.headers, { 'x-tenant': 'conformance' });
  assert.is(parsed.waitForTargetSeconds, 60);
  assert.is(parsed.seed, 1234);
  assert.ok(parsed.html?.endsWith(join('reports', 'conformance.html')));

  writeFileSync(join(work, 'choices.yaml'), guideBlock('conformance/README.md', 'choice-config'));
  const choices = parseCli(await readConfig(join(work, 'choices.yaml'), CONFORM_OPTIONS, { KEY: 'implementer-key' }), {});
  if (typeof choices === 'string') throw new Error(`the config file asked for ${choices}`);
  assert.is(choices.baseUrl, 'http://127.0.0.1:8080/v1');
  assert.equal(Object.keys(choices.choices ?? {}).sort(), ['ban-status', 'limit-out-of-range', 'paging', 'unknown-fields']);
});

t('conformance/README.md: the request counts it quotes are what runs against the reference server send', async () => {
  const guide = readFileSync(join(root, 'conformance', 'README.md'), 'utf8').replace(/\s+/g, ' ');
  const quoted =
    /counts them\): (\d+) requests without a rate-limit key, (\d+) with `--rate-limit-key test-free-key`, (\d+) with `--ban-check --ban-probes 25 --max-wait 700`.*? Add Dredd's (\d+) to each/.exec(
      guide,
    );
  assert.ok(quoted, 'conformance/README.md quotes the request counts');
  const [plain, limited, banned, dredd] = quoted.slice(1).map(Number);
  assert.match(guide, new RegExp(`without \`--rate-limit-key\` a full run sends ${plain} requests plus Dredd's ${dredd},`));
  const generated = Number(/\(about (\d+) against the reference server\)/.exec(guide)?.[1]);

  const run = async (options: Partial<RunOptions>) => {
    const clock = new ManualClock(Date.now());
    const reference = await createServer({ host: '127.0.0.1', port: 0, logger: false, storage: { type: 'memory' }, clock });
    await reference.start();
    try {
      const report = await runConformance({
        baseUrl: `${reference.info.uri}/v1`,
        apiKey: 'test-pro-key',
        clock,
        sleep: async (ms) => clock.advance(ms),
        strict: true,
        ...options,
      });
      assert.is(report.exitCode, 0, JSON.stringify(report.results.filter((r) => r.outcome === 'failed').map((r) => r.id)));
      return report;
    } finally {
      await reference.stop();
    }
  };
  // One run with Dredd and the generated phases tells the three apart; the others run the fixed checks only.
  const whole = await run({ seed: 1 });
  assert.is(whole.dredd?.transactions.length, dredd);
  assert.ok(Math.abs(whole.generated.sent - generated) <= 0.1 * generated, `about ${generated} generated requests: ${whole.generated.sent} sent`);
  assert.is(whole.requests - whole.generated.sent - dredd!, plain);
  assert.is((await run({ dredd: false, phases: [], rateLimitKey: 'test-free-key' })).requests, limited);
  assert.is((await run({ dredd: false, phases: [], rateLimitKey: 'test-free-key', banCheck: true, banProbes: 25, maxWaitSeconds: 700 })).requests, banned);
});

t('spec/rules/README.md: the timeline snippet draws a key and a capacity chart', () => {
  const prelude = [
    `const sentAtMs = Date.now();`,
    `const answer = await fetch(${JSON.stringify(`${origin}/v1/pets?limit=1`)}, { headers: { authorization: 'Bearer test-pro-key' } });`,
    // k6's res.headers: a plain object of the response's fields.
    `const res = { status: answer.status, headers: Object.fromEntries(answer.headers) };`,
    `const knee = { rows: [{ rate: 50, achieved: 49.8, p95: 5, p99: 9, ok: true }, { rate: 100, achieved: 71, p95: 420, p99: 900, ok: false }], held: 50, broke: 100 };`,
  ].join('\n');
  const snippet = guideBlock('spec/rules/README.md', 'timeline-snippet');
  const check = `\nif (!svg.startsWith('<svg') || !chart.startsWith('<svg') || points[0].status !== 200) throw new Error('no picture');\nconsole.log('drawn', points.length, points[0].remaining);\n`;
  // The snippet is written for a k6 script in load/: its imports are relative to that folder.
  const out = runSnippet('timeline', `${imports(snippet)}\n${prelude}\n${body(snippet)}${check}`, join(root, 'load'));
  assert.match(out, /drawn 1 \d+/);
});

t('proxy/README.md: the proxy in front of the running server forwards, judges, and writes its report on SIGTERM', async () => {
  const [start, proxyLine] = commandLines(guideBlock('proxy/README.md', 'proxy-reference'));
  assert.is(start, 'npm start', 'the server the test started above');
  const port = await freePort();
  const html = join(work, 'traffic.html');
  const line = proxyLine!.replace('http://127.0.0.1:3000', origin).replace('--port 8080', `--port ${port}`).replace('reports/traffic.html', html);
  const [command, ...args] = shellWords(line);
  const proxy = spawnChild(command!, args, { cwd: root, env: cleanEnv, group: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = collectOutput(proxy);
  await waitForOutput(proxy, output, new RegExp(`proxy: http://127\\.0\\.0\\.1:${port} -> ${origin}`), START_BOUND_MS, 'npm run proxy');
  const res = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=2`, { headers: { authorization: 'Bearer test-pro-key' } });
  assert.is(res.status, 200);
  assert.is(((await res.json()) as unknown[]).length, 2);
  assert.ok(await stop(proxy), output.text());
  assert.match(readFileSync(html, 'utf8'), /<svg/);
});

t('proxy/README.md: the library snippet judges traffic through the proxy, on a manual clock', () => {
  const snippet = guideBlock('proxy/README.md', 'proxy-library');
  assert.match(snippet, /\/\/ \.\.\. traffic \.\.\./);
  const prelude = [
    `import { createServer, ManualClock } from './server/index.ts';`,
    `const clock = new ManualClock(Date.UTC(2026, 0, 1));`,
    `const reference = await createServer({ port: 0, logger: false, storage: { type: 'memory' }, clock });`,
    `await reference.start();`,
    `const target = reference.info.uri;`,
  ].join('\n');
  const traffic = `for (let i = 0; i < 3; i++) await fetch(url + '/v1/pets?limit=1', { headers: { authorization: 'Bearer test-free-key' } });`;
  const check = `\nconst keys = proxy.judge.report();\nawait reference.stop();\nconst text = JSON.stringify(keys);\nconsole.log('judged', text.includes('test…(13 chars)') && !text.includes('test-free-key'));\n`;
  const code = `${imports(snippet)}\n${prelude}\n${body(snippet).replace('// ... traffic ...', traffic)}${check}`;
  assert.match(runSnippet('proxy', code, root), /judged true/);
});

t('conformance/testing/second-server/README.md: the start snippet serves and closes', () => {
  const snippet = guideBlock('conformance/testing/second-server/README.md', 'second-server-start');
  const out = runSnippet('second-server', `${snippet}\nconsole.log('status', res.status);\n`, join(root, 'conformance', 'testing', 'second-server'));
  assert.match(out, /status 200/);
});

t.run();
