// The fenced blocks of the guides, each with the marker that says what becomes of it (the convention:
// guides.test.ts): `<!-- run: <id> -->` (a test executes it, and finds it by that id with guideBlock())
// or `<!-- illustrative: <reason> -->` (not run, for the reason given).
// Also the shell-line reading the tests share: a block's commands, continuations joined, comments off.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** Markdown files that are not guides: their blocks are records, never edited, not instructions. */
export const NOT_GUIDES: Record<string, string> = {
  'bench/RESULTS.md': 'the dated log of benchmark runs, each block the printed report of the run its section names',
};

export type Marker = { kind: 'run'; id: string } | { kind: 'illustrative'; reason: string } | null;

export interface Block {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  info: string;
  body: string;
  marker: Marker;
  /** Inside a `<!-- name:start -->` ... `<!-- name:end -->` region that scripts/generate.ts writes. */
  generated: string | null;
}

export function guideFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' });
  return tracked.split('\n').filter((f) => f && !f.startsWith('node_modules/') && !(f in NOT_GUIDES) && existsSync(join(root, f)));
}

function markerOf(line: string | undefined): Marker {
  const m = /^<!--\s*(run|illustrative):\s*(.*?)\s*-->\s*$/.exec(line ?? '');
  if (!m) return null;
  return m[1] === 'run' ? { kind: 'run', id: m[2]! } : { kind: 'illustrative', reason: m[2]! };
}

/** Every fenced block of a Markdown text; the marker is the line right above the opening fence. */
export function blocksOf(file: string, text: string): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  let generated: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const region = /^<!--\s*([\w-]+):(start|end)\s*-->/.exec(lines[i]!);
    if (region) generated = region[2] === 'start' ? region[1]! : null;
    const open = /^(\s*)(`{3,}|~{3,})(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    let end = i + 1;
    while (end < lines.length && !lines[end]!.trimStart().startsWith(fence)) end++;
    const indent = open[1]!.length;
    blocks.push({
      file,
      line: i + 1,
      info: open[3]!.trim(),
      body: lines
        .slice(i + 1, end)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n'),
      marker: markerOf(lines[i - 1]),
      generated,
    });
    i = end;
  }
  return blocks;
}

/** The text of the block a guide marks `<!-- run: <id> -->`; a test runs exactly this. */
export function guideBlock(file: string, id: string): string {
  const found = blocksOf(file, readFileSync(join(root, file), 'utf8')).filter((b) => b.marker?.kind === 'run' && b.marker.id === id);
  if (found.length !== 1) throw new Error(`${file} has ${found.length} blocks marked <!-- run: ${id} -->, not one`);
  return found[0]!.body;
}

/** Words of one shell command line, as sh would split them (quotes, `\` escapes); `$VAR` is kept as written. */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'" || c === '"') {
      const close = line.indexOf(c, i + 1);
      if (close < 0) throw new Error(`unbalanced ${c} in: ${line}`);
      word = (word ?? '') + line.slice(i + 1, close);
      i = close;
    } else if (c === '\\' && i + 1 < line.length) {
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else word = (word ?? '') + c;
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * The command lines of a shell block: continuation lines joined, `#` comments and blank lines dropped,
 * a here-document left out (`cat > file <<'X'` ... `X` gives one line, the `cat`), a trailing `&` dropped.
 */
export function commandLines(body: string): string[] {
  const out: string[] = [];
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    while (line.endsWith('\\') && i + 1 < lines.length) line = `${line.slice(0, -1).trimEnd()} ${lines[++i]!.trim()}`;
    const here = /<<-?'?(\w+)'?/.exec(line);
    if (here) while (i + 1 < lines.length && lines[++i]!.trim() !== here[1]) continue;
    const code = line.replace(/(^|\s)#.*$/, '').trim();
    if (code) out.push(code.replace(/\s*&$/, ''));
  }
  return out;
}

/** A here-document's text by its file name: `cat > conform.yaml <<'YAML'` ... `YAML`. */
export function hereDocument(body: string, file: string): string {
  const m = new RegExp(`cat > ${file.replace(/\./g, '\\.')} <<'(\\w+)'\\n([\\s\\S]*?)\\n\\1\\n`).exec(`${body}\n`);
  if (!m) throw new Error(`no here-document writes ${file}`);
  return `${m[2]}\n`;
}
