// What this server decides where the specification says "not shown", each the opposite of the
// reference server's choice (server/README.md), so that a kit that passes both demands neither.
// README.md gives the reasons; the *.test.ts files beside this one hold every row to a test.

export const SECOND_SERVER_CHOICES: readonly { point: string; choice: string }[] = [
  {
    point: 'paging mechanism',
    choice:
      "`page` query parameter (1-based integer ≥ 1, otherwise 400; empty as absent); with paging 'link' (default) a full page with more pets after it carries a `Link` of rel next to the absolute URL `…/v1/pets?page=N&limit=L[&status=S]`, with paging 'none' no Link at all",
  },
  { point: 'list order', choice: 'newest first (descending id)' },
  { point: '`limit` out of 1..100', choice: 'clamped into 1..100 (0 or negative → 1, above 100 → 100); not an integer → 400; empty as absent (20)' },
  { point: '`status` query outside PetStatus', choice: '400 VALIDATION_FAILED' },
  { point: 'repeated query parameter', choice: 'the first value counts' },
  {
    point: 'spelling of error codes',
    choice:
      'SCREAMING_SNAKE (UNAUTHORIZED, VALIDATION_FAILED, NOT_FOUND, RATE_LIMITED, FORBIDDEN_BANNED, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE, METHOD_NOT_ALLOWED, MALFORMED_JSON; BAD_REQUEST, HEADERS_TOO_LARGE, REQUEST_TIMEOUT for framing, CONNECT and a missing Host; INTERNAL_ERROR); every body exactly { code, message, status }',
  },
  { point: 'unknown body fields on createPet', choice: '400 VALIDATION_FAILED naming each field; a client-sent `id` is one of them' },
  { point: 'name constraints', choice: 'any non-empty JSON string; no upper bound but the body size' },
  {
    point: 'categoryId',
    choice: 'any safe integer, 0 and negatives included; a fraction, an unsafe integer or any non-number (the string "2" too: no coercion) → 400',
  },
  { point: 'status on create', choice: 'one of PetStatus when present; anything else (null, a number, another word) → 400' },
  { point: 'default `status` when omitted', choice: '`pending`' },
  { point: 'non-integer path id', choice: '`/pets/abc`, `/pets/1.5` and any integer not stored → 404 NOT_FOUND' },
  { point: 'Location on 201', choice: 'absolute URL `http://<Host>/v1/pets/<id>`, from the Host header' },
  {
    point: 'body size',
    choice: '4096 bytes; a declared or streamed body beyond that → 413 PAYLOAD_TOO_LARGE without reading the rest, and the connection is closed',
  },
  {
    point: 'media type',
    choice:
      'Content-Type application/json in any letters, parameters allowed, charset only utf-8; anything else or none → 415; Content-Encoding other than identity → 415; invalid JSON or UTF-8 → 400 MALFORMED_JSON; JSON that is not an object → 400 VALIDATION_FAILED',
  },
  {
    point: 'methods',
    choice:
      "HEAD wherever GET, by GET's operation: the same status and header fields (Content-Length of GET's content), no content, counted as a GET; a method a path does not describe → 405 METHOD_NOT_ALLOWED with Allow (`GET, HEAD, POST` on /pets, `GET, HEAD` on /pets/{id}); OPTIONS → 204 with Allow; unknown path → 404 NOT_FOUND",
  },
  {
    point: 'order of refusals',
    choice:
      'rate limit (key, else address), then HTTP/1.1 without Host → 400 BAD_REQUEST, outside /v1 → 404, then key → 401, then path → 404, method → 405, then media → 415, size → 413, JSON → 400',
  },
  { point: 'Retry-After form', choice: 'an HTTP-date, the same moment as X-RateLimit-Reset (a ban: its end)' },
  {
    point: 'ban',
    choice:
      '403 FORBIDDEN_BANNED with an HTTP-date Retry-After, once a key has had `banAfter` (5) requests refused with 429 in one window; lasts `banSeconds` (30; never less than what is left of a spent day window); X-RateLimit-Remaining 0 and Reset at its end; lifts exactly then, with a fresh minute window',
  },
  {
    point: 'keyless limits',
    choice:
      'requests without a valid key: 600 per minute per client address, 429 RATE_LIMITED beyond, X-RateLimit-* of that address window on every such response',
  },
  {
    point: 'rate-limit window',
    choice:
      'per key a fixed 60 s window started by its first request, and a 24 h one for the day limit; Limit/Remaining/Reset describe the window nearer to refusing (the day one once it is spent); Reset in Unix seconds rounded up; 429 with Retry-After and Cache-Control: no-store',
  },
  {
    point: 'IETF rate-limit fields',
    choice:
      'RateLimit-Policy and RateLimit (draft-ietf-httpapi-ratelimit-headers) on every response with X-RateLimit-*: with a key `"minute";q=<per minute>;w=60, "day";q=<per day>;w=86400`, without one `"address-minute";q=600;w=60`; r left and t seconds until each window ends (rounded up), while banned r=0 and t until the ban ends',
  },
  { point: 'keys', choice: 'option `keys`; default second-free-key, second-pro-key, second-business-key' },
  { point: 'seed data', choice: 'option `seed` (default 3 pets: Juniper, Quill, Saffron); `empty: true` for none' },
  { point: '401', choice: 'missing, unknown or non-Bearer Authorization → 401 UNAUTHORIZED with `WWW-Authenticate: Bearer realm="pets"`' },
  {
    point: 'deprecation of getPet',
    choice:
      'every GET /v1/pets/{id} response carries `Deprecation: @1767225600` (2026-01-01) and `Sunset: Thu, 05 Dec 2030 00:00:00 GMT`; from the sunset on the path is gone (404)',
  },
  { point: 'ids', choice: 'assigned by the server from 1, increasing, never reused' },
];
