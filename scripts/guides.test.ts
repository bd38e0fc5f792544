// The guides stay findable and consistent: every relative link (and heading anchor) resolves, every
// part has its guide with its own Decisions table, no decision is written twice, and the top-level
// README stays short enough to read in five minutes.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { optionNames } from '../server/options.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const GUIDES = ['spec/README.md', 'spec/rules/README.md', 'server/README.md', 'conformance/README.md', 'proxy/README.md', 'load/README.md', 'bench/README.md'];

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

test.run();
