// firstAdmitted: each way the rate-limit key's first answer leaves the rate-limit checks unjudged, and
// the one refusal that is waited out (its Retry-After within --max-wait), from a table of answers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Exchange } from '../../judge/exchange.ts';
import type { AreaContext } from './area.ts';
import { firstAdmitted } from './rate-limit-start.ts';

const NOW = 1_767_225_600_000;

function answer(status: number, headers: Record<string, string>): Exchange {
  const body = status === 429 ? '{"code":"rate_limited","message":"Too many requests.","status":429}' : '[]';
  return {
    purpose: 'rate-limit key',
    request: { method: 'GET', url: 'http://x/v1/pets?limit=1', headers: {} },
    response: { status, headers, body },
    sentAt: NOW,
    receivedAt: NOW,
  } as unknown as Exchange;
}

const window = (remaining: number) => ({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': String(remaining), 'x-ratelimit-reset': String(NOW / 1000 + 30) });
const admitted = answer(200, window(59));
const refusedFor = (retryAfter: string | undefined) => answer(429, { ...window(0), ...(retryAfter === undefined ? {} : { 'retry-after': retryAfter }) });

interface Case {
  answers: Exchange[];
  options?: { wait?: boolean; maxWaitSeconds?: number; maxRateLimitRequests?: number };
  /** The waits asked for, in ms. */
  waits: number[];
  /** The unjudged reason, or undefined when the key's admitted answer comes back. */
  unjudged?: RegExp;
}

const cases: Array<[string, Case]> = [
  ['admitted at once', { answers: [admitted], waits: [] }],
  ['refused within --max-wait: waited out, then admitted', { answers: [refusedFor('30'), admitted], waits: [30_000] }],
  // Retry-After truncated or rounded to the nearest second (readings retry_after.*): asked once more a second later.
  ['refused again within a second after the wait, then admitted', { answers: [refusedFor('29'), refusedFor('1'), admitted], waits: [29_000, 1_000] }],
  [
    'refused again for longer than a second after the wait',
    { answers: [refusedFor('29'), refusedFor('2')], waits: [29_000], unjudged: /is not admitted: GET \S+ answered 429/ },
  ],
  [
    'refused longer than --max-wait',
    {
      answers: [refusedFor('600')],
      waits: [],
      unjudged: /answered 429 \(rate_limited: Too many requests\.\), Retry-After 600\) for 600 s more, longer than --max-wait 120/,
    },
  ],
  ['refused with --no-wait', { answers: [refusedFor('30')], options: { wait: false }, waits: [], unjudged: /--no-wait keeps the kit from waiting/ }],
  ['refused without a Retry-After', { answers: [refusedFor(undefined)], waits: [], unjudged: /without a usable Retry-After/ }],
  ['still refused after the wait', { answers: [refusedFor('30'), refusedFor('30')], waits: [30_000], unjudged: /is not admitted: GET \S+ answered 429/ }],
  ['admitted without integer headers', { answers: [answer(200, {})], waits: [], unjudged: /lacks integer X-RateLimit-Limit\/Remaining/ }],
  [
    'Remaining above --max-rate-limit-requests',
    { answers: [admitted], options: { maxRateLimitRequests: 10 }, waits: [], unjudged: /Remaining is 59, above --max-rate-limit-requests 10/ },
  ],
];

for (const [name, c] of cases) {
  test(`firstAdmitted: ${name}`, async () => {
    const waits: number[] = [];
    const answers = [...c.answers];
    const ctx = {
      facts: {},
      ledger: { note: () => {} },
      progress: () => {},
      wait: async (ms: number) => void waits.push(ms),
      options: { wait: true, maxWaitSeconds: 120, maxRateLimitRequests: 1000, dateHeader: false, clockToleranceSeconds: 2, ...c.options },
    } as unknown as AreaContext;
    const got = await firstAdmitted(ctx, async () => answers.shift()!);
    assert.equal(waits, c.waits);
    assert.is(answers.length, 0, 'every answer of the table was asked for');
    if (c.unjudged === undefined) assert.is(got, c.answers.at(-1));
    else assert.match('unjudged' in got ? got.unjudged : 'admitted', c.unjudged);
  });
}

test.run();
