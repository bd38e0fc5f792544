// The package's full install, as a consumer gets it: `npm pack` installed into a fresh project with
// its optional dependencies, Dredd and Prism, which the conformance guide's library snippet then runs;
// the install size the README quotes is checked. The lean install is package.test.ts's.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { guideBlock } from './guide-blocks.ts';
import { assertQuoted, consumer, pack, telemetryTrap, type Install, type Trap } from './testing/packed.ts';

const work = mkdtempSync(join(tmpdir(), 'adoption-package-full-'));
const t = suite('the packed package, installed with its optional dependencies');
let installed: Install;
let trap: Trap;

t.before(async () => {
  trap = await telemetryTrap();
  installed = await consumer(work, 'full', pack(work), false, trap);
});
t.after(() => {
  trap.close();
  rmSync(work, { recursive: true, force: true });
});

t('a full install brings Dredd and Prism', () => {
  for (const dependency of ['dredd', '@stoplight/prism-cli'])
    assert.ok(statSync(join(installed.dir, 'node_modules', dependency, 'package.json')).isFile(), dependency);
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
  writeFileSync(join(installed.dir, 'conformance.mjs'), `${prelude}\n${guideBlock('conformance/README.md', 'conformance-library')}${check}`);
  const out = execFileSync(process.execPath, ['conformance.mjs'], { cwd: installed.dir, encoding: 'utf8', timeout: 120_000 });
  assert.match(out, /conformance 0 \d+/);
});

t("the README's full install size is what the install measures", () => {
  assertQuoted(guideBlock('README.md', 'as-a-dependency'), 'full', [], installed);
});

t.run();
