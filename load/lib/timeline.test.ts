import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readSnapshot } from '../../spec/rules/snapshot.js';
import { metricRecorder, TIMELINE_METRICS, timelinePoints, timelineSamples } from './timeline.js';
import { EVENTS } from '../../judge/rules/rules.js';
import { VIOLATIONS_METRIC, eventMetric } from './verdict.js';

const START = Date.UTC(2026, 10, 26, 12, 0, 0);

/** Every bucket threshold is bookkeeping, and every sample keeps it true (k6's `<stat>>=0`). */
function samplesOf(headers: Record<string, string>, violations: Array<{ kind: string; level: string }> = []) {
  const s = readSnapshot({
    status: 200,
    headers: { Date: new Date(START + 5000).toUTCString(), ...headers },
    sentAtMs: START + 4990,
    receivedAtMs: START + 5000,
  });
  return timelineSamples(s, { violations, events: [] }, { startMs: START, bucketS: 1, waitMs: null });
}

const cases: Array<[string, Record<string, string>, Array<{ kind: string; level: string }>?]> = [
  ['a Reset in the window to come', { 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': String(Math.floor(START / 1000) + 60) }],
  ["a Reset before the run started (a mock's example value)", { 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': '1' }],
  ['a Reset of 0', { 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': '0' }],
  ['a violation of a kind the picture does not name', {}, [{ kind: 'not-a-kind', level: 'must' }]],
];

for (const [name, headers, violations] of cases) {
  test(`no sample breaks its bucket's always-true threshold: ${name}`, () => {
    const samples = samplesOf(headers, violations);
    assert.ok(samples.length > 0);
    for (const { metric, value } of samples) assert.ok(value >= 0, `${metric} = ${value}`);
  });
}

test('a Reset read back from the buckets is the instant the server named', () => {
  const reset = Math.floor(START / 1000) + 60;
  const values = new Map<string, number>();
  for (const { metric, value, tags } of samplesOf({ 'X-RateLimit-Limit': '3', 'X-RateLimit-Remaining': '2', 'X-RateLimit-Reset': String(reset) })) {
    values.set(`${metric}{tl:${tags.tl}}`, value);
  }
  const points = timelinePoints((metric, stat) => (stat === 'count' ? (values.has(metric) ? 1 : 0) : values.get(metric)), { startMs: START, totalS: 10 });
  assert.is(points.length, 1);
  assert.is(points[0]!.resetAtMs, reset * 1000);
});

test('metricRecorder makes every metric with the type handed in, and files each sample under its own', () => {
  const made: Array<{ type: string; name: string; added: Array<[number, Record<string, string> | undefined]> }> = [];
  const type = (kind: string) =>
    class {
      added: Array<[number, Record<string, string> | undefined]> = [];
      constructor(name: string) {
        made.push({ type: kind, name, added: this.added });
      }
      add(value: number, tags?: Record<string, string>) {
        this.added.push([value, tags]);
      }
    };
  const add = metricRecorder({ Counter: type('Counter'), Trend: type('Trend') });
  const remaining = TIMELINE_METRICS.remaining[0]!;
  const expected = [VIOLATIONS_METRIC, ...EVENTS.map(eventMetric), ...Object.values(TIMELINE_METRICS).map(([name]) => name)];
  assert.equal(
    made.map((m) => m.name),
    expected,
  );
  assert.equal(made.find((m) => m.name === remaining)!.type, 'Trend');
  assert.equal(made.find((m) => m.name === TIMELINE_METRICS.admitted[0])!.type, 'Counter');
  add([
    { metric: VIOLATIONS_METRIC, value: 1, tags: { kind: 'x' } },
    { metric: remaining, value: 7, tags: { tl: '3' } },
  ]);
  assert.equal(made.find((m) => m.name === VIOLATIONS_METRIC)!.added, [[1, { kind: 'x' }]]);
  assert.equal(made.find((m) => m.name === remaining)!.added, [[7, { tl: '3' }]]);
});

test.run();
