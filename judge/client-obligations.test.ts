import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientRecorder, readiness, TIMELINE_POINTS, type Answer, type Verdict } from './client-obligations.ts';

type Step = [atSeconds: number, status: number, retryAfter?: number, code?: string, operationId?: string];

function verdicts(steps: Step[]) {
  const recorder = new ClientRecorder(['getPet']);
  for (const [at, status, retryAfter, code, operationId] of steps) {
    const answer: Answer = { atMs: at * 1000, keyId: 'k', plan: 'free', label: 'test-fre…', status, operationId: operationId ?? 'listPets' };
    if (retryAfter !== undefined) answer.retryAfterSeconds = retryAfter;
    if (code !== undefined) answer.code = code;
    recorder.observe(answer);
  }
  const [report] = recorder.report();
  const o = report!.obligations;
  return {
    wait: o.waitsRetryAfter.verdict,
    backoff: o.backsOffExponentially.verdict,
    ban: o.stopsWhileBanned.verdict,
    deprecated: o.avoidsDeprecated.verdict,
    ready: report!.ready,
    warnings: report!.warnings,
  };
}

// Ready unless a must-level obligation is broken; a broken should (avoidsDeprecated) is a warning.
const cases: Array<[string, Step[], { wait: Verdict; backoff: Verdict; ban: Verdict; deprecated: Verdict; ready: boolean; warnings: number }]> = [
  [
    'never refused',
    [
      [0, 200],
      [1, 200],
    ],
    { wait: 'not observed', backoff: 'not observed', ban: 'not observed', deprecated: 'yes', ready: true, warnings: 0 },
  ],
  [
    'waits Retry-After, then admitted',
    [
      [0, 429, 30, 'rate_limited_minute'],
      [30, 200],
    ],
    { wait: 'yes', backoff: 'not observed', ban: 'not observed', deprecated: 'yes', ready: true, warnings: 0 },
  ],
  [
    'retries early (then waits longer: that much is backoff)',
    [
      [0, 429, 30, 'rate_limited_minute'],
      [5, 429, 25, 'rate_limited_minute'],
      [30, 200],
    ],
    { wait: 'no', backoff: 'yes', ban: 'not observed', deprecated: 'yes', ready: false, warnings: 0 },
  ],
  [
    'backs off exponentially over repeated 429s',
    [
      [0, 429, 1],
      [1, 429, 1],
      [3, 429, 1],
      [7, 200],
    ],
    { wait: 'yes', backoff: 'yes', ban: 'not observed', deprecated: 'yes', ready: true, warnings: 0 },
  ],
  [
    'retries at a constant pace',
    [
      [0, 429, 1],
      [1, 429, 1],
      [2, 429, 1],
      [3, 200],
    ],
    { wait: 'yes', backoff: 'no', ban: 'not observed', deprecated: 'yes', ready: false, warnings: 0 },
  ],
  [
    'a loop of immediate retries is no backoff',
    [
      [0, 429, 5],
      [0, 429, 5],
      [0, 429, 5],
    ],
    { wait: 'no', backoff: 'no', ban: 'not observed', deprecated: 'yes', ready: false, warnings: 0 },
  ],
  [
    'stops while banned',
    [
      [0, 429, 600, 'key_banned'],
      [600, 200],
    ],
    { wait: 'yes', backoff: 'not observed', ban: 'yes', deprecated: 'yes', ready: true, warnings: 0 },
  ],
  [
    'keeps sending while banned',
    [
      [0, 429, 600, 'key_banned'],
      [10, 429, 590, 'key_banned'],
      [20, 429, 580, 'key_banned'],
    ],
    { wait: 'no', backoff: 'no', ban: 'no', deprecated: 'yes', ready: false, warnings: 0 },
  ],
  [
    'still calls getPet',
    [
      [0, 200, undefined, undefined, 'getPet'],
      [1, 200],
    ],
    { wait: 'not observed', backoff: 'not observed', ban: 'not observed', deprecated: 'no', ready: true, warnings: 1 },
  ],
  [
    'still calls getPet and retries early',
    [
      [0, 429, 30, 'rate_limited_minute', 'getPet'],
      [5, 200],
    ],
    { wait: 'no', backoff: 'not observed', ban: 'not observed', deprecated: 'no', ready: false, warnings: 1 },
  ],
];
for (const [name, steps, expected] of cases) {
  test(name, () => assert.equal(verdicts(steps), expected));
}

test('the verdict in words: READY, READY with its warnings, NOT READY', () => {
  assert.is(readiness({ ready: true, warnings: 0 }), 'READY');
  assert.is(readiness({ ready: true, warnings: 1 }), 'READY (1 warning)');
  assert.is(readiness({ ready: true, warnings: 2 }), 'READY (2 warnings)');
  assert.is(readiness({ ready: false, warnings: 1 }), 'NOT READY');
});

test('a retry a little early (clock or network jitter under 250 ms) still counts as waiting', () => {
  assert.is(
    verdicts([
      [0, 429, 30],
      [29.9, 200],
    ]).wait,
    'yes',
  );
});

