// The guides stay findable, consistent and true: links and anchors resolve, every part has its own
// Decisions table and no decision is written twice, the top-level README stays short, every fenced
// block is run or says why not, and its command lines of the kit's commands pass that command's parser.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse as parseYaml } from 'yaml';
import { parseOptions, type OptionSpec } from '../lib/cli-options.ts';
import { parseBenchOptions } from '../bench/options.ts';
import { OPTIONS as CONFORM_OPTIONS } from '../conformance/options.ts';
import { MOCK_OPTIONS } from '../conformance/mock.ts';
import { MERGE_OPTIONS } from '../load/cli/merge.ts';
import { PROXY_OPTIONS } from '../proxy/options.ts';
import { REPORT_OPTIONS } from '../server/client-report/cli.ts';
import { optionNames } from '../server/options.ts';
import { SERVE_OPTIONS } from '../server/serve-options.ts';
import { blocksOf, commandLines, guideFiles, shellWords, type Block } from './guide-blocks.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const GUIDES = [
  'spec/README.md',
  'spec/rules/README.md',
  'judge/README.md',
  'server/README.md',
  'conformance/README.md',
  'proxy/README.md',
  'load/README.md',
  'bench/README.md',
];

function markdownFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' });
  return tracked.split('\n').filter((f) => f && !f.startsWith('node_modules/') && existsSync(join(root, f)));
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(text: string): Set<string> {
  const found = new Set<string>();
  for (const m of text.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    found.add(
      m[1]!
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return found;
}

/** The first cells of a guide's Decisions table. */
function decisions(text: string): string[] {
  const at = text.search(/^## Decisions\s*$/m);
  if (at < 0) return [];
  const rows = text
    .slice(at)
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .slice(2);
  return rows.map((r) => r.split('|')[1]!.trim());
}

for (const file of markdownFiles()) {
  test(`${file}: every relative link and anchor resolves`, () => {
    const text = readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1]!;
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const resolved = path ? join(dirname(join(root, file)), path) : join(root, file);
      assert.ok(existsSync(resolved), `${file} links to ${target}, which does not exist`);
      if (anchor && resolved.endsWith('.md')) {
        assert.ok(anchors(readFileSync(resolved, 'utf8')).has(anchor), `${file} links to #${anchor}, which ${relative(root, resolved)} has no heading for`);
      }
    }
  });
}

test('every part has its guide, and each guide its own Decisions table', () => {
  for (const guide of GUIDES) {
    assert.ok(existsSync(join(root, guide)), guide);
    assert.ok(decisions(readFileSync(join(root, guide), 'utf8')).length > 0, `${guide} has no Decisions table`);
  }
});

test('no decision is written twice, within a guide or across guides', () => {
  const seen = new Map<string, string>();
  for (const guide of [...GUIDES, 'README.md']) {
    if (!existsSync(join(root, guide))) continue;
    for (const title of decisions(readFileSync(join(root, guide), 'utf8'))) {
      const key = title.toLowerCase();
      assert.not.ok(seen.has(key), `"${title}" is decided in ${seen.get(key)} and again in ${guide}`);
      seen.set(key, guide);
    }
  }
});

test('the server guide names every option createServer takes', () => {
  const guide = readFileSync(join(root, 'server/README.md'), 'utf8');
  assert.equal(
    optionNames().filter((name) => !guide.includes(`\`${name}\``)),
    [],
  );
});

test('the top-level README is short: what, for whom, the two lines, where to go next', () => {
  const text = readFileSync(join(root, 'README.md'), 'utf8');
  assert.ok(text.split('\n').length <= 80, `README.md has ${text.split('\n').length} lines`);
  assert.match(text, /```sh\nnpm install && npm start\nnpm test\n```/);
  assert.not.match(text, /^## Decisions/m, 'decisions belong in the guide of their part');
});

// --- every fenced block is run or says why not -----------------------------------------------------
// Above each fenced block (NOT_GUIDES aside): `<!-- run: <id> -->`, read by the test that calls
// guideBlock('<file>', '<id>'), or `<!-- illustrative: <reason> -->`, saying why and which test covers
// the ground. A block inside a generated region (<!-- name:start --> ... end) needs neither.

/** The text of every test file: a block is run by the one that calls guideBlock('<file>', ...) and names its id. */
function testFiles(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name.startsWith('.') || entry.name === 'dist') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.test.ts')) found.set(relative(root, path), readFileSync(path, 'utf8'));
    }
  };
  visit(root);
  return found;
}

const runners = (file: string, id: string) =>
  [...testFiles()].filter(([, text]) => text.includes(`guideBlock('${file}'`) && text.includes(`'${id}'`)).map(([name]) => name);

const allBlocks: Block[] = guideFiles().flatMap((file) => blocksOf(file, readFileSync(join(root, file), 'utf8')));

