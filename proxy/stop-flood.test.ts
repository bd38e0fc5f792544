// Issue 42: `adoption-kit proxy` stopped (SIGTERM) while clients flood it, made for real on the compiled
// proxy: slow request bodies, endless and large answers nobody reads, live-view watchers that never
// read, keep-alive clients looping. It must exit 0 with its reports written, every exchange under way
// at the stop counted. How long the stop takes is a figure of bench/testing/proxy-stop.ts, never asserted here.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ensureBuilt } from '../lib/dist-build.ts';
import { floodThenStop, type FloodSize } from './testing/stop-flood.ts';

// Smaller than issue 42's flood (bench/testing/proxy-stop.ts makes that one): the same kinds, within a test's time.
const FLOOD: FloodSize = { slowBodies: 400, endless: 40, unread: 20, watchers: 150, loopers: 16 };

await ensureBuilt((line) => process.stdout.write(`${line}\n`));

const test = suite('proxy: a stop under a flood');

test('SIGTERM under a flood: exit 0, every report written, every exchange under way counted as cut short', async () => {
  const stop = await floodThenStop(FLOOD);
  const tail = `\n--- the proxy's output (last 2000 characters):\n${stop.output.slice(-2000)}`;
  const { atStop, json } = stop;
  // The flood was under way when the stop came: the stop cut something, and the test tests a stop under load.
  assert.is(atStop.uploadsOpen, FLOOD.slowBodies, 'every slow body was reaching the target at the stop');
  assert.is(atStop.endlessOpen, FLOOD.endless, 'every endless answer was under way at the stop');
  assert.is(atStop.watchersAnswered, FLOOD.watchers, 'every watcher was answered (let in, or turned away past the cap)');
  assert.equal([stop.code, stop.signal], [0, null], `the proxy's exit${tail}`);
  // The order: the reports are written before the exit, and the console's report is printed.
  assert.ok(json, `the JSON report was written before the exit${tail}`);
  assert.ok(stop.htmlWritten, 'the HTML report was written whole before the exit');
  assert.match(stop.output, /Traffic through the proxy to /, 'the console report was printed');
  const underWay = atStop.uploadsOpen + atStop.endlessOpen;
  assert.ok(json.cutShort >= underWay, `${json.cutShort} exchanges counted as cut short, ${underWay} under way at the stop`);
  assert.ok(
    json.requests >= underWay + atStop.unreadStarted + atStop.loopsAnswered,
    `${json.requests} exchanges reported; ${underWay + atStop.unreadStarted} under way and ${atStop.loopsAnswered} answered before the stop`,
  );
  process.stdout.write(`  (stopped in ${stop.stopMs} ms: a figure, not a bound; bench/testing/proxy-stop.ts measures it)\n`);
});

test.run();
