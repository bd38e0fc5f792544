// The points the specification leaves open ("not shown"), one by one: what the kit demands of any
// implementation there and at which level, and the choices an implementer may declare (--choice, or
// `choice:` in --config), which the kit then holds the target to at must level (choices.declared).
// The conformance guide's table of open points is generated from this list.
import { UsageError } from '../lib/errors.ts';
import { PET_STATUSES } from '../spec/rules/contract.js';

export interface OpenPoint {
  /** The name an implementer declares it by (--choice <id>=<value>). */
  id: string;
  /** What the specification says, in its words. */
  specification: string;
  /** What the kit requires of every target there, with the level. */
  kit: string;
  /** The values a target may declare; empty when it cannot be declared. */
  values: readonly string[];
}

export const OPEN_POINTS: readonly OpenPoint[] = [
  {
    id: 'paging',
    specification: 'Endpoints › List animals: "Mechanism for fetching further pages (cursor, offset or page parameters, or response headers): not shown."',
    kit: 'Nothing at must. A `Link rel="next"` a page does carry (any parameters) must lead to the next page of `/pets` (`list.next-link`, must); without one the paging checks are not run, with the reason. Declared `link`: a full page with more pets after it must carry one',
    values: ['link', 'none'],
  },
  {
    id: 'order',
    specification: 'Endpoints › List animals: the order of the list is not stated',
    kit: 'Nothing; the kit finds pets by walking pages, never by position. Reported',
    values: [],
  },
  {
    id: 'limit-out-of-range',
    specification:
      'Endpoints › List animals: limit "minimum 1, maximum 100"; the responses are only 200 and 401, and what a value outside the range gets is not shown',
    kit: 'must: refused with a 4xx, or served with no more pets than the value clamped into 1..100 or the default would give (`input.invalid-rejected`); should: 400 with an Error (`list.limit-bounds`, `input.invalid-400`). Declared `clamp`: served with at most the clamped number; `refuse`: a 4xx',
    values: ['refuse', 'clamp'],
  },
  {
    id: 'error-codes',
    specification: 'Errors: "The set of values that `code` takes: not shown."',
    kit: 'must: `code` is a string (`schema.every-response`); the reference codes (`x-decision` enum) at should only (`schema.reference-decisions`). Reported',
    values: [],
  },
  {
    id: 'unknown-fields',
    specification: 'Resources › NewPet lists name, categoryId, status; what a body with other properties gets is not shown',
    kit: 'must: refused with a 4xx, or accepted without storing them: no pet ever carries a property outside Pet (`create.no-extra-properties`), and a client-sent `id` never chooses the id nor overwrites a pet (`create.server-assigns-id`); should: accepted (`input.decision-valid-accepted`)',
    values: ['refuse', 'ignore'],
  },
  {
    id: 'non-integer-id',
    specification: 'Endpoints › Get an animal: petId is "integer int64"; the status for a petId that is not one is not shown',
    kit: 'must: a 4xx (400 or 404), never the resource nor a 5xx (`input.invalid-rejected`)',
    values: ['400', '404'],
  },
  {
    id: 'ban-status',
    specification: 'Limits: "Repeatedly sending requests after a 429 may lead to a temporary ban of the API key." Its status and length: not shown',
    kit: 'must (with --ban-check): every request during an announced ban is refused, 429 or 403 alike (only a 2xx counts as admitted), each refusal repeated after a 429 carries Retry-After, and the ban lifts when its Retry-After said, within the rounding second (`ratelimit.refused-until-retry`, `ratelimit.ban-lifts`); any threshold and any length (readings ban.*, judge/README.md); no ban seen is "not run", a ban seen but not waited out says so. Declared: the refusal status during a ban',
    values: ['429', '403'],
  },
  {
    id: 'retry-after',
    specification: 'Limits › Other limits: "Format of the `Retry-After` value … not shown."',
    kit: 'must: delay-seconds or an HTTP-date (RFC 9110 §10.2.3), naming the moment X-RateLimit-Reset names, rounded up, to the nearest or truncated (readings retry_after.*: up to 1 s short; `ratelimit.retry-after-valid`, `-consistent`); should: integer seconds (`ratelimit.retry-after-integer`)',
    values: ['seconds', 'http-date'],
  },
  {
    id: 'location',
    specification: 'Endpoints › Add an animal: only the 201 body is stated; a Location header is not mentioned',
    kit: 'should: `Location` names the created pet (`schema.reference-decisions`); nothing at must. Reported',
    values: [],
  },
  {
    id: 'default-status',
    specification: 'Resources › NewPet: status "default when omitted is not stated"',
    kit: 'must: a PetStatus value (`schema.every-response`); the kit always sends status in its own checks. Reported',
    values: [...PET_STATUSES],
  },
  {
    id: 'body-size',
    specification: 'Limits › Other limits: "size limits of request bodies: not shown"',
    kit: 'Nothing at must; a refused large body is judged only for its Error body and never a 5xx (`errors.no-server-error`)',
    values: [],
  },
  {
    id: 'keyless-limits',
    specification: 'Limits: the limits are per plan, i.e. per key; requests without a valid key are not mentioned',
    kit: 'must: limits apply per key (`ratelimit.per-key`); requests without a key are paced by their own X-RateLimit-* and their 429s attributed to the address, never failed',
    values: [],
  },
];

export type Choices = Record<string, string>;

/** `--choice paging=none` (or `paging: none` from a config file's object) into { paging: 'none' }. */
export function parseChoices(values: readonly string[]): Choices {
  const choices: Choices = {};
  for (const text of values) {
    const m = /^\s*([a-z-]+)\s*[=:]\s*(.+?)\s*$/.exec(text);
    if (!m) throw new UsageError(`--choice ${JSON.stringify(text)} is not <point>=<value>`);
    const point = OPEN_POINTS.find((p) => p.id === m[1]);
    if (!point || point.values.length === 0) {
      throw new UsageError(
        `--choice ${m[1]}: not a point that can be declared (${OPEN_POINTS.filter((p) => p.values.length > 0)
          .map((p) => p.id)
          .join(', ')})`,
      );
    }
    if (!point.values.includes(m[2]!)) throw new UsageError(`--choice ${m[1]}=${m[2]}: one of ${point.values.join(', ')}`);
    choices[point.id] = m[2]!;
  }
  return choices;
}
