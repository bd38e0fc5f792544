// The declaration files beside load/lib/*.js, through which the TypeScript tests import the k6
// library, written by tsc from the JSDoc types. scripts/generate.ts registers one per library file,
// so a stale declaration fails the suite like any other generated file.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The library files that get a declaration: every load/lib/*.js. */
export const LIB_SOURCES: readonly string[] = readdirSync(join(root, 'load/lib'))
  .filter((f) => f.endsWith('.js'))
  .sort();

let emitted: Map<string, string> | undefined;

/**
 * Every declaration tsc writes for load/lib, by file name (`phases.d.ts`); one tsc run per process.
 * tsc runs on a copy of the JavaScript alone: beside the committed declarations it would read those
 * (a `.d.ts` wins over its `.js`), and a stale one could never be regenerated.
 */
function emitDeclarations(): Map<string, string> {
  if (emitted) return emitted;
  const work = mkdtempSync(join(tmpdir(), 'load-dts-'));
  try {
    const copy = (dir: string, keep: (file: string) => boolean) => {
      mkdirSync(join(work, dir), { recursive: true });
      for (const f of readdirSync(join(root, dir))) if (keep(f)) copyFileSync(join(root, dir, f), join(work, dir, f));
    };
    copy('load', (f) => f.endsWith('.js') || f === 'tsconfig.json' || f === 'k6-console.d.ts');
    copy('load/lib', (f) => f.endsWith('.js') || f.endsWith('.d.cts'));
    copy('spec/rules', (f) => f.endsWith('.js'));
    copy('judge/rules', (f) => f.endsWith('.js'));
    symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const out = join(work, 'out');
    const run = spawnSync(process.execPath, [tsc, '-p', 'load/tsconfig.json', '--noEmit', 'false', '--declaration', '--emitDeclarationOnly', '--outDir', out], {
      cwd: work,
      encoding: 'utf8',
    });
    if (run.status !== 0) throw new Error(`tsc could not write the load/lib declarations:\n${run.stdout}${run.stderr}`);
    // load/tsconfig.json also reads ../spec/rules and ../judge/rules, so the output mirrors the repository from its root.
    const dir = join(out, 'load', 'lib');
    emitted = new Map(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
    const rules = join(out, 'spec', 'rules');
    for (const f of readdirSync(rules)) emitted.set(`../../spec/rules/${f}`, readFileSync(join(rules, f), 'utf8'));
    return emitted;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The declaration of one library file (`phases.js`), as tsc writes it now. */
export function libDeclaration(source: string): string {
  const dts = source.replace(/\.js$/, '.d.ts');
  const text = emitDeclarations().get(dts);
  if (text === undefined) throw new Error(`tsc wrote no ${dts}`);
  return text;
}

/**
 * The declaration of one spec/rules file (`timeline-svg.js`, `capacity-svg.js`), as tsc writes it
 * from the JSDoc: for a module whose callers outside this repository want a .d.ts beside it.
 */
export function rulesDeclaration(source: string): string {
  const text = emitDeclarations().get(`../../spec/rules/${source.replace(/\.js$/, '.d.ts')}`);
  if (text === undefined) throw new Error(`tsc wrote no declaration for spec/rules/${source}`);
  return text;
}
