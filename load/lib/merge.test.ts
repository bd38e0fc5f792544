// The merge of k6 summaries written by generators that ran one capacity.js or smoke.js run split
// with execution segments: the summaries come from the script itself, run under the k6 shim.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kneeTarget, petsTarget } from '../testing/fake-targets.ts';
import { captureConsole } from '../testing/k6-shim.ts';
import { runScript } from '../testing/k6-run.ts';
import { mergeSummaries, sumStepStats, type Part } from './merge.js';

const here = dirname(fileURLToPath(import.meta.url));
const START = Date.UTC(2026, 10, 22, 10, 0, 17, 300);
const SMALL = { START_RATE: '10', MAX_RATE: '160', HOLD: '5s', P95_MS: '100', P99_MS: '200' };

async function generator(
  script: string,
  env: Record<string, string>,
  handler: Parameters<typeof runScript>[1]['handler'],
  segment: string | null,
  startMs = START,
): Promise<Part> {
  const out = captureConsole();
  try {
    const r = await runScript(join(here, '..', script), {
      env,
      handler,
      startMs,
      ...(segment ? { executionSegment: segment, executionSegmentSequence: '0,1/2,1' } : {}),
    });
    const [name, text] = Object.entries(r.summary).find(([k]) => k.endsWith('.json'))!;
    return { name, summary: JSON.parse(text) };
  } finally {
    out.restore();
  }
}

test('two halves of a capacity run merge into the knee one generator finds alone', async () => {
  // A server that slows past 65 requests/s in all: the shim runs one generator at a time, so each
  // half meets a server that slows past its half of that.
  const a = await generator('capacity.js', SMALL, kneeTarget(32.5), '0:1/2');
  const b = await generator('capacity.js', SMALL, kneeTarget(32.5), '1/2:1');
  const merged = mergeSummaries([a, b]);
  const alone = await generator('capacity.js', SMALL, kneeTarget(65), null);
  const extra = alone.summary.extra as { highestSustained: { rate: number }; firstBroken: { rate: number } };
  assert.equal(
    [(merged.merged.highestSustained as { rate: number }).rate, (merged.merged.firstBroken as { rate: number }).rate],
    [extra.highestSustained.rate, extra.firstBroken.rate],
  );
  assert.match(merged.lines.join('\n'), /merged 2 capacity\.js summaries: capacity-summary-0-1_2\.json \(0:1\/2\), capacity-summary-1_2-1\.json \(1\/2:1\)/);
  assert.match(merged.lines.join('\n'), /held 10\/s: achieved 10\.0\/s/);
  assert.is(merged.result, 'PASS');
  assert.is(merged.exitCode, 0);
});

