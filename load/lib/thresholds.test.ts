// Every threshold the scripts set (thresholds.js): the same objects, key order included, as the
// scripts built inline before the builders moved here; which entries judge the run and which only
// keep figures (bookkeeping); and that what is kept per step or bucket is what is read back.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RULES } from '../../judge/rules/rules.js';
import { STEP_AGGREGATES, stepStats } from './knee.js';
import { doublingRates, refineRates, stepPlan, withBaseline, type StepPlan } from './phases.js';
import { isBookkeeping } from './summary.js';
import {
  WARNING_ONLY,
  capacityThresholds,
  rateLimitThresholds,
  smokeThresholds,
  stepThresholds,
  timelineThresholds,
  violationThresholds,
} from './thresholds.js';
import { TIMELINE_METRICS } from './timeline.js';
import { KINDS, violationKey } from './verdict.js';

type Thresholds = Record<string, string[]>;

// What the scripts and verdict.js, timeline.js and knee.js built before thresholds.js existed,
// copied as they were: the oracle the builders must match exactly.
const before = {
  violations(strict: boolean): Thresholds {
    const t: Thresholds = {};
    for (const kind of KINDS) t['ratelimit_violations{kind:' + kind + '}'] = [RULES[kind].level === 'must' || strict ? 'count==0' : 'count>=0'];
    return t;
  },
  timeline(totalS: number): Thresholds {
    const count = Math.ceil(totalS / Math.max(1, Math.ceil(totalS / 60))) + 1;
    const t: Thresholds = {};
    for (let b = 0; b < count; b++) {
      for (const field of Object.keys(TIMELINE_METRICS) as Array<keyof typeof TIMELINE_METRICS>) {
        const [metric, stat] = TIMELINE_METRICS[field];
        t[metric + '{tl:' + b + '}'] = [stat + '>=0'];
      }
    }
    return t;
  },
  steps(plan: StepPlan): Thresholds {
    const t: Thresholds = {};
    for (const step of plan.steps) {
      for (const [metric, stat] of STEP_AGGREGATES) {
        const key = metric + '{scenario:' + step.name + '}';
        if (!t[key]) t[key] = [];
        if (t[key].indexOf(stat + '>=0') < 0) t[key].push(stat + '>=0');
      }
    }
    return t;
  },
  // load/capacity.js
  capacity(plan: StepPlan, mode: string, MAX_ERROR_RATE: number, P95_MS: number, P99_MS: number): Thresholds {
    const first = plan.steps[0]!.name;
    const thresholds = before.steps(plan);
    if (mode === 'rates') {
      thresholds.http_req_failed = ['rate<' + MAX_ERROR_RATE];
      thresholds.http_req_duration = ['p(95)<' + P95_MS, 'p(99)<' + P99_MS];
    } else {
      thresholds['http_req_failed{scenario:' + first + '}']!.push('rate<' + MAX_ERROR_RATE);
      thresholds['http_req_duration{scenario:' + first + '}']!.push('p(95)<' + P95_MS, 'p(99)<' + P99_MS);
    }
    return thresholds;
  },
  // load/rate-limit.js
  rateLimit(STRICT: boolean, TOTAL_S: number, CROSS_WINDOWS: boolean, BAN: boolean): Thresholds {
    const thresholds = Object.assign(before.violations(STRICT), before.timeline(TOTAL_S));
    thresholds['ratelimit_window_saturated{scenario:limit}'] = ['count>=1'];
    if (CROSS_WINDOWS) {
      thresholds['ratelimit_window_crossed{scenario:limit}'] = ['count>=1'];
      thresholds['ratelimit_readmitted{scenario:limit}'] = ['count>=1'];
      thresholds['ratelimit_window_verified{scenario:limit}'] = ['count>=1'];
    }
    thresholds['http_req_failed'] = ['rate<0.01'];
    if (BAN) {
      thresholds['ratelimit_ban_detected{scenario:ban}'] = ['count>=1'];
      thresholds['ratelimit_ban_confirmed{scenario:ban}'] = ['count>=1'];
      thresholds['ratelimit_ban_held_past_reset{scenario:ban}'] = ['count>=1'];
      thresholds['ratelimit_ban_lifted{scenario:ban}'] = ['count>=1'];
    }
    return thresholds;
  },
  // load/smoke.js
  smoke(P95_MS: number): Thresholds {
    return { checks: ['rate==1'], http_req_failed: ['rate<0.01'], 'http_req_duration{expected_response:true}': ['p(95)<' + P95_MS] };
  },
};

