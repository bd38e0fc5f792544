// The rate-limit phase against implementations that take a reading the specification allows (it
// passes), or that no reading explains (the check that promises what broke fails, in words that
// name the cause); and the burst's findings under the burst's check. Runs on a manual clock.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../../judge/exchange.ts';
import type { CheckLedger } from '../../judge/ledger.ts';
import type { Report } from '../run.ts';
import { FLAWS } from '../testing/flaws/catalogue.ts';
import { conformOn, startTarget, type Implementation } from '../testing/flaws/harness.ts';
import type { FlawBehaviour } from '../testing/flaws/proxy.ts';
import { parseRetryAfter } from '../../spec/rules/fields.js';
import { banNotWaited, burstApart } from './rate-limit.ts';
import type { AreaContext } from './area.ts';
import { choicesArea } from './choices.ts';

const result = (report: Report, id: string) => report.results.find((r) => r.id === id)!;
const flaw = (id: string) => FLAWS.find((f) => f.id === id)!;

async function run(behaviour: FlawBehaviour | undefined, implementation: Implementation, options: Parameters<typeof conformOn>[1]): Promise<Report> {
  const target = await startTarget(behaviour, implementation);
  try {
    return await conformOn(target, { rateLimitKey: true, phases: [], ...options });
  } finally {
    await target.stop();
  }
}

/** Retry-After as int(Reset − now): one second less than the reference's rounded-up wait, never below 0. */
const truncated: FlawBehaviour = {
  response: (res) => {
    const retry = parseRetryAfter(res.headers['retry-after'], Date.now());
    if (res.status !== 429 || retry.form !== 'delay-seconds') return res;
    return { ...res, headers: { ...res.headers, 'retry-after': String(Math.max(0, retry.seconds - 1)) } };
  },
};

const readings = suite('readings of Retry-After and of a ban');

readings('Retry-After truncated (reading retry_after.truncated): readmitted, every must check passes, and the reading is named', async () => {
  const report = await run(truncated, 'reference', { banCheck: true, maxWaitSeconds: 900 });
  assert.is(result(report, 'ratelimit.readmitted').outcome, 'passed');
  assert.is(result(report, 'ratelimit.ban-lifts').outcome, 'passed');
  assert.is(report.exitCode, 0, JSON.stringify(report.results.filter((r) => r.outcome === 'failed').map((r) => [r.id, r.failures[0]?.message])));
  // On a manual clock the run reads no Date header as the server's clock: the rounding cannot be told (below, it can).
  assert.match(report.choices['retry-after'] ?? 'none', /^seconds: \d+$/);
});

readings('What the target chose names the rounding readings every refusal agreed with, read against Reset and Date', () => {
  const ctx = { facts: { choices: new Map<string, string>() }, options: { dateHeader: true } } as unknown as AreaContext;
  const at = Date.UTC(2027, 0, 1, 0, 0, 4);
  const refusal = (retryAfter: string) =>
    ({
      purpose: 'rate-limit request 4',
      request: { method: 'GET', url: 'http://x/v1/pets', headers: {} },
      response: {
        status: 429,
        headers: {
          date: new Date(at).toUTCString(),
          'retry-after': retryAfter,
          'x-ratelimit-limit': '3',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(at / 1000 + 56),
        },
        body: '',
      },
      sentAt: at + 100,
      receivedAt: at + 250,
    }) as unknown as Exchange;
  choicesArea.inspect!(refusal('56'), ctx);
  assert.is(
    ctx.facts.choices!.get('retry-after'),
    'seconds: 56; read as whole seconds rounded up, or whole seconds rounded to the nearest, or whole seconds truncated, int(Reset − now) (reading retry_after.rounded-up, reading retry_after.nearest, reading retry_after.truncated)',
  );
  choicesArea.inspect!(refusal('55'), ctx);
  assert.match(ctx.facts.choices!.get('retry-after')!, /^seconds: 55; read as .* \(reading retry_after\.nearest, reading retry_after\.truncated\)$/);
  choicesArea.inspect!(refusal('600'), ctx);
  assert.match(
    ctx.facts.choices!.get('retry-after')!,
    /^seconds: 600; read as .* \(reading retry_after\.nearest, reading retry_after\.truncated\)$/,
    'a ban’s wait says nothing of rounding',
  );
});

readings('Retry-After 2 s short: no reading explains it, ratelimit.readmitted fails', async () => {
  const report = await run(flaw('retry-after-short'), 'reference', {});
  const readmitted = result(report, 'ratelimit.readmitted');
  assert.is(readmitted.outcome, 'failed');
  assert.match(readmitted.failures[0]!.message, /sent 1 s after every Retry-After had passed, and refused/);
});