test('every fenced block of a guide is marked run (by a test that reads it) or illustrative (with a reason)', () => {
  const problems: string[] = [];
  const ids = new Map<string, number>();
  for (const b of allBlocks) {
    if (b.generated) continue;
    const where = `${b.file}:${b.line}`;
    if (b.marker === null) problems.push(`${where}: no <!-- run: id --> or <!-- illustrative: reason --> right above the block`);
    else if (b.marker.kind === 'illustrative' && b.marker.reason.length < 10) problems.push(`${where}: illustrative without a reason`);
    else if (b.marker.kind === 'run') {
      const key = `${b.file}#${b.marker.id}`;
      ids.set(key, (ids.get(key) ?? 0) + 1);
      if (runners(b.file, b.marker.id).length === 0)
        problems.push(`${where}: marked run: ${b.marker.id}, but no test calls guideBlock('${b.file}', '${b.marker.id}')`);
    }
  }
  for (const [key, n] of ids) if (n > 1) problems.push(`${key} marks ${n} blocks`);
  assert.equal(problems, []);
});

test('every block a test reads by a literal id is still in its guide', () => {
  const marked = new Set(allBlocks.flatMap((b) => (b.marker?.kind === 'run' ? [`${b.file}#${b.marker.id}`] : [])));
  const read = [...testFiles().values()].flatMap((text) => [...text.matchAll(/guideBlock\('([\w./-]+\.md)', '([\w-]+)'\)/g)].map((m) => `${m[1]}#${m[2]}`));
  assert.ok(read.length > 0);
  assert.equal(
    read.filter((key) => !marked.has(key)),
    [],
  );
});

/** The kit's commands as a guide writes them, and the option table each is parsed with. */
function kitCommand(words: string[]): { name: string; argv: string[] } | null {
  const after = (n: number) => (words[n] === '--' ? words.slice(n + 1) : words.slice(n));
  if (words[0] === '$') words = words.slice(1);
  if (words[0] === 'npx' && words[1] === 'adoption-kit') return { name: words[2]!, argv: words.slice(3) };
  if (words[0] === 'adoption-kit') return { name: words[1]!, argv: words.slice(2) };
  if (words[0] === 'npm' && words[1] === 'start') return { name: 'serve', argv: after(2) };
  if (words[0] === 'npm' && words[1] === 'run') {
    const script = { dev: 'serve', conform: 'conform', mock: 'mock', proxy: 'proxy', 'load:merge': 'load-merge', bench: 'bench' }[words[2]!];
    return script ? { name: script, argv: after(3) } : null;
  }
  return null;
}

/**
 * A table as a guide line is judged by: every flag known and every value of its type and range, but
 * nothing required (a guide's line may take the rest from a config file or the environment) and the
 * CA file not read (it is the reader's own).
 */
function asWritten(specs: readonly OptionSpec[]): OptionSpec[] {
  return specs.map(({ required: _required, ...spec }) => (spec.flag === 'ca' ? { ...spec, convert: undefined, check: undefined } : spec));
}

const PARSERS: Record<string, (argv: string[]) => unknown> = {
  serve: (argv) => parseOptions(SERVE_OPTIONS, argv, {}),
  conform: (argv) => parseOptions(asWritten(CONFORM_OPTIONS), argv, {}),
  proxy: (argv) => parseOptions(asWritten(PROXY_OPTIONS), argv, {}),
  mock: (argv) => parseOptions(MOCK_OPTIONS, argv, {}),
  'client-report': (argv) => parseOptions(REPORT_OPTIONS, argv, {}),
  'load-merge': (argv) => parseOptions(MERGE_OPTIONS, argv, {}, { positionals: true }),
  bench: (argv) => parseBenchOptions(argv),
};

/** Shell lines of a block: a shell block's commands, a transcript's `$ ` lines, a CI workflow's `run:` steps. */
function shellLinesOf(b: Block): string[] {
  if (['sh', 'bash', 'shell'].includes(b.info)) return commandLines(b.body);
  if (b.info === 'yaml' && /^\s*- run:/m.test(b.body)) {
    const steps = parseYaml(b.body) as Array<{ run?: string }>;
    return steps.flatMap((step) => (step.run ? commandLines(step.run.replace(/\n/g, ' ')) : []));
  }
  return b.body.split('\n').filter((l) => l.startsWith('$ '));
}

test("every command line of the kit's own commands in a guide, run or illustrative, is accepted by that command's parser", () => {
  const refused: string[] = [];
  let checked = 0;
  for (const b of allBlocks) {
    for (const line of shellLinesOf(b)) {
      for (const part of line.split(/ && | ; /)) {
        const words = shellWords(part);
        if (words.includes('|')) continue; // the README's `serve | conform | ...` lists commands; package.test.ts runs each
        const command = kitCommand(words);
        if (!command) continue;
        const parse = PARSERS[command.name];
        if (!parse) {
          refused.push(`${b.file}:${b.line}: ${part}: no command ${command.name}`);
          continue;
        }
        try {
          parse(command.argv);
          checked++;
        } catch (error) {
          refused.push(`${b.file}:${b.line}: ${part}: ${(error as Error).message}`);
        }
      }
    }
  }
  assert.equal(refused, []);
  assert.ok(checked >= 20, `only ${checked} command lines found`);
});

test('every YAML and JSON block of a guide parses', () => {
  for (const b of allBlocks.filter((b) => ['yaml', 'yml', 'json'].includes(b.info))) {
    try {
      if (b.info === 'json') JSON.parse(b.body);
      else parseYaml(b.body);
    } catch (error) {
      assert.unreachable(`${b.file}:${b.line}: ${(error as Error).message}`);
    }
  }
});

test.run();
