// Flaws in the rate limiter: its headers, its enforcement, and Retry-After. They show only when
// the kit exhausts a window (--rate-limit-key), some only when it keeps asking after a 429.
import { formatHttpDate, parseRetryAfter } from '../../../spec/rules/fields.js';
import { isRefusalStatus as isRefusal } from '../../../spec/rules/snapshot.js';
import type { FlawBehaviour, ProxyRequest, ProxyResponse } from './proxy.ts';
import type { Flaw } from './flaw.ts';
import { num, operationOf, remembered, withoutHeaders } from './rewrite.ts';
import { LOWER_HEADERS } from '../../../spec/rules/contract.js';

/**
 * A refusal that asks for a wait well past a minute's window: a ban. A date is compared with
 * X-RateLimit-Reset (the same clock); delay-seconds with the minute (the proxy cannot know the
 * implementation's clock, which tests move).
 */
function announcesBan(res: ProxyResponse): boolean {
  // A 403 among the refusals is a ban whatever it says (the second implementation's choice).
  if (res.status === 403) return true;
  const retry = parseRetryAfter(res.headers['retry-after'], Date.now());
  if (retry.form === 'delay-seconds') return retry.seconds > 90;
  const reset = num(res, LOWER_HEADERS.rateLimitReset);
  return retry.form === 'http-date' && reset !== undefined && retry.atMs / 1000 > reset + 60;
}

/** A key's window as remaining-shared-by-address sees it: its Reset, the requests counted of every key when it began, and its own since. */
interface SharedWindow {
  reset: string | undefined;
  since: number;
  own: number;
}

/** The refused request of a key at which the deep-ban flaw announces its ban: deeper than the 10 probes the ban check once sent. */
const DEEP_BAN = 15;

/** Retry-After moved `seconds` later, in the form it was sent. */
function later(retryAfter: string, seconds: number): string {
  const parsed = parseRetryAfter(retryAfter, Date.now());
  if (parsed.form === 'http-date') return formatHttpDate(parsed.atMs + seconds * 1000);
  return String(Number(retryAfter) + seconds);
}

