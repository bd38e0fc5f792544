// The kit on builds of the second implementation that take readings other than the reference
// server's (judge/rules/readings.js): a moving window whose Reset names when the window is fully
// empty, and Remaining read when the answer is built, as Flask-Limiter's moving window does. Each
// must conform, and "What the target chose" must name readings that explain the run. The clock
// moves a little at every reading, so that admissions fall in later seconds and a moving Reset moves.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../../server/clock.ts';
import { runConformance, type Report } from '../../run.ts';
import { SECOND_BAN, SECOND_CHOICES } from '../flaws/harness.ts';
import { startSecondServer, type SecondServerOptions } from './index.ts';

const SEED = 20_261_204;

/** A manual clock that also moves 40 ms every time it is read: requests spread over seconds. */
class TickingClock extends ManualClock {
  override now(): number {
    this.advance(40);
    return super.now();
  }
}

function musts(report: Report): string[] {
  return report.results.filter((r) => r.outcome === 'failed').map((r) => `${r.id}: ${r.failures[0]?.message}`);
}

async function conformOnBuild(options: SecondServerOptions, clients: number): Promise<Report> {
  const clock = new TickingClock();
  const server = await startSecondServer({ ...SECOND_BAN, ...options, clock });
  try {
    return await runConformance({
      baseUrl: server.baseUrl,
      apiKey: server.keys.pro,
      rateLimitKey: server.keys.free,
      dredd: false,
      clock,
      sleep: async (ms) => clock.advance(ms),
      choices: SECOND_CHOICES,
      seed: SEED,
      clients,
    });
  } finally {
    await server.close();
  }
}

/** The moving builds are new readings: judged at 1, 32 and 128 clients like every correct build (the others are in conformance/concurrent-clients.test.ts). */
const BUILDS: { name: string; options: SecondServerOptions; readings: RegExp[]; clients: number[] }[] = [
  {
    name: 'moving window, Reset when the window is empty, Remaining as of the answer (Flask-Limiter)',
    options: { window: 'moving', remaining: 'answer' },
    readings: [/window: moving window;/, /Reset: the window is fully empty;/, /Remaining: (.* or )?as of the answer/],
    clients: [1, 32, 128],
  },
  {
    name: 'moving window, Reset when the window is empty, Remaining as of the decision',
    options: { window: 'moving' },
    readings: [/window: moving window;/, /Reset: the window is fully empty;/, /Remaining: as of the decision/],
    clients: [1, 32, 128],
  },
  {
    name: 'sliding log, Remaining as of the answer',
    options: { window: 'sliding', remaining: 'answer' },
    readings: [/sliding log/, /Reset: the next slot frees/, /as of the answer/],
    clients: [1, 8],
  },
  {
    name: 'fixed window (the default build)',
    options: {},
    readings: [/fixed windows opened by a key’s first request/, /Reset: the next slot frees/],
    clients: [1, 8],
  },
];

const kit = suite('the kit on second-implementation builds that take other readings');

for (const build of BUILDS) {
  for (const clients of build.clients) {
    kit(`${build.name}, ${clients} client(s): no must fails, and the readings that explained the run are named`, async () => {
      const report = await conformOnBuild(build.options, clients);
      assert.equal(musts(report), []);
      const named = report.choices['rate-limit-readings'] ?? '';
      for (const reading of build.readings) assert.match(named, reading, named);
    });
  }
}

kit.run();
