// The window rules hold for any arrival order and any window algorithm they accept: real traffic of
// 1, 32 and 128 concurrent clients on one key, recorded from the reference server, the second
// implementation's fixed and sliding builds and its racy build, is played through the rules in
// many shuffled orders, each wave as one batch (as the kit and k6 send it) and as one stream whose
// answers arrive in any order (as the judging proxy sees it). The correct builds break no must rule
// in any order; the racy build breaks one in every order as soon as two clients overlap.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, ManualClock } from '../../server/index.ts';
import { startSecondServer, type SecondServerOptions } from '../../conformance/testing/second-server/index.ts';
import { createArrivalBuffer } from './arrival.js';
import { readSnapshot, type Snapshot } from '../../spec/rules/snapshot.js';
import { recordTraffic, shuffled, type Wave } from '../../spec/rules/testing/traffic.ts';
import { createWindowRules, type Violation } from './window-rules.js';

type Build = { name: string; start(clock: ManualClock): Promise<{ baseUrl: string; key: string; limit: number; close(): Promise<void> }> };

const second = (name: string, options: SecondServerOptions): Build => ({
  name,
  start: async (clock) => {
    const server = await startSecondServer({ clock, banAfter: 5, banSeconds: 30, ...options });
    return { baseUrl: server.baseUrl, key: server.keys.free, limit: 60, close: () => server.close() };
  },
});

const CORRECT: Build[] = [
  {
    name: 'reference server',
    start: async (clock) => {
      const server = await createServer({ host: '127.0.0.1', port: 0, storage: { type: 'memory' }, logger: false, clock });
      await server.start();
      return { baseUrl: `${server.info.uri}/v1`, key: 'test-free-key', limit: 60, close: () => server.stop({ timeout: 1000 }) };
    },
  },
  second('second implementation, fixed windows', { window: 'fixed' }),
  second('second implementation, sliding windows', { window: 'sliding' }),
];
const RACY = second('second implementation, racy limiter', { race: { limiter: true } });

const CLIENTS = [1, 32, 128];
const ORDERS = 12;

async function record(build: Build, clients: number): Promise<Wave[]> {
  const clock = new ManualClock(Date.UTC(2030, 0, 1, 0, 0, 7));
  const target = await build.start(clock);
  try {
    // Long enough for several windows whoever bans (the reference for 600 s); 128 clients wait 85 s a wave.
    return await recordTraffic({ baseUrl: target.baseUrl, key: target.key, clock, clients, limit: target.limit, seconds: 900 });
  } finally {
    await target.close();
  }
}

/** The test servers run on a manual clock: the Date header is not theirs, the recorded times are. */
const snapshot = (r: Wave[number]): Snapshot => readSnapshot(r, { dateHeader: false });

const mustOnly = (violations: Violation[]) => violations.filter((v) => v.level === 'must');

/** Each wave one batch, its answers in a shuffled order. */
function asBatches(waves: Wave[], seed: number): Violation[] {
  const rules = createWindowRules();
  return waves.flatMap((wave, i) => mustOnly(rules.observe(shuffled(wave, seed + i).map(snapshot)).violations));
}

/** Every answer of the run in one shuffled stream, through the arrival buffer; nothing pending at the end. */
function asStream(waves: Wave[], seed: number): Violation[] {
  const rules = createWindowRules();
  const buffer = createArrivalBuffer();
  for (const r of shuffled(waves.flat(), seed)) buffer.offer(snapshot(r));
  return mustOnly(rules.observe(buffer.release(null)).violations);
}

/**
 * As the proxy hears it: answers arrive shuffled within their wave, and after each one the buffer
 * releases what the wave's still-pending requests can no longer precede.
 */
function asProxy(waves: Wave[], seed: number): Violation[] {
  const rules = createWindowRules();
  const buffer = createArrivalBuffer();
  const found: Violation[] = [];
  waves.forEach((wave, i) => {
    const arrived = shuffled(wave, seed + i);
    arrived.forEach((r, k) => {
      buffer.offer(snapshot(r));
      const pending = arrived.slice(k + 1).map((p) => p.sentAtMs ?? p.receivedAtMs);
      found.push(...mustOnly(rules.observe(buffer.release(pending.length > 0 ? Math.min(...pending) : null)).violations));
    });
  });
  return found;
}

const describe = (violations: Violation[]) => violations.slice(0, 3).map((v) => `${v.kind}: ${v.detail}`);

for (const build of [...CORRECT, RACY]) {
  const t = suite(build.name);
  for (const clients of CLIENTS) {
    // One client never overlaps two requests: the racy build is then as correct as the others.
    const racy = build === RACY && clients > 1;
    t(
      `${clients} concurrent client(s): ${racy ? 'a must rule broken' : 'no must rule broken'} in ${ORDERS} shuffled orders, as batches, as a stream and as the proxy hears it`,
      async () => {
        const waves = await record(build, clients);
        const answers = waves.flat();
        const admitted = answers.filter((r) => r.status === 200).length;
        const refused = answers.filter((r) => r.status === 429 || r.status === 403).length;
        if (build !== RACY)
          assert.ok(admitted >= 2 * 60 && refused > 0, `the traffic saturated at least two windows of 60 (${admitted} admitted, ${refused} refused)`);
        let orders = 0;
        let broken = 0;
        for (let seed = 1; seed <= ORDERS; seed++) {
          for (const play of [asBatches, asStream, asProxy]) {
            const violations = play(waves, seed * 7919);
            orders++;
            if (violations.length > 0) broken++;
            if (racy) assert.ok(violations.length > 0, `${play.name}, seed ${seed}: the racy limiter passed`);
            else assert.equal(describe(violations), [], `${play.name}, seed ${seed}`);
          }
        }
        console.log(
          `${build.name}, ${clients} client(s): ${answers.length} answers (${admitted} admitted, ${refused} refused), ${broken} of ${orders} orders with a must finding`,
        );
      },
    );
  }
  t.run();
}
