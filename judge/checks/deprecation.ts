// Deprecation (RFC 9745) and Sunset (RFC 8594) on the deprecated operation, and neither header
// anywhere else. Sending them is should-level; what a sent one says is must: a date after the
// response says "will be" deprecated (RFC 9745 §2.1) where getPet *is* (conformance/README.md).
import { parseDeprecation, parseHttpDate, parseSunset } from '../../spec/rules/fields.js';
import { DEFAULT_TOLERANCES } from '../../spec/rules/snapshot.js';
import type { Exchange } from '../exchange.ts';
import type { CheckDef } from '../check-def.ts';
import { SECTION } from '../check-def.ts';
import type { InspectContext, LiveChecks } from './inspect.ts';
import { LOWER_HEADERS } from '../../spec/rules/contract.js';

const checks: readonly CheckDef[] = [
  {
    id: 'deprecation.header',
    level: 'should',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 9745`,
    title: 'getPet responses carry Deprecation as an RFC 9745 date (@epoch)',
  },
  {
    id: 'deprecation.date-past',
    level: 'must',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 9745 §2.1`,
    title:
      'A Deprecation on getPet names a moment not after the response: the specification says getPet is deprecated (Versioning 3), and a later date would say it "will be"',
  },
  {
    id: 'deprecation.sunset',
    level: 'should',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 8594`,
    title: 'getPet responses carry Sunset as an HTTP-date, not before Deprecation',
  },
  {
    id: 'deprecation.sunset-day',
    level: 'must',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 8594 §3`,
    title:
      'A Sunset on getPet names the removal day the specification states (Versioning 3: 5 December 2030, the x-deprecation sunset), at any time that is that day in some time zone (UTC-12 to UTC+14)',
  },
  {
    id: 'deprecation.scope',
    level: 'should',
    profile: 'full',
    section: SECTION.versioning,
    title: 'Operations that are not deprecated carry no Deprecation or Sunset',
  },
];

/**
 * The latest the response can have been made: its Date (to the second) or its receipt with the
 * clocks' tolerance, whichever is later, so that only a date after every reading of "now" fails.
 */
const HOUR_MS = 3_600_000;

function latestNowMs(ex: Exchange): number {
  const { clockSkewSeconds, dateResolutionSeconds, roundingSeconds } = DEFAULT_TOLERANCES;
  const date = parseHttpDate(ex.response?.headers.date, ex.receivedAt);
  const received = ex.receivedAt + (clockSkewSeconds + roundingSeconds) * 1000;
  return date === null ? received : Math.max(received, date + dateResolutionSeconds * 1000);
}

const iso = (ms: number): string => new Date(ms).toISOString().replace('.000Z', 'Z');

function inspect(ex: Exchange, ctx: InspectContext): void {
  const res = ex.response;
  if (!res || ex.outside || ctx.options.profile !== 'full') return;
  const { ledger } = ctx;
  const op = ctx.contract.operations.get(ex.operationId);
  if (!op?.deprecated) {
    const stray = [LOWER_HEADERS.deprecation, LOWER_HEADERS.sunset].filter((h) => res.headers[h] !== undefined);
    ledger.assert('deprecation.scope', stray.length === 0, `${ex.purpose}: ${ex.operationId} is not deprecated but carries ${stray.join(', ')}`, [ex]);
    return;
  }
  const what = `${ex.purpose} (${res.status})`;
  const deprecation = res.headers[LOWER_HEADERS.deprecation];
  const deprecatedAt = parseDeprecation(deprecation);
  const form = deprecation === undefined ? 'missing' : `${JSON.stringify(deprecation)}, not an RFC 9745 date (@<epoch seconds>)`;
  ledger.assert('deprecation.header', deprecatedAt !== null, `${what}: Deprecation is ${form}`, [ex]);
  if (deprecatedAt !== null) {
    const now = latestNowMs(ex);
    ledger.assert(
      'deprecation.date-past',
      deprecatedAt <= now,
      `${what}: Deprecation ${deprecation} names ${iso(deprecatedAt)}, after the response (${iso(now)} at the latest): RFC 9745 reads a future date as "will be deprecated", yet the specification says getPet is deprecated`,
      [ex],
    );
  }
  const sunset = res.headers[LOWER_HEADERS.sunset];
  const sunsetAt = parseSunset(sunset, ex.receivedAt);
  const early = sunsetAt !== null && deprecatedAt !== null && sunsetAt < deprecatedAt;
  const why = sunset === undefined ? 'missing' : sunsetAt === null ? `${JSON.stringify(sunset)}, not an HTTP-date` : `${sunset}, earlier than Deprecation`;
  ledger.assert('deprecation.sunset', sunsetAt !== null && !early, `${what}: Sunset is ${why}`, [ex]);
  // The removal day comes from the description, which names no time zone: any instant that is that
  // day somewhere (UTC-12 to UTC+14) will do.
  const announced = op.deprecation?.sunset.slice(0, 10);
  if (sunsetAt === null || announced === undefined) return;
  const dayStart = Date.parse(`${announced}T00:00:00Z`);
  const onTheDay = sunsetAt >= dayStart - 14 * HOUR_MS && sunsetAt < dayStart + (24 + 12) * HOUR_MS;
  const day = new Date(sunsetAt).toISOString().slice(0, 10);
  ledger.assert('deprecation.sunset-day', onTheDay, `${what}: Sunset ${sunset} names ${day}, not the removal day the specification states (${announced})`, [
    ex,
  ]);
}

export const deprecationChecks: LiveChecks = { name: 'deprecation', checks, inspect };
