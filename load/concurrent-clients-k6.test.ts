// rate-limit.js with a real k6 in real time against the second implementation with 32 concurrent
// clients: the builds whose windows take a whole minute to be seen pass (about 95 s, both runs at
// once). The shim's runs of every build and load are in concurrent-clients.test.ts; the racy build's
// failure under a real k6 is in testing/k6-shim-parity.test.ts, beside the shim's verdict on it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { metricValue } from './lib/summary.js';
import { findK6, runK6 } from './testing/k6-bin.ts';
import { broken, mustBroken, type Summary } from './testing/rules-broken.ts';
import { startWorkerTarget } from './testing/worker-target.ts';

const k6 = findK6();
const K6_RUNS = [
  "k6: rate-limit.js passes the second implementation's sliding-log build with 32 concurrent clients (90 s)",
  "k6: rate-limit.js passes the second implementation's moving-window build (Reset when empty, Remaining as of the answer) with 32 concurrent clients (90 s)",
];

if (k6 === null) {
  process.stdout.write(
    'SKIP: k6 not found (set K6_BIN or put k6 on PATH), so rate-limit.js is not run with a real k6 against the sliding and moving builds; the shim runs of concurrent-clients.test.ts cover them\n',
  );
  for (const name of K6_RUNS) test.skip(name, () => undefined);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'k6-clients-'));
  const sliding = await startWorkerTarget({ kind: 'second', options: { window: 'sliding' } }, null);
  const moving = await startWorkerTarget({ kind: 'second', options: { window: 'moving', remaining: 'answer' } }, null);
  // Both start now: they share nothing, and the file then takes the longer one's time, not the sum.
  // 90 s at three times the limit (180 a minute): the slots fill sooner than at the default 1.5 times,
  // and a whole sliding window is seen within the run; at 90 a minute it took about 85 s, and 110 s.
  const env = { API_KEY: 'second-free-key', PLAN: 'free', CLIENTS: '32', OVERDRIVE: '3', DURATION: '90s' };
  const runs = {
    sliding: runK6(k6, 'rate-limit.js', { ...env, BASE_URL: sliding.baseUrl }, dir, 240_000),
    moving: runK6(k6, 'rate-limit.js', { ...env, BASE_URL: moving.baseUrl }, dir, 240_000),
  };
  test.after(async () => {
    await Promise.all(Object.values(runs));
    await Promise.all([sliding.close(), moving.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  const passes = async (name: string, run: ReturnType<typeof runK6>) => {
    const r = await run;
    const summary = r.summary as unknown as Summary | null;
    assert.ok(summary, `no JSON summary; k6 said:\n${r.output}`);
    const found = broken(summary!);
    process.stdout.write(`k6, ${name}, 32 clients: exit ${r.code}, ${summary!.result}; rules broken: ${JSON.stringify(found)}\n`);
    assert.is(r.code, 0, r.output);
    assert.equal(mustBroken(found), [], JSON.stringify(found));
    assert.ok((metricValue(summary!.k6, 'ratelimit_window_verified{scenario:limit}', 'count') ?? 0) >= 1, r.output);
  };

  test(K6_RUNS[0]!, () => passes('sliding-log build', runs.sliding));
  test(K6_RUNS[1]!, () => passes('moving-window build', runs.moving));
}

test.run();
