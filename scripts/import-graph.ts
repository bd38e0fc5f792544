// The repository's relative imports, type imports included, as edges between files, and the part
// (top folder) each file belongs to. scripts/fan.test.ts holds the parts to the fan; `npx tsx
// scripts/import-graph.ts` prints the edges between parts.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEntryPoint } from '../lib/entry.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** spec/rules is a part of its own (the rules the k6 scripts share); every other part is a top folder. */
export function partOf(file: string): string {
  return file.startsWith('spec/rules/') ? 'spec/rules' : file.split('/')[0]!;
}

/** Tests and their support (`*.test.ts`, anything under a `testing/` folder) are not shipped code. */
export function isTestCode(file: string): boolean {
  return /\.test\.ts$/.test(file) || /(^|\/)testing\//.test(file);
}

const IMPORT = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** The relative imports of one source text written at `file` (a path from the root). */
export function importsOf(file: string, text: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[3] ?? m[4]!;
    const line = text.slice(text.lastIndexOf('\n', m.index) + 1, m.index + m[0].length);
    // `import('./x.js')` in a JSDoc type or after `typeof` loads nothing.
    const typeOnly = m[2] !== undefined || (m[4] !== undefined && /^\s*(\*|\/\/|\/\*\*)|typeof\s+import\($|:\s*import\($/.test(line));
    edges.push({ from: file, to: normalize(join(dirname(file), spec)), typeOnly });
  }
  return edges;
}

/** The code files git knows of (tracked or new, not ignored), less hidden folders (a build's scratch copy of the checkout). */
export function codeFiles(root = ROOT): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.js', '*.mjs', '*.cjs'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f && !f.startsWith('.') && !f.startsWith('node_modules/') && !f.endsWith('.d.ts') && existsSync(join(root, f)));
}

export function importGraph(root = ROOT): ImportEdge[] {
  return codeFiles(root).flatMap((file) => importsOf(file, readFileSync(join(root, file), 'utf8')));
}

/** The groups of files that import each other round (Tarjan's strongly connected components, size > 1). */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const e of edges) next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) found.push(group.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found;
}

if (isEntryPoint(import.meta.url)) {
  const counts = new Map<string, number>();
  for (const e of importGraph()) {
    if (isTestCode(e.from) || partOf(e.from) === partOf(e.to)) continue;
    const key = `${partOf(e.from)} -> ${partOf(e.to)}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  for (const [key, n] of [...counts].sort()) console.log(`${key}: ${n}`);
}
