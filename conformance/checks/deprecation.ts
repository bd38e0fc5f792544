// Deprecation (RFC 9745) and Sunset (RFC 8594) on the deprecated operation, the sunset the
// description announces in x-deprecation, and neither header anywhere else. All should-level:
// the specification states the deprecation and the removal date, not the headers.
import { parseDeprecation, parseSunset } from '../../spec/rules/fields.js';
import type { CheckDef } from '../catalogue.ts';
import type { Exchange } from '../http.ts';
import { SECTION, type InspectContext, type LiveArea } from './area.ts';

const checks: readonly CheckDef[] = [
  {
    id: 'deprecation.header',
    level: 'should',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 9745`,
    title: 'getPet responses carry Deprecation as an RFC 9745 date (@epoch)',
  },
  {
    id: 'deprecation.sunset',
    level: 'should',
    profile: 'full',
    section: `${SECTION.versioning}; RFC 8594`,
    title: 'getPet responses carry Sunset on the removal day the description announces (x-deprecation), not before Deprecation',
  },
  {
    id: 'deprecation.scope',
    level: 'should',
    profile: 'full',
    section: SECTION.versioning,
    title: 'Operations that are not deprecated carry no Deprecation or Sunset',
  },
];

function inspect(ex: Exchange, ctx: InspectContext): void {
  const res = ex.response;
  if (!res || ex.outside || ctx.options.profile !== 'full') return;
  const { ledger } = ctx;
  const op = ctx.contract.operations.get(ex.operationId);
  if (!op?.deprecated) {
    const stray = ['deprecation', 'sunset'].filter((h) => res.headers[h] !== undefined);
    ledger.assert('deprecation.scope', stray.length === 0, `${ex.purpose}: ${ex.operationId} is not deprecated but carries ${stray.join(', ')}`, [ex]);
    return;
  }
  const deprecation = res.headers.deprecation;
  const deprecatedAt = parseDeprecation(deprecation);
  const what = deprecation === undefined ? 'missing' : `${JSON.stringify(deprecation)}, not an RFC 9745 date (@<epoch seconds>)`;
  ledger.assert('deprecation.header', deprecatedAt !== null, `${ex.purpose} (${res.status}): Deprecation is ${what}`, [ex]);
  const sunset = res.headers.sunset;
  const sunsetAt = parseSunset(sunset, ex.receivedAt);
  // The removal day comes from the description; any time on that day (UTC) will do.
  const announced = op.deprecation?.sunset.slice(0, 10);
  const day = sunsetAt === null ? undefined : new Date(sunsetAt).toISOString().slice(0, 10);
  const dayOk = announced === undefined || day === announced;
  const why =
    sunset === undefined
      ? 'missing'
      : sunsetAt === null
        ? `${JSON.stringify(sunset)}, not an HTTP-date`
        : !dayOk
          ? `${sunset}, not the announced removal day ${announced}`
          : `${sunset}, earlier than Deprecation`;
  ledger.assert(
    'deprecation.sunset',
    sunsetAt !== null && dayOk && (deprecatedAt === null || deprecatedAt <= sunsetAt),
    `${ex.purpose} (${res.status}): Sunset is ${why}`,
    [ex],
  );
}

export const deprecationArea: LiveArea = { name: 'deprecation', checks, inspect };