/** Equal as k6 reads them and as JSON writes them: same keys in the same order, same expressions. */
function same(actual: Thresholds, expected: Thresholds) {
  assert.equal(actual, expected);
  assert.is(JSON.stringify(actual), JSON.stringify(expected));
}

// The plans capacity.js builds: its default doubling search, a BETWEEN refinement, fixed RATES, odd factors.
const plans: Array<[string, StepPlan]> = [
  ['the default search', stepPlan(doublingRates(50, 12800, 2), 10)],
  ['BETWEEN=1600,3200', stepPlan(withBaseline(refineRates(1600, 3200, 4), 50), 10)],
  ['RATES=50,100,200', stepPlan([50, 100, 200], 30)],
  ['one step', stepPlan([7], 5)],
  ['FACTOR=1.5 from 3', stepPlan(doublingRates(3, 40, 1.5), 5)],
];
const capacityLimits: Array<{ maxErrorRate: number; p95Ms: number; p99Ms: number }> = [
  { maxErrorRate: 0.01, p95Ms: 250, p99Ms: 500 },
  { maxErrorRate: 0, p95Ms: 80.5, p99Ms: 300 },
];
for (const [name, plan] of plans) {
  for (const mode of ['search', 'refine', 'rates'] as const) {
    for (const limits of capacityLimits) {
      test(`capacityThresholds(${name}, ${mode}, ${JSON.stringify(limits)}) is what capacity.js set`, () => {
        same(capacityThresholds(plan, { mode, ...limits }), before.capacity(plan, mode, limits.maxErrorRate, limits.p95Ms, limits.p99Ms));
      });
    }
  }
}

// rate-limit.js's TOTAL_S: DURATION + 10, and with BAN 15 + BAN_DURATION more.
for (const totalS of [20, 40, 160, 160 + 15 + 120, 160 + 15 + 720, 3610]) {
  for (const strict of [false, true]) {
    for (const crossWindows of [true, false]) {
      for (const ban of [false, true]) {
        test(`rateLimitThresholds(totalS=${totalS}, strict=${strict}, crossWindows=${crossWindows}, ban=${ban}) is what rate-limit.js set`, () => {
          same(rateLimitThresholds({ strict, totalS, crossWindows, ban }), before.rateLimit(strict, totalS, crossWindows, ban));
        });
      }
    }
  }
}

for (const p95Ms of [500, 123, 0.5]) {
  test(`smokeThresholds(p95Ms=${p95Ms}) is what smoke.js set`, () => {
    same(smokeThresholds({ p95Ms }), before.smoke(p95Ms));
  });
}

/** The entries that judge a run: every other one is bookkeeping. */
function judging(thresholds: Thresholds): Thresholds {
  const out: Thresholds = {};
  for (const [key, expressions] of Object.entries(thresholds)) {
    const j = expressions.filter((e) => !isBookkeeping(e));
    if (j.length > 0) out[key] = j;
  }
  return out;
}

