// Every reading of readings.js the window rules judge under: a history taking it breaks no rule and
// is named among the readings that explain it; a history no combination of readings explains breaks
// the rule it names, whatever the reading.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CORRECT, T0, W1, no, ok, type Extra } from '../../spec/rules/testing/recorded.ts';
import { READINGS } from './readings.js';
import { readSnapshot, type RecordedResponse } from '../../spec/rules/snapshot.js';
import { COMBINATIONS, createWindowRules, describeReadings } from './window-rules.js';

/** Plays responses through the rules (an array in the list is one batch): the rules broken and the readings left. */
function play(sequence: Array<RecordedResponse | RecordedResponse[]>) {
  const rules = createWindowRules();
  const broken: string[] = [];
  for (const step of sequence) {
    const out = rules.observe((Array.isArray(step) ? step : [step]).map((r) => readSnapshot(r, { dateHeader: true })));
    for (const v of out.violations) if (v.level === 'must') broken.push(v.kind);
  }
  return { broken: [...new Set(broken)].sort(), readings: rules.readings() };
}

/** Sent 0.5 s before the answer arrived: requests of one batch overlap. */
const atOnce: Extra = { sentBefore: 0.5 };
const off = 7;

/** Each reading, a history that takes it, and readings the same history must rule out. */
const TAKEN: Array<[id: string, history: Array<RecordedResponse | RecordedResponse[]>, ruledOut: string[]]> = [
  ['window.fixed-clock', CORRECT, []],
  [
    'window.fixed-start',
    // Windows opened by the first request, 7 s past a clock minute.
    [ok(1, 2, W1 + off), ok(2, 1, W1 + off), ok(3, 0, W1 + off), no(4, W1 + off, String(56 + off)), ok(60 + off, 2, T0 + 120 + off)],
    ['window.fixed-clock'],
  ],
  [
    'window.sliding-log',
    [ok(1, 2, T0 + 61), ok(11, 1, T0 + 61), ok(21, 0, T0 + 61), no(31, T0 + 61, '30'), ok(61, 0, T0 + 71), no(62, T0 + 71, '9'), ok(71, 0, T0 + 81)],
    ['window.fixed-clock', 'window.fixed-start', 'window.moving'],
  ],
  [
    'window.moving',
    // Reset a minute after the newest admission: it moves forward with every admission.
    [ok(1, 2, T0 + 61), ok(20, 1, T0 + 80), ok(40, 0, T0 + 100), no(41, T0 + 100, '59'), ok(101, 2, T0 + 161)],
    ['window.fixed-clock', 'window.fixed-start', 'window.sliding-log', 'reset.next-slot'],
  ],
  ['reset.next-slot', CORRECT, []],
  [
    'reset.window-empty',
    // Flask-Limiter's moving window: a slot of the oldest frees at 61, Remaining says so, Reset stays on the newest.
    [ok(1, 2, T0 + 61), ok(20, 1, T0 + 80), ok(40, 0, T0 + 100), ok(62, 0, T0 + 122)],
    ['reset.next-slot'],
  ],
  ['remaining.at-decision', CORRECT, []],
  [
    'remaining.at-answer',
    // Three requests at once, each answer built after the others were counted: values shared and skipped, none over-admitted.
    [[ok(30, 1, W1, atOnce), ok(30, 0, W1, atOnce), ok(30, 0, W1, atOnce)], no(31, W1, '29'), ok(60, 2, T0 + 120)],
    ['remaining.at-decision', 'window.moving'],
  ],
];

for (const [id, history, ruledOut] of TAKEN) {
  test(`${id}: a server taking it breaks no rule, and the reading is named`, () => {
    const r = play(history);
    assert.equal(r.broken, []);
    assert.ok(r.readings.includes(id), `${id} not among ${r.readings.join(', ')}`);
    for (const other of ruledOut) assert.not.ok(r.readings.includes(other), `${other} still explains it: ${r.readings.join(', ')}`);
  });
}

/** Limit 60, one admission every `step` seconds from `from`, Remaining and Reset as a moving window's. */
function movingAdmissions(n: number, from: number, step: number, remainingOf: (i: number) => number): RecordedResponse[] {
  return Array.from({ length: n }, (_, i) => ok(from + i * step, remainingOf(i), Math.ceil(T0 + from + i * step + 60), { limit: 60 }));
}

const UNEXPLAINED: Array<[name: string, history: RecordedResponse[], broken: string[]]> = [
  [
    '61 admissions in one 60 s span with Limit 60, Remaining and Reset as a moving window would say them',
    movingAdmissions(61, 1, 0.9, (i) => Math.max(0, 59 - i)),
    ['over_admitted', 'remaining_not_decremented'],
  ],
  [
    'a fourth admission among three answers of one window, Limit 3',
    [ok(1, 2, W1), ok(2, 1, W1), ok(3, 0, W1), ok(4, 0, W1)],
    ['over_admitted', 'remaining_not_decremented'],
  ],
  [
    'a sequential request that skips a Remaining value (nothing in flight with it)',
    [ok(1, 2, W1), ok(2, 0, W1), no(3, W1, '57')],
    ['remaining_skipped', 'under_admitted'],
  ],
  ['a sequential request that repeats a Remaining value', [ok(1, 2, W1), ok(2, 2, W1), ok(3, 1, W1)], ['remaining_not_decremented']],
  ['Reset that goes back while the requests that set it still count', [ok(1, 2, T0 + 61), ok(20, 1, T0 + 80), ok(21, 0, T0 + 70)], ['reset_moved']],
];

for (const [name, history, broken] of UNEXPLAINED) {
  test(`no reading explains ${name}: breaks ${broken.join(', ')}`, () => {
    assert.equal(play(history).broken, broken);
  });
}

test('every reading a combination stands for is in the table, named and sourced', () => {
  const ids = new Set(READINGS.map((r) => r.id));
  const used = new Set<string>(COMBINATIONS.flatMap((c) => [c.reset, c.remaining]));
  for (const id of ['window.fixed-clock', 'window.fixed-start', 'window.sliding-log', 'window.moving']) used.add(id);
  for (const id of used) assert.ok(ids.has(id), id);
  for (const r of READINGS) {
    assert.ok(r.name.length > 0 && r.allows.length > 0, r.id);
    assert.ok(/Limits|RFC|readings/.test(r.source), `${r.id} names no source`);
  }
  assert.is(ids.size, READINGS.length, 'ids are unique');
});

test('a run whose history rules readings out says which still explain it, in a note (the k6 log, the proxy)', () => {
  const rules = createWindowRules();
  const notes: string[] = [];
  for (const r of [ok(1, 2, T0 + 61), ok(20, 1, T0 + 80), ok(40, 0, T0 + 100)]) notes.push(...rules.observe([readSnapshot(r, { dateHeader: true })]).notes);
  assert.ok(
    notes.includes(
      'the readings that explain the run so far: window: moving window; Reset: the window is fully empty; Remaining: as of the decision or as of the answer',
    ),
    notes.join('\n'),
  );
});

test('the readings are described by point, alternatives joined', () => {
  assert.is(
    describeReadings(['window.sliding-log', 'window.moving', 'reset.window-empty', 'remaining.at-answer']),
    'window: sliding log or moving window; Reset: the window is fully empty; Remaining: as of the answer',
  );
});

test.run();
