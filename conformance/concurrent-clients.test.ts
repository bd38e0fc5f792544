// conform with --clients 1, 32 and 128: no finding on a correct server (the reference, and the second
// implementation with a fixed and with a sliding window), a finding on a racy limiter; and the
// requests --clients asks for are really in flight together at the target, never more.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Report } from './run.ts';
import { conformOn, outcomeOf, startTarget, type Target } from './testing/flaws/harness.ts';
import type { FlawBehaviour, ProxyRequest } from './testing/flaws/proxy.ts';
import type { SecondServerOptions } from './testing/second-server/index.ts';

const SEED = 20_260_214;
const CLIENTS = [1, 32, 128];
/**
 * Real time the first wave's creates are held at the target for the rest of the wave to arrive: a
 * wave that gathers is released at once, so only one that never can (fewer connections than
 * --clients) waits this long; a busy machine gathers it later, never not at all.
 */
const GATHER_MS = 30_000;

/**
 * A pass-through proxy that counts each key's requests in flight at the target, and holds the
 * concurrency phase's first wave of creates until `wave` of them are there together (at most
 * GATHER_MS): with fewer connections than --clients, the rest of the wave could not arrive.
 */
function watcher(wave: number) {
  const inFlight = new Map<string, number>();
  const most = new Map<string, number>();
  let held: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  let holding = wave > 1;
  let gathered = false;
  const release = () => {
    clearTimeout(timer);
    holding = false;
    for (const go of held) go();
    held = [];
  };
  const behaviour: FlawBehaviour = {
    request: (req) => {
      const key = req.headers.authorization ?? '';
      const n = (inFlight.get(key) ?? 0) + 1;
      inFlight.set(key, n);
      most.set(key, Math.max(most.get(key) ?? 0, n));
      if (!holding || !req.body.includes('-at-once-')) return req;
      return new Promise<ProxyRequest>((resolve) => {
        held.push(() => resolve(req));
        if (held.length === 1) timer = setTimeout(release, GATHER_MS);
        if (held.length === wave) {
          gathered = true;
          release();
        }
      });
    },
    response: (res, req) => {
      const key = req.headers.authorization ?? '';
      inFlight.set(key, (inFlight.get(key) ?? 1) - 1);
      return res;
    },
  };
  return { behaviour, most: (key: string) => most.get(`Bearer ${key}`) ?? 0, gathered: () => gathered };
}

const failures = (report: Report) =>
  report.results.filter((r) => r.outcome === 'failed').map((r) => `${r.id}: ${r.failures.map((f) => f.message).join(' | ')}`);

// Each request may wait for its wave as long as GATHER_MS: --timeout goes past it.
const run = (target: Target, clients: number) =>
  conformOn(target, { rateLimitKey: true, clients, strict: false, phases: ['concurrency'], seed: SEED, timeoutMs: GATHER_MS + 30_000 });

const correct = suite('correct servers: no finding, whatever --clients');

const SERVERS: Array<[string, 'reference' | 'second', SecondServerOptions]> = [
  ['the reference server', 'reference', {}],
  ["the second implementation's fixed window", 'second', {}],
  ["the second implementation's sliding window", 'second', { window: 'sliding' }],
];

for (const [name, implementation, second] of SERVERS) {
  for (const clients of CLIENTS) {
    correct(`${name}, --clients ${clients}`, async () => {
      const watch = watcher(clients);
      const target = await startTarget(watch.behaviour, implementation, second);
      try {
        const report = await run(target, clients);
        assert.equal(failures(report), [], `--clients ${clients}`);
        assert.is(report.exitCode, 0);
        assert.ok(watch.most(target.apiKey) <= clients, `--api-key had ${watch.most(target.apiKey)} requests in flight`);
        assert.ok(watch.most(target.rateLimitKey) <= clients, `--rate-limit-key had ${watch.most(target.rateLimitKey)} requests in flight`);
        if (clients === 1) {
          for (const r of report.results.filter((x) => x.id.startsWith('concurrency.'))) {
            assert.is(r.outcome, 'not-run', r.id);
            assert.is(r.reason, '--clients 1 sends nothing at once');
          }
          return;
        }
        assert.ok(watch.gathered(), `the ${clients} creates of the first wave were not in flight together within ${GATHER_MS} ms`);
        for (const id of [
          'concurrency.creates-distinct',
          'concurrency.creates-kept',
          'concurrency.reads-whole',
          'concurrency.burst-exact',
          'concurrency.burst-remaining-distinct',
        ])
          assert.is(outcomeOf(report, id), 'passed', id);
      } finally {
        await target.stop();
      }
    });
  }
}

correct.run();

const racy = suite("a limiter that reads and writes its counter apart (the second implementation's racy build) is caught");

for (const clients of [32, 128]) {
  racy(`--clients ${clients}`, async () => {
    const target = await startTarget({ secondBuild: { race: { limiter: true } } }, 'second');
    try {
      const report = await run(target, clients);
      const found = failures(report).filter((f) => f.startsWith('concurrency.'));
      assert.ok(found.length > 0, `no concurrency check failed: ${failures(report).join('\n')}`);
      assert.is(report.exitCode, 1);
    } finally {
      await target.stop();
    }
  });
}

racy.run();
