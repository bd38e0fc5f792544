import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bytesText, checkRows, durationText, figure, metricRows, metricsTable, width, type TableData } from './metrics-table.js';

// A real k6 v0.47 run's summary data and the default summary k6 printed for it (see `recorded`):
// checks in a group, one failing; trends of time and of plain numbers with nine statistics; sub-metrics
// with thresholds held and failed; counters, a gauge, rates, data sent and received.
const recorded = JSON.parse(readFileSync(new URL('../testing/k6-default-summary.json', import.meta.url), 'utf8')) as {
  recorded: string;
  data: TableData;
  stdout: string;
};

test('the table is the one k6 v0.47 printed for the same data, character for character', () => {
  assert.match(recorded.recorded, /^k6 v0\.47\.0/);
  assert.fixture(`\n${metricsTable(recorded.data)}\n\n`, recorded.stdout);
});

const durations: Array<[number, string | null, string]> = [
  [0, null, '0s'],
  [0.0005, null, '500ns'],
  [0.5, null, '500µs'],
  [0.16683, null, '166.83µs'],
  [12.345, null, '12.34ms'],
  [8, null, '8ms'],
  [1234.5, null, '1.23s'],
  [75_000, null, '1m15s'],
  [582_000, null, '9m42s'],
  [4_000_000, null, '1h6m40s'],
  [1234.5, 's', '1.23s'],
  [1234.5, 'ms', '1234.50ms'],
  [0.5, 'us', '500.00µs'],
];
for (const [ms, unit, text] of durations) {
  test(`${ms} ms reads ${text}${unit ? ` with summaryTimeUnit ${unit}` : ''}`, () => {
    assert.is(durationText(ms, unit), text);
  });
}

const sizes: Array<[number, string]> = [
  [0, '0 B'],
  [9, '9 B'],
  [243, '243 B'],
  [2_400, '2.4 kB'],
  [181_400, '181 kB'],
  [9_960_000, '10 MB'],
];
for (const [bytes, text] of sizes) {
  test(`${bytes} bytes read ${text}`, () => {
    assert.is(bytesText(bytes), text);
  });
}

test('a share is cut, not rounded; plain numbers keep six decimals without trailing zeros', () => {
  assert.is(figure(7 / 9, { type: 'rate', values: {} }, null), '77.77%');
  assert.is(figure(0.99999, { type: 'rate', values: {} }, null), '99.99%');
  assert.is(figure(617284.008, { type: 'trend', contains: 'default', values: {} }, null), '617284.008');
  assert.is(figure(1 / 3, { type: 'trend', contains: 'default', values: {} }, null), '0.333333');
  assert.is(figure(undefined, { type: 'counter', values: {} }, null), 'n/a');
});

test('width counts what a terminal shows: µ and ✓ are one column each', () => {
  assert.is(width('500µs'), 5);
  assert.is(width('✓ 7'), 3);
});

test('rows of some metrics only are aligned among themselves, sub-metrics under their metric', () => {
  const rows = metricRows(recorded.data, ['iterations', 'http_reqs', 'http_req_duration{name:root}', 'http_req_duration']);
  assert.equal(
    rows.map((r) => r.replace(/(\.+:) .*$/, '$1')),
    ['     http_req_duration...:', '     ✓ { name:root }.....:', '     http_reqs...........:', '     iterations..........:'],
  );
  assert.match(rows[2]!, /\.: 3 226\.821387\/s$/, "the count column is as wide as the shown counts, not every metric's");
});

test('a failing threshold marks its metric ✗; checks are listed by group with the share that passed', () => {
  const rows = metricRows(recorded.data, ['fixture_events']);
  assert.match(rows[0]!, /^ {3}✗ fixture_events\.{3}: 6 /);
  assert.equal(
    checkRows({ name: '', checks: [{ name: 'a', passes: 2, fails: 1 }], groups: [{ name: 'g', checks: [{ name: 'b', passes: 1, fails: 0 }], groups: [] }] }),
    ['     ✗ a', '      ↳  66% — ✓ 2 / ✗ 1', '', '     █ g', '', '       ✓ b', ''],
  );
});

test.run();