const BANS: Array<[Implementation, string, RegExp]> = [
  [
    'reference',
    '429',
    /^a ban answered 429 \(ban\.status-429\); a ban after any number of repeated refusals \(ban\.threshold\); a ban of any length \(ban\.length\); during a ban, X-RateLimit-Reset names the ban’s end \(ban\.reset-ban-end\)$/,
  ],
  ['second', '403', /^a ban answered 403 \(ban\.status-403\); .* \(ban\.threshold\); .* \(ban\.length\); .* \(ban\.reset-(ban|window)-end\)$/],
];
for (const [implementation, status, named] of BANS) {
  readings(`the ${implementation} implementation's ban is named by its readings: status, threshold, length`, async () => {
    const report = await run(undefined, implementation, { banCheck: true, maxWaitSeconds: 900 });
    assert.is(result(report, 'ratelimit.ban-lifts').outcome, 'passed');
    assert.is(report.choices['ban-status'], status);
    assert.match(report.choices['ban-readings'] ?? '', named);
    assert.match(report.choices['ban-threshold'] ?? '', /^after \d+ refusals: the first 429 and \d+ repeated after it, the last at rate-limit request \d+$/);
    assert.match(report.choices['ban-length'] ?? '', /^\d+ s, past the window's end$/);
  });
}

const messages = suite('messages that point at the cause');

messages('a ban of 403s without Retry-After fails ratelimit.refused-until-retry, and ban-lifts says a ban was seen, never a bare "not run"', async () => {
  const report = await run(flaw('ban-without-retry-after'), 'second', { banCheck: true, maxWaitSeconds: 900 });
  const promise = result(report, 'ratelimit.refused-until-retry');
  assert.is(promise.outcome, 'failed');
  assert.match(promise.failures[0]!.message, /^a 403 repeated after a 429: it carries no Retry-After, so a client cannot tell when to retry/);
  assert.ok((promise.failures[0]!.sameCause?.length ?? 0) > 0, 'the other refusals join the first, counted');
  assert.ok(
    promise.notes.some((n) => /^\d+ of the \d+ refusals repeated after the first 429 carried no Retry-After, the first at rate-limit request \d+ /.test(n)),
    promise.notes.join('\n'),
  );
  for (const id of ['ratelimit.ban-lifts', 'ratelimit.readmitted']) {
    const r = result(report, id);
    assert.is(r.outcome, 'not-run');
    assert.match(
      r.reason ?? '',
      /^could not judge: a ban was imposed at rate-limit request \d+ \(GET \S+ answered 403 .*announced without a Retry-After naming its end/,
    );
  }
});

messages('429s of a ban without Retry-After: ratelimit.429 and refused-until-retry fail; ban-lifts cannot tell, and says why', async () => {
  const report = await run(flaw('ban-without-retry-after'), 'reference', { banCheck: true, maxWaitSeconds: 900 });
  const tooMany = result(report, 'ratelimit.429');
  assert.is(tooMany.outcome, 'failed');
  assert.ok(
    tooMany.notes.some((n) => /^\d+ of the \d+ 429s carried no Retry-After, the first at rate-limit request \d+ \(GET /.test(n)),
    tooMany.notes.join('\n'),
  );
  assert.match(result(report, 'ratelimit.refused-until-retry').failures[0]!.message, /^a 429 repeated after a 429: it carries no Retry-After/);
  const lifts = result(report, 'ratelimit.ban-lifts');
  assert.is(lifts.outcome, 'not-run');
  assert.match(
    lifts.reason ?? '',
    /^could not judge: \d+ of the \d+ refusals repeated after the first 429 carried no Retry-After, the first at rate-limit request \d+ .*whether they were a ban/,
  );
});

messages("a racy limiter's burst fails the burst's checks, not the sequential ones", async () => {
  const report = await run(flaw('racy-limiter'), 'reference', { phases: ['concurrency'] });
  const burst = ['concurrency.burst-exact', 'concurrency.burst-remaining-distinct'].map((id) => result(report, id));
  assert.ok(
    burst.some((r) => r.outcome === 'failed'),
    JSON.stringify(burst.map((r) => [r.id, r.outcome, r.reason])),
  );
  for (const id of ['ratelimit.exhaustion-exact', 'ratelimit.remaining-decrements', 'ratelimit.429']) {
    const r = result(report, id);
    assert.ok(r.outcome !== 'failed', `${id}: ${r.failures.map((f) => f.message).join('; ')}`);
  }
});

/** A ledger that records what reaches it. */
function recording(): { ledger: CheckLedger; failed: string[] } {
  const failed: string[] = [];
  const ledger = {
    pass: () => {},
    fail: (id: string, message: string) => void failed.push(`${id}: ${message}`),
    assert: () => true,
    notRun: () => {},
    unjudged: () => {},
    note: () => {},
    hasFailed: () => false,
  } as CheckLedger;
  return { ledger, failed };
}

const exchange = (phase?: string) => ({ seq: 1, purpose: 'rate-limit request 64', ...(phase ? { phase } : {}) }) as unknown as Exchange;

messages('burstApart: a burst rule broken by an answer of the burst is left to the burst checks; everything else goes through', () => {
  const { ledger, failed } = recording();
  const apart = burstApart(ledger);
  apart.fail('ratelimit.exhaustion-exact', 'over', [exchange('concurrency')], 'over_admitted');
  apart.fail('ratelimit.remaining-decrements', 'repeated', [exchange(), exchange('concurrency')], 'remaining_not_decremented');
  apart.fail('ratelimit.exhaustion-exact', 'sequential', [exchange()], 'over_admitted');
  apart.fail('ratelimit.429', 'no Retry-After', [exchange('concurrency')], 'retry_after_missing');
  assert.equal(failed, ['ratelimit.exhaustion-exact: sequential', 'ratelimit.429: no Retry-After']);
});

messages('banNotWaited: names the request that imposed the ban and why the run did not wait', () => {
  const ex = {
    purpose: 'rate-limit request 64',
    request: { method: 'GET', url: 'http://x/v1/pets?limit=1', headers: {} },
    response: { status: 429, headers: { 'retry-after': '600' }, body: '{"code":"key_banned","message":"Banned.","status":429}' },
  } as unknown as Exchange;
  assert.is(
    banNotWaited({ ex }, { reason: 'waiting for Retry-After was disabled (--no-wait)', unjudged: false }),
    'a ban was imposed at rate-limit request 64 (GET http://x/v1/pets?limit=1 answered 429 (key_banned: Banned.), Retry-After 600); the run did not wait for it to lift: waiting for Retry-After was disabled (--no-wait)',
  );
  assert.match(banNotWaited({ ex }), /^a ban was imposed at rate-limit request 64 .*announced without a Retry-After naming its end/);
});

readings.run();
messages.run();