test("the merged picture draws the summed steps: each at its whole rate, where each half's own picture shows half", async () => {
  const a = await generator('capacity.js', SMALL, kneeTarget(32.5), '0:1/2');
  const b = await generator('capacity.js', SMALL, kneeTarget(32.5), '1/2:1');
  const merged = mergeSummaries([a, b]);
  const achieved = (svg: string) => [...svg.matchAll(/<title>step-(\d+): \d+\/s offered, ([\d.]+)\/s achieved/g)].map((m) => [Number(m[1]), Number(m[2])]);
  const whole = achieved(merged.svg!);
  assert.equal(
    whole.map(([rate]) => rate),
    // 160/s is not run: each generator stopped once its half of 80/s plainly missed its rate.
    [10, 20, 40, 80],
  );
  assert.ok(
    whole.slice(0, 3).every(([rate, got]) => Math.abs(got! - rate!) <= 0.05 * rate!),
    `summed: ${JSON.stringify(whole)}`,
  );
  assert.match(merged.svg!, /<title>bound found: the server&#39;s knee, between 40 and 80\/s/);
  assert.match(
    merged.svg!,
    /class="cap-subtitle"[^>]*>load-merge of 2 capacity\.js generators against http:\/\/127\.0\.0\.1:3000\/v1, each rate summed over them/,
  );
  // What each generator judged, and drew, on its own: its half of each rate.
  const own = (a.summary.extra as { steps: Array<{ rate: number; achieved: number }> }).steps[0]!;
  assert.ok(own.rate === 10 && Math.abs(own.achieved - 5) <= 0.25, JSON.stringify(own));
  assert.is(mergeSummaries([{ ...a, summary: { ...a.summary, script: 'smoke' } }]).svg, null, 'no picture but for capacity.js');
});

test('one generator that stopped makes the merged run ABORTED, and a half alone is judged against its half', async () => {
  const a = await generator('capacity.js', SMALL, petsTarget(), '0:1/2');
  const alone = mergeSummaries([a]);
  assert.match(alone.lines.join('\n'), /the segments cover 50\.0% of the run/);
  assert.is(alone.result, 'PASS');
  const stopped = await generator('capacity.js', SMALL, () => ({ status: 0 }), '1/2:1');
  const merged = mergeSummaries([a, stopped]);
  assert.is(merged.result, 'ABORTED');
  assert.match(merged.lines.join('\n'), /capacity-summary-1_2-1\.json: ABORTED \(target .* is not answering/);
});

test('summaries that are not one run are refused with the reason', async () => {
  const a = await generator('capacity.js', SMALL, petsTarget(), '0:1/2');
  const again = await generator('capacity.js', SMALL, petsTarget(), '0:1/2');
  assert.match(mergeSummaries([a, { ...again, name: 'other.json' }]).lines[0]!, /CANNOT MERGE: .* overlap: the same share of the run was counted twice/);
  const other = await generator('capacity.js', { ...SMALL, MAX_RATE: '40' }, petsTarget(), '1/2:1');
  assert.match(mergeSummaries([a, other]).lines.join('\n'), /CANNOT MERGE: .* ran other steps/);
  const late = await generator('capacity.js', SMALL, petsTarget(), '1/2:1', START + 3_000);
  assert.match(mergeSummaries([a, late]).lines.join('\n'), /CANNOT MERGE: the generators started 3\.0 s apart, more than 50% of a 5 s step/);
  const near = await generator('capacity.js', SMALL, petsTarget(), '1/2:1', START + 1_000);
  assert.match(mergeSummaries([a, near]).lines.join('\n'), /the generators started 1\.0 s apart: the target saw the summed rate for 80% of each 5 s step/);
  const smoke = await generator('smoke.js', { DURATION: '4s' }, petsTarget(), '1/2:1');
  assert.match(mergeSummaries([a, smoke]).lines.join('\n'), /CANNOT MERGE: .* is a smoke\.js summary/);
});

test('smoke.js halves merge their checks and requests', async () => {
  const a = await generator('smoke.js', { DURATION: '8s' }, petsTarget(), '0:1/2');
  const b = await generator('smoke.js', { DURATION: '8s' }, petsTarget(), '1/2:1');
  const merged = mergeSummaries([a, b]);
  assert.is(merged.result, 'PASS');
  const checks = merged.merged.checks as { passes: number; fails: number; requests: number };
  assert.ok(checks.passes > 0 && checks.fails === 0 && checks.requests > 0, JSON.stringify(checks));
});

test('sums: counts add up, failures weigh by requests, percentiles take the highest generator', () => {
  const sum = sumStepStats([
    { count: 100, errorRate: 0.1, p95: 10, p99: 20, overP95: 3, overP99: 1, dropped: 2, limited: 0, vusMax: 5, iterationAvg: 4, requestAvg: 2 },
    null,
    { count: 300, errorRate: 0, p95: 30, p99: 15, overP95: 5, overP99: 0, dropped: 1, limited: 0, vusMax: 7, iterationAvg: 8, requestAvg: 6 },
  ])!;
  assert.equal(sum, {
    count: 400,
    errorRate: 10 / 400,
    p95: 30,
    p99: 20,
    overP95: 8,
    overP99: 1,
    dropped: 3,
    limited: 0,
    vusMax: 12,
    iterationAvg: 7,
    requestAvg: 5,
  });
  assert.is(sumStepStats([null, null]), null);
});

test.run();
