// `npm run generate`: writes every artifact derived from another source of truth. One registry of
// { file, block?, generate() }: a whole file, or the block between `<!-- block:start -->` and
// `<!-- block:end -->` of a Markdown file. Add an entry to derive something new. `--check` writes
// nothing and exits 1 when an artifact is stale (scripts/generate.test.ts runs the same comparison).
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checksTable, openPointsTable, optionsTable } from '../conformance/readme-tables.ts';
import { flawsTable } from '../conformance/testing/flaws/readme-table.ts';
import { readingsTable } from '../judge/readme-tables.ts';
import { markdownTable, replaceGenerated } from '../lib/cli-options.ts';
import { PROXY_OPTIONS } from '../proxy/options.ts';
import { BENCH_OPTIONS } from '../bench/options.ts';
import { LIB_SOURCES, libDeclaration, rulesDeclaration } from '../load/declarations.ts';
import { BUNDLE, k6Bundle } from '../load/bundle.ts';
import { rulesTable } from '../load/readme-tables.ts';
import { capacityChart, rateLimitTimeline } from '../load/testing/pictures.ts';
import { contractModule } from '../spec/contract-facts.ts';
import { contractTypesModule } from '../spec/schema-types.ts';
import { serverGuideBlocks } from '../server/readme-tables.ts';
import { PICTURES } from '../spec/rules/testing/pictures.ts';
import { misbehavingClientTimeline } from '../proxy/testing/pictures.ts';
import { badlyBehavedClientSvg } from '../server/client-report/testing/pictures.ts';
import { timelineSvg } from '../spec/rules/timeline-svg.js';

export interface Generated {
  /** Relative to the repository root. */
  file: string;
  /** The Markdown block to replace; the whole file when absent. */
  block?: string;
  generate(): string | Promise<string>;
}

export const GENERATED: readonly Generated[] = [
  { file: 'spec/rules/contract.js', generate: () => contractModule() },
  { file: 'spec/contract-types.ts', generate: () => contractTypesModule() },
  { file: 'conformance/README.md', block: 'checks', generate: checksTable },
  { file: 'conformance/README.md', block: 'flaws', generate: flawsTable },
  { file: 'conformance/README.md', block: 'options', generate: optionsTable },
  { file: 'conformance/README.md', block: 'open-points', generate: openPointsTable },
  { file: 'load/README.md', block: 'rate-limit-rules', generate: rulesTable },
  { file: 'judge/README.md', block: 'readings', generate: readingsTable },
  { file: 'server/README.md', block: 'serve-options', generate: () => serverGuideBlocks()['serve-options']! },
  { file: 'server/README.md', block: 'error-codes', generate: () => serverGuideBlocks()['error-codes']! },
  { file: 'server/client-report/timeline-badly-behaved-client.svg', generate: async () => `${await badlyBehavedClientSvg()}\n` },
  { file: 'proxy/README.md', block: 'options', generate: () => markdownTable(PROXY_OPTIONS) },
  { file: 'bench/README.md', block: 'options', generate: () => markdownTable(BENCH_OPTIONS) },
  { file: 'proxy/timeline-misbehaving-client.svg', generate: async () => `${timelineSvg(await misbehavingClientTimeline())}\n` },
  { file: 'spec/rules/timeline-svg.d.ts', generate: () => rulesDeclaration('timeline-svg.js') },
  { file: 'spec/rules/capacity-svg.d.ts', generate: () => rulesDeclaration('capacity-svg.js') },
  { file: 'load/rate-limit-timeline.svg', generate: async () => `${await rateLimitTimeline()}\n` },
  { file: 'load/capacity-chart.svg', generate: async () => `${await capacityChart()}\n` },
  ...PICTURES.map((picture) => ({ file: picture.file, generate: () => `${picture.svg()}\n` })),
  { file: BUNDLE, generate: k6Bundle },
  ...LIB_SOURCES.map((source) => ({ file: `load/lib/${source.replace(/\.js$/, '.d.ts')}`, generate: () => libDeclaration(source) })),
];

const root = fileURLToPath(new URL('..', import.meta.url));

export interface Rendered {
  path: string;
  current: string;
  fresh: string;
}

/** Every file the registry touches, as it is and as the generators would write it. */
export async function render(registry: readonly Generated[] = GENERATED): Promise<Rendered[]> {
  const files = new Map<string, Rendered>();
  for (const entry of registry) {
    const path = join(root, entry.file);
    let file = files.get(path);
    if (!file) {
      const current = await readFile(path, 'utf8').catch(() => '');
      file = { path, current, fresh: current };
      files.set(path, file);
    }
    const content = await entry.generate();
    file.fresh = entry.block ? replaceGenerated(file.fresh, entry.block, content) : content;
  }
  return [...files.values()];
}

async function main(check: boolean): Promise<number> {
  const stale = (await render()).filter((f) => f.current !== f.fresh);
  for (const file of stale) {
    const name = relative(root, file.path);
    if (check) process.stdout.write(`stale: ${name}\n`);
    else {
      await writeFile(file.path, file.fresh);
      process.stdout.write(`wrote ${name}\n`);
    }
  }
  if (stale.length === 0) process.stdout.write('every generated artifact is current\n');
  return check && stale.length > 0 ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.includes('--check'));
}
