// The rate-limit checks: what one key's whole history must show (the window, refusal and ban rules of
// spec/rules, under every allowed reading: rate-limit-verdict.ts), and what conform's rate-limit phase
// sends to see it (conformance/checks/rate-limit.ts). The proxy judges live traffic with the same ids.
import { SECTION, type CheckDef } from '../check-def.ts';

const KEY = ['rate-limit-key'] as const;
const BAN = ['rate-limit-key', 'ban-check'] as const;
const { headers: HEADERS, exceeded: EXCEEDED } = SECTION;

export const RATE_LIMIT_CHECKS: readonly CheckDef[] = [
  {
    id: 'ratelimit.limit-constant',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-* are integers on every response, and Limit stays the same through one window',
    needs: KEY,
  },
  {
    id: 'ratelimit.remaining-decrements',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-Remaining falls by exactly one per admitted request, a create as much as a read',
    needs: KEY,
  },
  {
    id: 'ratelimit.reset-future',
    level: 'must',
    profile: 'full',
    section: HEADERS,
    title: 'X-RateLimit-Reset is a Unix time in seconds, in the future, within a day',
    needs: KEY,
  },
  { id: 'ratelimit.reset-stable', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Reset does not move within a window', needs: KEY },
  {
    id: 'ratelimit.exhaustion-exact',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'The first 429 comes exactly after the requests Remaining announced',
    needs: KEY,
  },
  { id: 'ratelimit.429', level: 'must', profile: 'full', section: EXCEEDED, title: '429 carries an Error body, Retry-After and Remaining 0', needs: KEY },
  {
    id: 'ratelimit.retry-after-valid',
    level: 'must',
    profile: 'full',
    section: `${EXCEEDED}; RFC 9110 §10.2.3`,
    title: 'Retry-After is delay-seconds or an HTTP-date',
    needs: KEY,
  },
  {
    id: 'ratelimit.retry-after-consistent',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'The moment Retry-After names is the moment X-RateLimit-Reset names',
    needs: KEY,
  },
  {
    id: 'ratelimit.retry-after-integer',
    level: 'should',
    profile: 'full',
    section: EXCEEDED,
    title: 'Retry-After is integer delay-seconds, at least 1',
    needs: KEY,
  },
  {
    id: 'ratelimit.429-no-store',
    level: 'should',
    profile: 'full',
    section: `${EXCEEDED}; RFC 6585 §4`,
    title: '429 carries Cache-Control: no-store',
    needs: KEY,
  },
  { id: 'ratelimit.readmitted', level: 'must', profile: 'full', section: EXCEEDED, title: 'After waiting Retry-After, the key is admitted again', needs: KEY },
  {
    id: 'ratelimit.refused-until-retry',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'Requests repeated after a 429 stay refused, each with a valid Retry-After',
    needs: BAN,
  },
  {
    id: 'ratelimit.ban-lifts',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'A temporary ban, if one is imposed, is announced by Retry-After and lifts when it says',
    needs: BAN,
  },
  {
    id: 'ratelimit.refused-not-applied',
    level: 'must',
    profile: 'full',
    section: EXCEEDED,
    title: 'A create refused over the limit stores nothing: its pet is neither in the list nor behind an id the refusal named, once the key is admitted again',
    needs: KEY,
  },
  {
    id: 'ratelimit.per-key',
    level: 'must',
    profile: 'full',
    section: `${SECTION.plans}; ${SECTION.auth}`,
    title:
      "Limits apply per key: while --rate-limit-key is refused, --api-key from the same address is still admitted, and within one window neither key's Remaining fell by the other key's requests",
    needs: KEY,
  },
];

/** The rate-limit checks as one scope of a ledger: conform's phase and the proxy's key state record into it. */
export const rateLimitChecks = { name: 'rate limits', checks: RATE_LIMIT_CHECKS } as const;