export const RATE_LIMIT_FLAWS: readonly Flaw[] = [
  {
    id: 'no-rate-limit-headers',
    area: 'rate-limit headers',
    description: 'Responses lack X-RateLimit-Limit/Remaining/Reset',
    caughtBy: 'headers.rate-limit',
    response: (res) => withoutHeaders(res, LOWER_HEADERS.rateLimitLimit, LOWER_HEADERS.rateLimitRemaining, LOWER_HEADERS.rateLimitReset),
  },
  {
    // One header missing from every answer fails a dozen checks that validate answers: one cause (causes.test.ts).
    id: 'no-rate-limit-reset',
    area: 'rate-limit headers',
    description: 'Responses lack X-RateLimit-Reset',
    caughtBy: 'headers.rate-limit',
    response: (res) => withoutHeaders(res, LOWER_HEADERS.rateLimitReset),
  },
  {
    id: 'ietf-fields-malformed',
    area: 'rate-limit headers',
    description: 'RateLimit is not a structured field ("minute=12")',
    caughtBy: 'ratelimit.ietf-fields',
    response: (res) =>
      res.headers[LOWER_HEADERS.rateLimit]
        ? { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimit]: `minute=${res.headers[LOWER_HEADERS.rateLimitRemaining] ?? 0}` } }
        : res,
  },
  {
    id: 'limit-varies',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Limit changes from one response to the next',
    caughtBy: 'ratelimit.limit-constant',
    response: (res, _req, { count }) => {
      const limit = num(res, LOWER_HEADERS.rateLimitLimit);
      return limit === undefined || count % 7 !== 0 ? res : { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitLimit]: String(limit + 1) } };
    },
  },
  {
    id: 'remaining-sticks',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Remaining never falls below the first value sent',
    caughtBy: 'ratelimit.remaining-decrements',
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization ?? '';
      const remaining = num(res, LOWER_HEADERS.rateLimitRemaining);
      if (remaining === undefined || res.status === 429) return res;
      const first = (memory.get(auth) as number | undefined) ?? remaining;
      memory.set(auth, first);
      return { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitRemaining]: String(first) } };
    },
  },
  {
    id: 'reset-moves',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Reset moves forward with every request',
    caughtBy: 'ratelimit.reset-stable',
    response: (res, _req, { count }) => {
      const reset = num(res, LOWER_HEADERS.rateLimitReset);
      return reset === undefined ? res : { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitReset]: String(reset + count) } };
    },
  },
  {
    id: 'reset-in-milliseconds',
    area: 'rate-limit headers',
    description: 'X-RateLimit-Reset is sent in milliseconds',
    caughtBy: 'ratelimit.reset-future',
    response: (res) => {
      const reset = num(res, LOWER_HEADERS.rateLimitReset);
      return reset === undefined ? res : { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitReset]: String(reset * 1000) } };
    },
  },
  {
    id: 'over-admits',
    area: 'rate-limit enforcement',
    description: 'Two requests past the limit are still served',
    caughtBy: 'ratelimit.exhaustion-exact',
    response: (res, _req, { memory }) => {
      const served = (memory.get('served') as number | undefined) ?? 0;
      if (res.status !== 429 || served >= 2) return res;
      memory.set('served', served + 1);
      const headers = withoutHeaders(res, 'retry-after', 'cache-control').headers;
      return { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body: '[]' };
    },
  },
  {
    id: 'serves-during-refusal',
    area: 'rate-limit enforcement',
    description: 'The fifth request repeated after a 429 is served before Retry-After',
    caughtBy: 'ratelimit.refused-until-retry',
    response: (res, _req, { memory }) => {
      if (!isRefusal(res.status)) return res;
      const refusals = ((memory.get('refusals') as number | undefined) ?? 0) + 1;
      memory.set('refusals', refusals);
      return refusals === 6 ? { status: 200, headers: { ...withoutHeaders(res, 'retry-after').headers, 'content-type': 'application/json' }, body: '[]' } : res;
    },
  },
  {
    id: 'ban-never-lifts',
    area: 'rate-limit enforcement',
    description: 'A ban goes on refusing after the Retry-After it announced',
    caughtBy: 'ratelimit.ban-lifts',
    response: (res, _req, { memory }) => {
      if (isRefusal(res.status) && announcesBan(res)) memory.set('banned', res);
      const ban = memory.get('banned') as ProxyResponse | undefined;
      if (res.status === 200 && ban) {
        // The ban's own refusal again, its Retry-After as far ahead as when it was announced.
        const later = parseRetryAfter(ban.headers['retry-after'], Date.now());
        const retryAfter = later.form === 'http-date' ? formatHttpDate(later.atMs + 600_000) : '600';
        return { ...ban, headers: { ...res.headers, ...ban.headers, 'retry-after': retryAfter, [LOWER_HEADERS.rateLimitRemaining]: '0' } };
      }
      return res;
    },
  },
  {
    id: 'limits-per-address',
    area: 'rate-limit enforcement',
    description: 'Limits are counted per client address: while one key is refused, every key from that address is',
    caughtBy: 'ratelimit.per-key',
    // While some key is refused, any other key gets that key's refusal; the refused key's first
    // admission lifts it.
    request: (req, { memory }) => {
      const refused = memory.get('refused') as { auth: string; res: ProxyResponse } | undefined;
      const auth = req.headers.authorization;
      return refused && auth && auth !== refused.auth && /^Bearer /.test(auth) ? refused.res : req;
    },
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization ?? '';
      const refused = memory.get('refused') as { auth: string } | undefined;
      if (isRefusal(res.status)) memory.set('refused', { auth, res });
      else if (refused?.auth === auth && res.status < 300) memory.delete('refused');
      return res;
    },
  },
  {
    id: 'ban-not-enforced',
    area: 'rate-limit enforcement',
    description: 'A ban is announced (Retry-After past the window) but not enforced: the key is served again within a minute',
    caughtBy: 'ratelimit.refused-until-retry',
    // Once a refusal announces a wait past the window's Reset (a ban), the key's requests go to the
    // implementation under another key the kit uses, and come back with the banned key's headers.
    request: (req, { memory }) => {
      const auth = req.headers.authorization;
      const keys = (memory.get('keys') as Set<string> | undefined) ?? new Set<string>();
      memory.set('keys', keys);
      const banned = memory.get('banned') as string | undefined;
      if (auth && banned !== auth) return req;
      const other = [...keys].find((k) => k !== banned);
      return other ? { ...req, headers: { ...req.headers, authorization: other, 'x-flaw-banned': '1' } } : req;
    },
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization ?? '';
      if (res.status < 300 && !req.headers['x-flaw-banned']) (memory.get('keys') as Set<string>).add(auth);
      if (isRefusal(res.status) && announcesBan(res)) memory.set('banned', auth);
      if (!req.headers['x-flaw-banned']) return res;
      const limit = (memory.get('limit') as string | undefined) ?? res.headers[LOWER_HEADERS.rateLimitLimit];
      return { ...res, headers: { ...res.headers, ...(limit ? { [LOWER_HEADERS.rateLimitLimit]: limit } : {}), [LOWER_HEADERS.rateLimitRemaining]: '0' } };
    },
  },
  {
    id: 'create-charged-twice',
    area: 'rate-limit enforcement',
    description: 'A create costs its key two requests of the window (a hidden read of the same key goes first)',
    caughtBy: 'ratelimit.remaining-decrements',
    request: async (req, { forward }) => {
      const authorization = req.headers.authorization;
      if (operationOf(req) === 'createPet' && authorization)
        await forward({ method: 'GET', url: req.url.replace(/\/pets\/?$/, '/pets?limit=1'), headers: { authorization, accept: 'application/json' }, body: '' });
      return req;
    },
  },
  {
    id: 'refused-create-applied-later',
    area: 'rate-limit enforcement',
    description: 'A create refused over the limit is kept, and stored once its key is admitted again',
    caughtBy: 'ratelimit.refused-not-applied',
    // The latest refused create waits; once its key is admitted again, it goes in ahead of the next request.
    request: async (req, { memory, forward }) => {
      const queued = memory.get('queued') as { create: ProxyRequest; due: boolean } | undefined;
      if (queued?.due) {
        memory.delete('queued');
        await forward(queued.create);
      }
      return req;
    },
    response: (res, req, { memory }) => {
      const queued = memory.get('queued') as { create: ProxyRequest; due: boolean } | undefined;
      if (operationOf(req) === 'createPet' && isRefusal(res.status)) memory.set('queued', { create: req, due: false });
      else if (queued && res.status < 300 && req.headers.authorization === queued.create.headers.authorization) queued.due = true;
      return res;
    },
  },
  {
    id: 'remaining-shared-by-address',
    area: 'rate-limit enforcement',
    description: "X-RateLimit-Remaining of a key also counts the other keys' requests from the same address in its window (admission stays per key)",
    caughtBy: 'ratelimit.per-key',
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization;
      // Requests the limiter counted: admitted or refused, with a bearer key (a 401 counts for no key).
      if (!auth || !/^Bearer /.test(auth) || !(res.status < 300 || isRefusal(res.status))) return res;
      // The others' requests in a key's window are all counted since it began less its own: no visit of every key per answer.
      const counted = remembered(memory, 'counted', () => ({ total: 0 }));
      const windows = remembered(memory, 'windows', () => new Map<string, SharedWindow>());
      const reset = res.headers[LOWER_HEADERS.rateLimitReset];
      let own = windows.get(auth);
      if (!own || own.reset !== reset) windows.set(auth, (own = { reset, since: counted.total, own: 0 }));
      counted.total++;
      own.own++;
      const others = counted.total - own.since - own.own;
      const remaining = num(res, LOWER_HEADERS.rateLimitRemaining);
      if (remaining === undefined || others === 0) return res;
      return { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitRemaining]: String(Math.max(0, remaining - others)) } };
    },
  },
  {
    id: 'deep-ban-not-enforced',
    area: 'rate-limit enforcement',
    description: `A ban announced only at the ${DEEP_BAN}th refused request (past the 10 the ban check used to send) is not enforced: the next request is served`,
    caughtBy: 'ratelimit.refused-until-retry',
    response: (res, req, { memory }) => {
      const auth = req.headers.authorization ?? '';
      const refusals = (memory.get(auth) as number | undefined) ?? 0;
      if (refusals === DEEP_BAN) {
        memory.set(auth, refusals + 1);
        return isRefusal(res.status)
          ? { status: 200, headers: { ...withoutHeaders(res, 'retry-after').headers, 'content-type': 'application/json' }, body: '[]' }
          : res;
      }
      if (refusals > DEEP_BAN || !isRefusal(res.status)) return res;
      memory.set(auth, refusals + 1);
      const retryAfter = res.headers['retry-after'];
      // The refusal that reaches the threshold announces a ban: ten minutes past what it said.
      return refusals + 1 === DEEP_BAN && retryAfter ? { ...res, headers: { ...res.headers, 'retry-after': later(retryAfter, 600) } } : res;
    },
  },
  {
    id: 'remaining-not-zero-on-429',
    area: 'rate-limit enforcement',
    description: 'A 429 says one request remains',
    caughtBy: 'ratelimit.429',
    response: (res) => (res.status === 429 ? { ...res, headers: { ...res.headers, [LOWER_HEADERS.rateLimitRemaining]: '1' } } : res),
  },
  {
    id: 'over-limit-403',
    area: 'rate-limit enforcement',
    description: 'A request over the limit is answered 403, not 429',
    caughtBy: 'ratelimit.429',
    response: (res) => (res.status === 429 ? { ...res, status: 403 } : res),
  },
  {
    id: '429-cacheable',
    area: 'rate-limit enforcement',
    description: '429 without Cache-Control: no-store',
    caughtBy: 'ratelimit.429-no-store',
    response: (res) => (res.status === 429 ? withoutHeaders(res, 'cache-control') : res),
  },
  {
    id: 'retry-after-missing',
    area: 'Retry-After',
    description: '429 without Retry-After',
    caughtBy: 'ratelimit.429',
    response: (res) => (res.status === 429 ? withoutHeaders(res, 'retry-after') : res),
  },
  {
    id: 'retry-after-fraction',
    area: 'Retry-After',
    description: 'Retry-After as a fraction of seconds ("41.5")',
    caughtBy: 'ratelimit.retry-after-valid',
    response: (res) =>
      res.status === 429 && res.headers['retry-after']
        ? { ...res, headers: { ...res.headers, 'retry-after': `${Math.max(0, Number(res.headers['retry-after']) - 1)}.5` } }
        : res,
  },
  {
    id: 'retry-after-inconsistent',
    area: 'Retry-After',
    description: 'Retry-After ten minutes past X-RateLimit-Reset',
    caughtBy: 'ratelimit.retry-after-consistent',
    response: (res) =>
      res.status === 429 && res.headers['retry-after'] ? { ...res, headers: { ...res.headers, 'retry-after': later(res.headers['retry-after'], 600) } } : res,
  },
  {
    // Past any reading of rounding (readings retry_after.*): truncation loses less than a second.
    id: 'retry-after-short',
    area: 'Retry-After',
    description: 'Retry-After names a moment before the window reopens: 2 s as delay-seconds, 4 s as an HTTP-date (past the clock skew a date is read with)',
    caughtBy: 'ratelimit.readmitted',
    response: (res) => {
      const retry = parseRetryAfter(res.headers['retry-after'], Date.now());
      if (!isRefusal(res.status) || (retry.form !== 'delay-seconds' && retry.form !== 'http-date')) return res;
      const short = retry.form === 'http-date' ? formatHttpDate(retry.atMs - 4000) : String(Math.max(0, retry.seconds - 2));
      return { ...res, headers: { ...res.headers, 'retry-after': short } };
    },
  },
  {
    id: 'ban-without-retry-after',
    area: 'Retry-After',
    description: 'A ban is answered without Retry-After: nothing tells the client when it may retry',
    caughtBy: 'ratelimit.refused-until-retry',
    response: (res, _req, { memory }) => {
      if (!isRefusal(res.status)) return res;
      if (announcesBan(res)) memory.set('banned', true);
      return memory.get('banned') ? withoutHeaders(res, 'retry-after') : res;
    },
  },
  {
    id: 'retry-after-zero',
    area: 'Retry-After',
    description: 'Retry-After: 0 while the window is still closed',
    caughtBy: 'ratelimit.readmitted',
    response: (res) => (res.status === 429 ? { ...res, headers: { ...res.headers, 'retry-after': '0' } } : res),
  },
];

/** Not a flaw: Retry-After as an HTTP-date is valid RFC 9110, so it must pass (with a should warning). */
export const RETRY_AFTER_AS_DATE: FlawBehaviour = {
  response: (res) => {
    if (res.status !== 429 || !res.headers['retry-after']) return res;
    const reset = Number(res.headers[LOWER_HEADERS.rateLimitReset]);
    return { ...res, headers: { ...res.headers, 'retry-after': formatHttpDate(reset * 1000) } };
  },
};
