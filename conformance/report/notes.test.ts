// A note on a check that passed (the concurrency waves shrank to fit --max-requests) reaches every
// report, not only --json: the console and the HTML page show it too.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { conformOn, startTarget, type Target } from '../testing/flaws/harness.ts';
import type { Report } from '../run.ts';
import { formatConsole } from './console.ts';
import { formatHtml } from './html.ts';
import { formatJson } from './json.ts';

const test = suite('notes of checks that passed');
let target: Target;
let report: Report;
let note: string;

test.before(async () => {
  target = await startTarget();
  // The full concurrency phase sends 13 requests; 8 leave room only for its smallest waves.
  report = await conformOn(target, { phases: ['concurrency'], maxRequests: 8 });
  const distinct = report.results.find((r) => r.id === 'concurrency.creates-distinct')!;
  assert.is(distinct.outcome, 'passed');
  note = distinct.notes.find((n) => /creates at once/.test(n))!;
  assert.ok(note, distinct.notes.join('\n'));
});
test.after(async () => {
  await target.stop();
});

const FORMATS: Array<[string, (report: Report) => string, (note: string) => string]> = [
  ['json', formatJson, (n) => JSON.stringify(n)],
  ['the console', (r) => formatConsole(r), (n) => `concurrency.creates-distinct: ${n}`],
  ['html', formatHtml, (n) => n.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')],
];

for (const [name, format, shown] of FORMATS) {
  test(`${name} shows that the waves shrank`, () => {
    assert.ok(format(report).includes(shown(note)), `${name} lacks: ${note}`);
  });
}

test.run();