test('seen from a proxy: a wait counts from the 429 coming back to the next request leaving, and a ban any judge announced counts', () => {
  const recorder = new ClientRecorder(['getPet']);
  const base = { keyId: 'k', plan: 'unknown', label: 'k…', operationId: 'listPets' };
  // The 429 came back at 1 s after a slow answer; the retry left 30 s later and came back at 31.5 s.
  recorder.observe({ ...base, sentAtMs: 0, atMs: 1000, status: 429, retryAfterSeconds: 30 });
  recorder.observe({ ...base, sentAtMs: 31_000, atMs: 31_500, status: 429, retryAfterSeconds: 600, ban: true });
  recorder.observe({ ...base, sentAtMs: 40_000, atMs: 40_100, status: 429, retryAfterSeconds: 591 });
  const [report] = recorder.report();
  assert.is(report!.obligations.stopsWhileBanned.verdict, 'no');
  assert.is(report!.obligations.waitsRetryAfter.detail, '1 of 2 retries came before Retry-After (up to 591.5 s early)');
});

test('the timeline keeps the last requests and marks each obligation once, where it was first broken', () => {
  const recorder = new ClientRecorder(['getPet']);
  const base = { keyId: 'k', plan: 'free', label: 'k…' };
  for (let i = 0; i < TIMELINE_POINTS + 5; i++) recorder.observe({ ...base, atMs: i * 1000, status: 200, operationId: 'listPets', remaining: 5 });
  recorder.observe({ ...base, atMs: 2_000_000, status: 429, retryAfterSeconds: 30, operationId: 'getPet', remaining: 0 });
  recorder.observe({ ...base, atMs: 2_000_001, status: 429, retryAfterSeconds: 30, operationId: 'getPet', remaining: 0 });
  const [report] = recorder.report();
  assert.is(report!.timeline.length, TIMELINE_POINTS);
  const marked = report!.timeline.flatMap((p, i) => (p.violations ?? []).map((v) => `${i}:${v.kind}`));
  assert.equal(marked, [`${TIMELINE_POINTS - 2}:client.avoids-deprecated`, `${TIMELINE_POINTS - 1}:client.waits-retry-after`]);
  assert.is(report!.timeline.at(-2)!.retryAfterMs, 30_000);
});

test('an injected answer is judged like any other and drawn as injected', () => {
  const recorder = new ClientRecorder(['getPet']);
  const base = { keyId: 'k', plan: 'free', label: 'k…', operationId: 'listPets' };
  recorder.observe({ ...base, atMs: 0, status: 429, retryAfterSeconds: 30, injected: true });
  recorder.observe({ ...base, atMs: 1000, status: 200, remaining: 5 });
  const [report] = recorder.report();
  assert.is(report!.obligations.waitsRetryAfter.verdict, 'no');
  assert.equal(
    report!.timeline.map((p) => p.injected ?? false),
    [true, false],
  );
});

test('a long run of 429s is judged on every wait, not only the few it names: one wait too short at the end breaks the backoff', () => {
  const steps: Step[] = [];
  let at = 0;
  for (let i = 0; i < 12; i++) {
    steps.push([at, 429, 1]);
    at += 2 ** i;
  }
  assert.equal(verdicts([...steps, [at, 200]]).backoff, 'yes');
  steps.push([at, 429, 1]);
  assert.equal(verdicts([...steps, [at + 1, 429, 1], [at + 2, 200]]).backoff, 'no');
});

test('the details say what happened, with numbers', () => {
  const recorder = new ClientRecorder(['getPet']);
  const base = { keyId: 'k', plan: 'free', label: 'test-fre…', operationId: 'getPet' };
  recorder.observe({ ...base, atMs: 0, status: 429, retryAfterSeconds: 42, code: 'rate_limited_minute' });
  recorder.observe({ ...base, atMs: 2000, status: 429, retryAfterSeconds: 40, code: 'rate_limited_minute' });
  const [report] = recorder.report();
  assert.is(report!.obligations.waitsRetryAfter.detail, '1 of 1 retries came before Retry-After (up to 40.0 s early)');
  assert.is(report!.obligations.avoidsDeprecated.detail, '2 of 2 requests (100.0 %) still call a deprecated operation');
});

test("the live view's reads: each key's counters (obligations broken so far) without a report, and one key's report by its label", () => {
  const recorder = new ClientRecorder(['getPet']);
  const base = { plan: 'free', status: 200, operationId: 'listPets' } as const;
  recorder.observe({ ...base, atMs: 0, keyId: 'a', label: 'calm…' });
  recorder.observe({ ...base, atMs: 0, keyId: 'b', label: 'rude…', status: 429, retryAfterSeconds: 30 });
  recorder.observe({ ...base, atMs: 100, keyId: 'b', label: 'rude…', operationId: 'getPet' });
  assert.equal(
    [...recorder.ranks()],
    [
      { label: 'calm…', requests: 1, findings: 0 },
      { label: 'rude…', requests: 2, findings: 2 },
    ],
  );
  assert.is(recorder.size, 2);
  const rude = recorder.reportByLabel('rude…')!;
  assert.is(rude.keyId, 'b');
  assert.is(rude.timeline.length, 2, 'with its timeline');
  assert.equal(rude, recorder.report()[1]);
  assert.is(recorder.reportByLabel('nobody…'), undefined);
});

test.run();
