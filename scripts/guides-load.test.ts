// The k6 command lines of load/README.md, run as written under the k6 shim (load/testing/) against a
// fake target for what each points at (a correct limiter, a knee at 2,400/s, a pets API): each must end
// PASS, and a mistyped variable fails at load time. `$KEY` is given a key. Real k6 runs the scripts in
// load/k6.test.ts.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kneeTarget, limitedTarget, petsTarget } from '../load/testing/fake-targets.ts';
import { captureConsole, type Handler } from '../load/testing/k6-shim.ts';
import { runScript, type RunResult } from '../load/testing/k6-run.ts';
import { commandLines, guideBlock, root, shellWords } from './guide-blocks.ts';

const START = Date.UTC(2026, 10, 23, 12, 0, 17, 300);
const PLAN_LIMITS: Record<string, number> = { free: 60, pro: 300 };

interface K6Line {
  script: string;
  env: Record<string, string>;
  executionSegment?: string;
  executionSegmentSequence?: string;
}

/** `k6 run [flags] <script>`, the flags the guide uses; any other flag is a line this test cannot run as written. */
function parseK6(line: string): K6Line {
  const words = shellWords(line).map((w) => w.replace(/\$[A-Z_]+/g, 'guide-reader-key-0123'));
  assert.equal(words.slice(0, 2), ['k6', 'run'], line);
  const parsed: K6Line = { script: words.at(-1)!, env: {} };
  for (let i = 2; i < words.length - 1; i++) {
    const flag = words[i]!;
    if (flag === '--no-usage-report' || flag === '--quiet') continue;
    const value = words[++i]!;
    if (flag === '-e') parsed.env[value.slice(0, value.indexOf('='))] = value.slice(value.indexOf('=') + 1);
    else if (flag === '--execution-segment') parsed.executionSegment = value;
    else if (flag === '--execution-segment-sequence') parsed.executionSegmentSequence = value;
    else assert.unreachable(`${line}: the shim runs no ${flag}`);
  }
  return parsed;
}

function targetFor(k6: K6Line): Handler {
  if (k6.script.endsWith('smoke.js')) return petsTarget();
  if (k6.script.endsWith('capacity.js')) return kneeTarget(2_400);
  const limit = PLAN_LIMITS[k6.env.PLAN ?? 'free'];
  assert.ok(limit, `a limiter for plan ${k6.env.PLAN}`);
  return limitedTarget({ limit, banAfter: 20, banSeconds: 600 });
}

async function run(line: string): Promise<RunResult> {
  const k6 = parseK6(line);
  const out = captureConsole();
  try {
    return await runScript(join(root, k6.script), {
      env: k6.env,
      handler: targetFor(k6),
      startMs: START,
      maxIterations: 400_000,
      ...(k6.executionSegment ? { executionSegment: k6.executionSegment, executionSegmentSequence: k6.executionSegmentSequence! } : {}),
    });
  } finally {
    out.restore();
  }
}

function assertPass(line: string, r: RunResult) {
  assert.is(r.setupError, null, line);
  assert.is(r.aborted, null, `${line}: ${r.aborted}`);
  assert.equal(
    r.failed.map((t) => t.key),
    [],
    line,
  );
  assert.match(r.summary.stdout ?? '', /result: PASS \(k6 exits 0\)/, line);
}

for (const id of ['k6-reference', 'k6-prism', 'k6-remote']) {
  test(`load/README.md ${id}: every line passes under the shim against a correct target`, async () => {
    const lines = commandLines(guideBlock('load/README.md', id));
    assert.ok(lines.length > 0);
    for (const line of lines) assertPass(line, await run(line));
  });
}

test('load/README.md k6-generators: two generators, each a segment, and load:merge sums their summaries into PASS', async () => {
  const lines = commandLines(guideBlock('load/README.md', 'k6-generators'));
  const [a, b, merge] = lines;
  assert.is(lines.length, 3);
  // `npm run` runs in the repository's root: "both summaries in one folder" is that folder here.
  const written: string[] = [];
  try {
    for (const line of [a!, b!]) {
      const r = await run(line);
      assertPass(line, r);
      for (const [file, text] of Object.entries(r.summary)) {
        if (file === 'stdout') continue;
        writeFileSync(join(root, file), text);
        written.push(file);
      }
    }
    assert.equal(written.filter((f) => f.endsWith('.json')).sort(), ['capacity-summary-0-1_2.json', 'capacity-summary-1_2-1.json']);
    const [command, ...args] = shellWords(merge!);
    const merged = execFileSync(command!, args, { cwd: root, encoding: 'utf8' });
    assert.match(merged, /merged 2 capacity\.js summaries[\s\S]*result: PASS/);
  } finally {
    for (const file of written) rmSync(join(root, file), { force: true });
    rmSync(join(root, 'capacity-summary-merged.svg'), { force: true });
  }
});

test.run();
