// `npm run build`: the package's JavaScript and type declarations in dist/ (tsc), and beside them the
// files the code reads at run time by a path relative to itself: the contract, the fixtures, the API
// reference page, the Lua scripts of the Redis limiter, Dredd's worker and hooks, and the k6 scripts' library. Plain Node, so it
// runs wherever `npm install` runs.
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
/** @type {Array<[string, RegExp]>} */
const ASSETS = [
  ['spec', /\.yaml$/],
  ['fixtures', /\.json$/],
  ['server/docs', /\.(html|js)$/],
  ['server/rate-limit', /\.lua$/],
  ['conformance/dredd', /\.cjs$/],
  // The k6 scripts' library, read by `adoption-kit load-merge` (its .d.ts beside it hides the .js from tsc).
  ['load/lib', /\.js$/],
];

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const [folder, pattern] of ASSETS) {
  mkdirSync(join(dist, folder), { recursive: true });
  for (const file of readdirSync(join(root, folder)).filter((f) => pattern.test(f))) {
    cpSync(join(root, folder, file), join(dist, folder, file));
  }
}
// The command's entry is run by name (`npx adoption-kit` in the repository, or a bin link), so it must be
// executable as npm would make it in an installed package.
chmodSync(join(dist, 'bin', 'adoption-kit.js'), 0o755);
process.stdout.write(`built ${dirname(join(dist, 'x'))}\n`);