const must = KINDS.filter((k) => RULES[k].level === 'must');
const judged: Array<[string, Thresholds, Thresholds]> = [
  [
    'smoke.js',
    smokeThresholds({ p95Ms: 500 }),
    { checks: ['rate==1'], http_req_failed: ['rate<0.01'], 'http_req_duration{expected_response:true}': ['p(95)<500'] },
  ],
  [
    'a capacity search: the first step only',
    capacityThresholds(stepPlan([50, 100], 10), { mode: 'search', maxErrorRate: 0.01, p95Ms: 250, p99Ms: 500 }),
    { 'http_req_failed{scenario:step-50}': ['rate<0.01'], 'http_req_duration{scenario:step-50}': ['p(95)<250', 'p(99)<500'] },
  ],
  [
    'capacity at fixed rates: every request',
    capacityThresholds(stepPlan([50, 100], 10), { mode: 'rates', maxErrorRate: 0.01, p95Ms: 250, p99Ms: 500 }),
    { http_req_failed: ['rate<0.01'], http_req_duration: ['p(95)<250', 'p(99)<500'] },
  ],
  [
    'rate-limit.js, lenient, one window',
    rateLimitThresholds({ strict: false, totalS: 40, crossWindows: false, ban: false }),
    {
      ...Object.fromEntries(must.map((k) => [violationKey(k), ['count==0']])),
      'ratelimit_window_saturated{scenario:limit}': ['count>=1'],
      http_req_failed: ['rate<0.01'],
    },
  ],
  [
    'rate-limit.js, strict, across windows, with a ban',
    rateLimitThresholds({ strict: true, totalS: 895, crossWindows: true, ban: true }),
    {
      ...Object.fromEntries(KINDS.map((k) => [violationKey(k), ['count==0']])),
      'ratelimit_window_saturated{scenario:limit}': ['count>=1'],
      'ratelimit_window_crossed{scenario:limit}': ['count>=1'],
      'ratelimit_readmitted{scenario:limit}': ['count>=1'],
      'ratelimit_window_verified{scenario:limit}': ['count>=1'],
      http_req_failed: ['rate<0.01'],
      'ratelimit_ban_detected{scenario:ban}': ['count>=1'],
      'ratelimit_ban_confirmed{scenario:ban}': ['count>=1'],
      'ratelimit_ban_held_past_reset{scenario:ban}': ['count>=1'],
      'ratelimit_ban_lifted{scenario:ban}': ['count>=1'],
    },
  ],
];
for (const [name, thresholds, expected] of judged) {
  test(`${name}: the thresholds that judge the run, every other one bookkeeping`, () => {
    assert.equal(judging(thresholds), expected);
  });
}

for (const strict of [false, true]) {
  test(`violationThresholds(strict=${strict}): a threshold per kind, count==0 where the kind fails the run`, () => {
    const thresholds = violationThresholds({ strict });
    assert.equal(Object.keys(thresholds).sort(), KINDS.map(violationKey).sort());
    for (const kind of KINDS) {
      const fails = RULES[kind].level === 'must' || strict;
      assert.equal(thresholds[violationKey(kind)], [fails ? 'count==0' : WARNING_ONLY], kind);
    }
  });
}

test('a warning-only kind keeps its count for the report and is bookkeeping to the summary: neither counted nor listed', () => {
  assert.ok(isBookkeeping(WARNING_ONLY));
  assert.not.ok(isBookkeeping('count==0'));
});

test('every bucket threshold is one the summary counts as bookkeeping', () => {
  const thresholds = timelineThresholds(120);
  for (const [metric, expressions] of Object.entries(thresholds)) {
    for (const e of expressions) assert.ok(isBookkeeping(e), `${metric}: ${e}`);
  }
  assert.is(Object.keys(thresholds).length % Object.keys(TIMELINE_METRICS).length, 0);
});

test('stepThresholds and stepStats name the same aggregates: what is kept is what is read', () => {
  const plan = stepPlan([50, 100], 10);
  const thresholds = stepThresholds(plan);
  const values: Record<string, Record<string, number>> = {};
  for (const [key, expressions] of Object.entries(thresholds)) {
    values[key] = {};
    for (const e of expressions) values[key]![e.replace('>=0', '')] = 7;
  }
  const read = stepStats((metric, stat) => values[metric]?.[stat], 'step-100')!;
  assert.equal(
    Object.values(read).every((v) => v === 7),
    true,
    JSON.stringify(read),
  );
  assert.is(Object.keys(thresholds).length, 2 * new Set(STEP_AGGREGATES.map(([m]) => m)).size);
  assert.is(
    stepStats(() => undefined, 'step-50'),
    null,
  );
});

test.run();
