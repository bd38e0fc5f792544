// A run the target refused never conforms: a check that was asked for (by its profile or an option)
// and could not judge because the target refused a request it needed (a ban, a spent key) makes the
// run exit 2, COULD NOT JUDGE, in the words of the answer (status, Error code, Retry-After). A check
// the user chose to skip (--no-wait) stays a plain "not run".
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { main } from './cli.ts';
import type { Report } from './run.ts';
import { conformOn, startTarget, type Target } from './testing/flaws/harness.ts';
import type { FlawBehaviour, ProxyRequest, ProxyResponse } from './testing/flaws/proxy.ts';

const refused = suite('refused by the target');

async function on<T>(flaw: FlawBehaviour | undefined, run: (target: Target) => Promise<T>): Promise<T> {
  const target = await startTarget(flaw);
  try {
    return await run(target);
  } finally {
    await target.stop();
  }
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t) }, out, err };
}

const result = (report: Report, id: string) => report.results.find((r) => r.id === id)!;

/** Another client of the free key: from its second request through the proxy on, it has used the key up and got it banned. */
const bannedAfterPreflight: FlawBehaviour = {
  request: async (req, { memory, forward }) => {
    if (req.headers.authorization !== 'Bearer test-free-key') return req;
    const seen = ((memory.get('seen') as number | undefined) ?? 0) + 1;
    memory.set('seen', seen);
    if (seen === 2) for (let i = 0; i < 80; i++) await forward({ ...req, url: '/v1/pets?limit=1', method: 'GET', body: '' });
    return req;
  },
};

refused('a --rate-limit-key banned after the preflight admitted it: exit 2, COULD NOT JUDGE, naming key_banned and Retry-After', async () => {
  await on(bannedAfterPreflight, async (target) => {
    const { io, out } = capture();
    const code = await main(
      ['--base-url', target.baseUrl, '--api-key', target.apiKey, '--rate-limit-key', target.rateLimitKey, '--no-dredd', '--phases', 'none'],
      io,
      { clock: target.clock, sleep: async (ms) => target.clock.advance(ms) },
    );
    const text = out.join('');
    assert.is(code, 2, text);
    assert.match(text, /COULD NOT JUDGE \(exit 2\)/);
    assert.not.match(text, /CONFORMS \(exit 0\)/);
    assert.match(
      text,
      /could not judge: the --rate-limit-key is refused \(GET \S+\/v1\/pets\?limit=1 answered 429 \(key_banned: .*\), Retry-After 600\) for 600 s more, longer than --max-wait 120: .*ratelimit\.exhaustion-exact/,
    );
    // The preflight saw the key admitted: its refusal now is a finding, told as the target told it.
    assert.match(
      text,
      /finding: the --rate-limit-key, admitted by the preflight, was refused by the next request the run sent with it \(GET .* answered 429 \(key_banned/,
    );
    assert.not.match(text, /the address\?/);
  });
});

/** Answers every create of the concurrency phase (named "-at-once-" and "-while-listing-") with the key's 429, as a limiter that refuses them would. */
const refusesConcurrentCreates: FlawBehaviour = {
  request: async (req: ProxyRequest, { forward }): Promise<ProxyRequest | ProxyResponse> => {
    if (req.method !== 'POST' || !/-(at-once|while-listing)-/.test(req.body)) return req;
    const window = await forward({ ...req, method: 'GET', url: '/v1/pets?limit=1', body: '' });
    return {
      status: 429,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'x-ratelimit-limit': window.headers['x-ratelimit-limit']!,
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': window.headers['x-ratelimit-reset']!,
        'retry-after': '1',
        'cache-control': 'no-store',
      },
      body: JSON.stringify({ code: 'rate_limited_minute', message: 'Rate limit exceeded.', status: 429 }),
    };
  },
};

refused('creates sent at once, all refused with 429: the concurrency checks could not judge, and the run exits 2', async () => {
  await on(refusesConcurrentCreates, async (target) => {
    const report = await conformOn(target, { phases: ['concurrency'] });
    const distinct = result(report, 'concurrency.creates-distinct');
    assert.equal([distinct.outcome, distinct.unjudged], ['not-run', 1]);
    assert.match(
      distinct.reason!,
      /^could not judge: fewer than two of the \d+ creates sent at once were answered 201 .*: the target refused it: POST \S+ answered 429 \(rate_limited_minute: Rate limit exceeded\.\), Retry-After 1$/,
    );
    assert.equal(result(report, 'concurrency.creates-kept').unjudged, 1);
    assert.equal(
      report.results.filter((r) => r.outcome === 'failed').map((r) => `${r.id}: ${r.failures[0]?.message}`),
      [],
    );
    assert.is(report.exitCode, 2);
  });
});

// The ban check gets the reference's key banned for 600 s: past --max-wait, re-admission was asked
// for and cannot be seen (exit 2); with --no-wait the user chose not to see it (not run, exit 0).
// The ban seen is named in ratelimit.ban-lifts whenever the run did not see it lift: never a bare "not run".
const BAN_AT =
  'a ban was imposed at rate-limit request \\d+ \\(GET \\S+ answered 429 \\(key_banned: .*\\), Retry-After 600\\); the run did not wait for it to lift: ';
const BAN_WAITS: Array<[string, { maxWaitSeconds?: number; wait?: boolean }, { exit: number; readmitted: RegExp; unjudged?: number; lifts: RegExp }]> = [
  [
    'past --max-wait',
    {},
    {
      exit: 2,
      unjudged: 1,
      readmitted: /^could not judge: Retry-After asks for 60\d s, above --max-wait 120 \(raise it to judge this\)$/,
      lifts: new RegExp(`^could not judge: ${BAN_AT}Retry-After asks for 60\\d s, above --max-wait 120 \\(raise it to judge this\\)$`),
    },
  ],
  [
    'with --no-wait',
    { wait: false },
    {
      exit: 0,
      readmitted: /^waiting for Retry-After was disabled \(--no-wait\)$/,
      lifts: new RegExp(`^${BAN_AT}waiting for Retry-After was disabled \\(--no-wait\\)$`),
    },
  ],
  ['within --max-wait', { maxWaitSeconds: 700 }, { exit: 0, readmitted: /^$/, lifts: /^$/ }],
];
for (const [what, options, expected] of BAN_WAITS) {
  refused(`--ban-check with a 600 s ban, ${what}: exit ${expected.exit}`, async () => {
    await on(undefined, async (target) => {
      const report = await conformOn(target, { rateLimitKey: true, banCheck: true, banProbes: 25, phases: [], strict: true, ...options });
      const readmitted = result(report, 'ratelimit.readmitted');
      assert.match(readmitted.reason ?? '', expected.readmitted);
      assert.is(readmitted.unjudged, expected.unjudged);
      const lifts = result(report, 'ratelimit.ban-lifts');
      assert.match(lifts.reason ?? '', expected.lifts);
      assert.is(lifts.outcome, expected.lifts.source === '^$' ? 'passed' : 'not-run');
      assert.is(report.exitCode, expected.exit, JSON.stringify(report.results.filter((r) => r.outcome === 'failed').map((r) => r.id)));
    });
  });
}

refused.run();
