// JUnit testcases carry each check's own time: what the run spent on the requests and judging that
// led to its verdicts, not 0. A target that holds every create for a while shows it in create.201's.
import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conformOn, startTarget, type Target } from '../testing/flaws/harness.ts';
import type { Report } from '../run.ts';
import { formatJUnit } from './junit.ts';

const test = suite('JUnit times');
/** How long the target holds each create before answering it. */
const HELD_MS = 200;
let target: Target;
let report: Report;
let xml: string;

test.before(async () => {
  target = await startTarget({
    request: async (req) => {
      if (req.method === 'POST' && /\/pets$/.test(req.url)) await sleep(HELD_MS);
      return req;
    },
  });
  report = await conformOn(target, { phases: [] });
  xml = formatJUnit(report);
});
test.after(async () => {
  await target.stop();
});

function timeOf(id: string): number {
  const match = new RegExp(`<testcase classname="[^"]*" name="${id.replace(/\./g, '\\.')} [^"]*" time="([^"]+)"`).exec(xml);
  assert.ok(match, `no testcase for ${id}`);
  return Number(match![1]);
}

test('every testcase has a time in seconds', () => {
  const times = [...xml.matchAll(/<testcase [^>]*time="([^"]*)"/g)].map((m) => m[1]!);
  assert.is(times.length, report.results.length);
  for (const time of times) assert.match(time, /^\d+\.\d{3}$/);
});

test('a check whose verdict waited for a held create carries at least that wait', () => {
  // Each of these sent (at least) one create and judged its answer.
  for (const id of ['create.201', 'create.400-missing']) assert.ok(timeOf(id) >= HELD_MS / 1000, `${id}: ${timeOf(id)} s`);
});

test('a check the run left out took no time', () => {
  assert.is(timeOf('ratelimit.exhaustion-exact'), 0);
});

test.run();
