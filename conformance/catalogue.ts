// Every check the kit can report, with its stable id, its level and where its rule comes from.
// `must`: the specification (or the HTTP RFC it builds on) requires it; a failure fails the run.
// `should`: good practice the specification does not require; a failure is a warning unless --strict.

export type Level = 'must' | 'should';
export type Profile = 'contract' | 'full';

export interface CheckDef {
  id: string;
  level: Level;
  /** The lowest profile that runs it: contract checks also run in the full profile. */
  profile: Profile;
  /** Section of the specification (or RFC) the rule comes from. */
  section: string;
  title: string;
  /** Only run with --rate-limit-key (it exhausts that key's window). */
  needsRateLimitKey?: boolean;
  /** Only run with --ban-check as well. */
  needsBanCheck?: boolean;
}

const LIST = 'Endpoints › List animals';
const CREATE = 'Endpoints › Add an animal';
const GET = 'Endpoints › Get an animal (deprecated)';
const AUTH = 'Authentication';
const ERRORS = 'Errors';
const HEADERS = 'Limits › Rate limit response headers';
const EXCEEDED = 'Limits › Behaviour when the limit is exceeded';
const VERSIONING = 'Versioning';

export const CATALOGUE: readonly CheckDef[] = [
  // contract: what a stateless mock can satisfy
  { id: 'list.200', level: 'must', profile: 'contract', section: LIST, title: 'GET /pets with a key answers 200 with a bare array of Pet' },
  { id: 'create.201', level: 'must', profile: 'contract', section: CREATE, title: 'POST /pets with a valid NewPet answers 201 with a Pet' },
  { id: 'create.400-missing', level: 'must', profile: 'contract', section: CREATE, title: 'POST /pets without required fields answers 400 with an Error' },
  { id: 'create.400-invalid', level: 'must', profile: 'contract', section: CREATE, title: 'POST /pets with a wrongly typed categoryId or an unknown status answers 400' },
  { id: 'get.200', level: 'must', profile: 'contract', section: GET, title: 'GET /pets/{petId} of an existing pet answers 200 with a Pet' },
  { id: 'get.404', level: 'must', profile: 'contract', section: GET, title: 'GET /pets/{petId} of an unknown id answers 404 with an Error' },
  { id: 'auth.401-missing', level: 'must', profile: 'contract', section: AUTH, title: 'Every operation without Authorization answers 401 with an Error' },
  { id: 'auth.401-scheme', level: 'must', profile: 'contract', section: AUTH, title: 'A key sent with another scheme than Bearer answers 401' },
  { id: 'auth.www-authenticate', level: 'should', profile: 'contract', section: `${AUTH}; RFC 9110 §11.6.1, RFC 6750 §3`, title: 'A 401 carries WWW-Authenticate with the Bearer scheme' },
  { id: 'headers.rate-limit', level: 'must', profile: 'contract', section: HEADERS, title: 'Every response carries X-RateLimit-Limit/Remaining/Reset as integers, Remaining <= Limit' },
  { id: 'errors.status-field', level: 'must', profile: 'contract', section: ERRORS, title: "Every error body's status equals the HTTP status" },
  { id: 'schema.every-response', level: 'must', profile: 'contract', section: 'Resources and their fields; Errors', title: 'Every response seen is documented and valid against its OpenAPI schemas (ajv)' },
  { id: 'dredd.transactions', level: 'must', profile: 'contract', section: 'Endpoints (Dredd 14 over the description)', title: 'Dredd passes every documented transaction, bodies checked against the full schemas' },
  // full: behaviour a stateless mock cannot have
  { id: 'auth.401-unknown-key', level: 'must', profile: 'full', section: AUTH, title: 'An unknown bearer key answers 401, not the resource' },
  { id: 'create.echo', level: 'must', profile: 'full', section: CREATE, title: 'The 201 body is the stored pet: the name, categoryId and status sent' },
  { id: 'create.retrievable', level: 'must', profile: 'full', section: CREATE, title: 'A created pet is returned by GET /pets/{id} with the same fields' },
  { id: 'create.unique-ids', level: 'must', profile: 'full', section: 'Resources and their fields › Pet', title: 'Two created pets get different ids' },
  { id: 'create.listed', level: 'must', profile: 'full', section: LIST, title: 'A created pet appears in GET /pets filtered by its status' },
  { id: 'list.limit', level: 'must', profile: 'full', section: LIST, title: 'limit caps the number of pets returned (1 and the maximum 100), default at most 20' },
  { id: 'list.limit-bounds', level: 'should', profile: 'full', section: LIST, title: 'limit outside 1..100 is refused with 400 and an Error' },
  { id: 'list.status-filter', level: 'must', profile: 'full', section: LIST, title: 'status=<value> returns only pets with that status, for every PetStatus' },
  { id: 'list.status-invalid', level: 'should', profile: 'full', section: LIST, title: 'status outside PetStatus is refused with 400 and an Error' },
  { id: 'list.next-link', level: 'must', profile: 'full', section: `${LIST}; RFC 8288`, title: 'When a page carries Link rel="next", following it returns the next page' },
  { id: 'get.404-unknown', level: 'must', profile: 'full', section: GET, title: 'An unknown id answers 404 without any hint to the server' },
  { id: 'deprecation.header', level: 'should', profile: 'full', section: `${VERSIONING}; RFC 9745`, title: 'getPet responses carry Deprecation as an RFC 9745 date (@epoch)' },
  { id: 'deprecation.sunset', level: 'should', profile: 'full', section: `${VERSIONING}; RFC 8594`, title: 'getPet responses carry Sunset on the removal day the description announces (5 December 2030), not before Deprecation' },
  { id: 'deprecation.scope', level: 'should', profile: 'full', section: VERSIONING, title: 'Operations that are not deprecated carry no Deprecation or Sunset' },
  { id: 'ratelimit.ietf-fields', level: 'should', profile: 'full', section: `${HEADERS}; draft-ietf-httpapi-ratelimit-headers`, title: 'RateLimit-Policy and RateLimit are well-formed structured fields agreeing with X-RateLimit-*' },
  // rate limits: only with --rate-limit-key
  { id: 'ratelimit.limit-constant', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Limit stays the same through one window', needsRateLimitKey: true },
  { id: 'ratelimit.remaining-decrements', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Remaining falls by exactly one per admitted request', needsRateLimitKey: true },
  { id: 'ratelimit.reset-future', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Reset is a Unix time in seconds, in the future, within a day', needsRateLimitKey: true },
  { id: 'ratelimit.reset-stable', level: 'must', profile: 'full', section: HEADERS, title: 'X-RateLimit-Reset does not move within a window', needsRateLimitKey: true },
  { id: 'ratelimit.exhaustion-exact', level: 'must', profile: 'full', section: EXCEEDED, title: 'The first 429 comes exactly after the requests Remaining announced', needsRateLimitKey: true },
  { id: 'ratelimit.429', level: 'must', profile: 'full', section: EXCEEDED, title: '429 carries an Error body, Retry-After and Remaining 0', needsRateLimitKey: true },
  { id: 'ratelimit.retry-after-valid', level: 'must', profile: 'full', section: `${EXCEEDED}; RFC 9110 §10.2.3`, title: 'Retry-After is delay-seconds or an HTTP-date', needsRateLimitKey: true },
  { id: 'ratelimit.retry-after-consistent', level: 'must', profile: 'full', section: EXCEEDED, title: 'The moment Retry-After names is the moment X-RateLimit-Reset names', needsRateLimitKey: true },
  { id: 'ratelimit.retry-after-integer', level: 'should', profile: 'full', section: EXCEEDED, title: 'Retry-After is integer delay-seconds, at least 1', needsRateLimitKey: true },
  { id: 'ratelimit.429-no-store', level: 'should', profile: 'full', section: `${EXCEEDED}; RFC 6585 §4`, title: '429 carries Cache-Control: no-store', needsRateLimitKey: true },
  { id: 'ratelimit.readmitted', level: 'must', profile: 'full', section: EXCEEDED, title: 'After waiting Retry-After, the key is admitted again', needsRateLimitKey: true },
  { id: 'ratelimit.refused-until-retry', level: 'must', profile: 'full', section: EXCEEDED, title: 'Requests repeated after a 429 stay refused, each with a valid Retry-After', needsRateLimitKey: true, needsBanCheck: true },
  { id: 'ratelimit.ban-lifts', level: 'must', profile: 'full', section: EXCEEDED, title: 'A temporary ban, if one is imposed, is announced by Retry-After and lifts when it says', needsRateLimitKey: true, needsBanCheck: true },
];

export function checkDef(id: string): CheckDef {
  const def = CATALOGUE.find((c) => c.id === id);
  if (!def) throw new Error(`unknown check id ${id}`);
  return def;
}
